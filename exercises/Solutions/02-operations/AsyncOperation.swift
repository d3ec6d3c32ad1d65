import Foundation
import ExerciseKit

/// Reference: a reusable base class for asynchronous operations.
///
/// The queue reads `isExecuting` and `isFinished` from its own threads while `finish()` may run
/// on any thread, so the state sits behind a lock. The queue learns that the operation finished
/// only through key-value notifications: `willChangeValue`/`didChangeValue(forKey: "isFinished")`.
/// Without them (observed on Linux) its dependants never start.
open class AsyncOperation: Operation, @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSLock()
    private var executing = false
    private var finished = false
    private var finishCalled = false

    open override var isAsynchronous: Bool { true }

    open override var isExecuting: Bool {
        lock.lock()
        defer { lock.unlock() }
        return executing
    }

    open override var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    open override func start() {
        guard !isCancelled else {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.lock()
        executing = true
        lock.unlock()
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    /// Subclasses start their work here and call `finish()` when it is done.
    open func execute() { finish() }

    /// Marks the operation finished (once; later calls do nothing).
    public final func finish() {
        lock.lock()
        let first = !finishCalled
        finishCalled = true
        lock.unlock()
        guard first else { return }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.lock()
        executing = false
        finished = true
        lock.unlock()
        didChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
    }
}

/// Runs callback-based work as an operation.
public final class CallbackOperation: AsyncOperation, CallbackOperationProtocol, @unchecked Sendable {
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    public init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        self.work = work
    }

    public override func execute() {
        work { [self] in finish() }
    }
}
