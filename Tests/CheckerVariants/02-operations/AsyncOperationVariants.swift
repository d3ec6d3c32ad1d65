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
    private var executing = false, finished = false, finishCalled = false
    init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) { self.work = work }
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.lock(); defer { lock.unlock() }; return executing }
    override var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.lock(); executing = true; lock.unlock()
        didChangeValue(forKey: "isExecuting")
        work { [self] in
            let first = lock.withLock { () -> Bool in defer { finishCalled = true }; return !finishCalled }
            guard first else { return }
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.lock(); executing = false; finished = true; lock.unlock()
            didChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isExecuting")
        }
    }
}

/// A base class with one mistake at a time; otherwise it is the reference.
final class FlawedAsyncOperation: Operation, CallbackOperationProtocol, @unchecked Sendable {
    enum Flaw {
        /// `isExecuting`/`isFinished` return the flags without taking the lock that guards them.
        case readsOutsideLock
        /// Announces isFinished but never isExecuting.
        case executingNotAnnounced
        /// Flips the flags (`toggle()`) instead of setting them, and lets finish() run twice.
        case togglesFlags
        /// start() finishes at once, without calling the work.
        case skipsWork
        /// Cancelled before start: returns without finishing.
        case cancelledNeverFinishes
        /// Starts the work first and becomes executing afterwards.
        case executingAfterWork
        /// finish() sets the flags again on a second done(), announcing them again.
        case unguardedFinish
        /// Holds its (recursive) lock across willChangeValue/didChangeValue in finish().
        case lockAcrossAnnouncement
    }

    private let flaw: Flaw
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    private let lock: NSLocking
    private var executing = false, finished = false, finishCalled = false

    convenience init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        self.init(.readsOutsideLock, work: work)
    }

    init(_ flaw: Flaw, work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        self.flaw = flaw
        self.work = work
        lock = flaw == .lockAcrossAnnouncement ? NSRecursiveLock() : NSLock()
    }

    override var isAsynchronous: Bool { true }

    override var isExecuting: Bool {
        if flaw == .readsOutsideLock { return executing }
        lock.lock(); defer { lock.unlock() }
        return executing
    }

    override var isFinished: Bool {
        if flaw == .readsOutsideLock { return finished }
        lock.lock(); defer { lock.unlock() }
        return finished
    }

    override func start() {
        if isCancelled {
            if flaw != .cancelledNeverFinishes { finish() }
            return
        }
        switch flaw {
        case .skipsWork:
            finish()
        case .executingAfterWork:
            work { [self] in finish() }
            becomeExecuting()
        default:
            becomeExecuting()
            work { [self] in finish() }
        }
    }

    private func becomeExecuting() {
        if flaw != .executingNotAnnounced { willChangeValue(forKey: "isExecuting") }
        lock.lock()
        if flaw == .togglesFlags { executing.toggle() } else { executing = true }
        lock.unlock()
        if flaw != .executingNotAnnounced { didChangeValue(forKey: "isExecuting") }
    }

    private func finish() {
        if flaw == .lockAcrossAnnouncement {
            lock.lock()
            defer { lock.unlock() }
            guard !finishCalled else { return }
            finishCalled = true
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            executing = false
            finished = true
            didChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isExecuting")
            return
        }
        if flaw != .togglesFlags && flaw != .unguardedFinish {
            lock.lock()
            let first = !finishCalled
            finishCalled = true
            lock.unlock()
            guard first else { return }
        }
        if flaw != .executingNotAnnounced { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        lock.lock()
        if flaw == .togglesFlags {
            executing.toggle()
            finished.toggle()
        } else {
            executing = false
            finished = true
        }
        lock.unlock()
        didChangeValue(forKey: "isFinished")
        if flaw != .executingNotAnnounced { didChangeValue(forKey: "isExecuting") }
    }
}
