import Foundation
import ExerciseKit

/// Reference: one `NSCondition` guards the job list and the state. The thread takes one job at
/// a time and runs it *outside* the lock; `cancel` empties the list under the lock, so a job
/// that has not been taken can never start; `isFinished` is set as the thread's very last act.
public final class Worker: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`
    private enum State { case accepting, draining, cancelled }

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var state = State.accepting
    private var finished = false

    public init() {}

    public func start() {
        Thread { [self] in
            Thread.current.name = "worker"  // from inside: a name set from outside is lost on Linux
            runLoop()
        }.start()
    }

    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .accepting else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    public func shutdown() { stop(as: .draining) }

    public func cancel() { stop(as: .cancelled) }

    public func join() {
        condition.lock()
        defer { condition.unlock() }
        while !finished { condition.wait() }
    }

    public var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    private func stop(as newState: State) {
        condition.lock()
        defer { condition.unlock() }
        if state != .cancelled { state = newState }
        if newState == .cancelled { jobs.removeAll() }
        condition.broadcast()
    }

    private func runLoop() {
        while let job = nextJob() { job() }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next job, waiting for one while accepting; nil when it is time to end.
    private func nextJob() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && state == .accepting { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
