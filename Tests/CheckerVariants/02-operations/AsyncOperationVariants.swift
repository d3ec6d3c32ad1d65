import Foundation
import ExerciseKit

/// A plain operation: `main` starts the work and returns, so the queue calls it finished while
/// the work is still out.
final class ReturnsEarlyOperation: Operation, CallbackOperationProtocol, @unchecked Sendable {
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) { self.work = work }
    override func main() { work {} }
}

/// Keeps its own state but never announces the changes: the queue never learns it finished.
final class SilentStateOperation: Operation, CallbackOperationProtocol, @unchecked Sendable {
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    private let lock = NSLock()
    private var executing = false, finished = false
    init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) { self.work = work }
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.lock(); defer { lock.unlock() }; return executing }
    override var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    override func start() {
        lock.lock(); executing = true; lock.unlock()
        work { [self] in
            lock.lock(); executing = false; finished = true; lock.unlock()
        }
    }
}

/// Announces its changes correctly but runs the work even when cancelled before it started.
final class IgnoresCancelOperation: Operation, CallbackOperationProtocol, @unchecked Sendable {
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    private let lock = NSLock()
    private var executing = false, finished = false
    init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) { self.work = work }
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.lock(); defer { lock.unlock() }; return executing }
    override var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.lock(); executing = true; lock.unlock()
        didChangeValue(forKey: "isExecuting")
        work { [self] in
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.lock(); executing = false; finished = true; lock.unlock()
            didChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isExecuting")
        }
    }
}
