import Foundation

/// A value guarded by an `NSLock`: the one way the workbook's own machinery shares mutable state.
///
/// The racy way is a plain `var` read and written from several threads; the compiler rejects it
/// in Swift 6 unless silenced. This box keeps every access inside `withLock`.
///
/// `NSLock` rather than `Synchronization.Mutex`: ThreadSanitizer on Linux reported a false race
/// on `Mutex` under contention (see DESIGN.md), and this code runs in the ThreadSanitizer lane.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value { withLock { $0 } }
}

