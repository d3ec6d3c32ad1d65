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

/// A value guarded by a lock that ThreadSanitizer does not see: for a fake's or a check's own
/// bookkeeping inside code the learner's tasks run (see `RaceDetector`).
///
/// The racy way for a check: two of the learner's tasks each record into a `Locked` box, and
/// the box's lock orders them for TSan — a race between them is hidden. `QuietLocked` records
/// the same, and the tasks stay as unordered as the learner left them.
public final class QuietLocked<Value>: @unchecked Sendable {
    private let box: Locked<Value>

    public init(_ value: Value) { box = Locked(value) }

    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try RaceDetector.quietly { try box.withLock(body) }
    }

    public var current: Value { withLock { $0 } }
}
