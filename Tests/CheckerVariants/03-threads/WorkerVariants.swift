import Foundation
import ExerciseKit

/// A worker with one mistake at a time; otherwise like the reference.
final class WorkerVariant: WorkerProtocol, @unchecked Sendable {
    enum Mistake { case cancelKeepsQueue, finishedWhenQueueEmpties, runsOnCaller, loopInStart }
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var accepting = true, cancelled = false, finished = false
    private let mistake: Mistake

    init() { mistake = .cancelKeepsQueue }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func start() {
        switch mistake {
        case .runsOnCaller: return
        case .loopInStart: runLoop()  // the mistake: the job loop on the caller's thread, so start() never returns
        default: Thread.detachNewThread { [self] in runLoop() }
        }
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && accepting { condition.wait() }
            if jobs.isEmpty {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            // The mistake: "finished" as soon as nothing is queued, while the last job still runs.
            if mistake == .finishedWhenQueueEmpties && jobs.isEmpty && !accepting { finished = true }
            condition.unlock()
            job()
        }
    }

    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        if mistake == .runsOnCaller {
            job()
            return true
        }
        condition.lock()
        defer { condition.unlock() }
        guard accepting else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    func shutdown() {
        condition.lock()
        accepting = false
        if mistake == .runsOnCaller { finished = true }
        condition.broadcast()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        accepting = false
        cancelled = true
        if mistake != .cancelKeepsQueue { jobs.removeAll() }
        if mistake == .runsOnCaller { finished = true }
        condition.broadcast()
        condition.unlock()
    }

    func join() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }
}
