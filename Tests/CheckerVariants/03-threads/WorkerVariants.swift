import Foundation
import ExerciseKit

/// A worker with one mistake at a time; otherwise like the reference.
final class WorkerVariant: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition` (except where the mistake says)
    enum Mistake {
        /// `cancel` stops accepting but leaves the queued jobs to run.
        case cancelKeepsQueue
        /// Marks the worker finished when it takes the last job, before that job has run.
        case finishedWhenQueueEmpties
        /// Runs each job inside `submit`, on the caller's thread.
        case runsOnCaller
        /// Runs the job loop inside `start()`, on the caller's thread.
        case loopInStart
        /// `shutdown` changes the state but wakes nobody, so an idle worker sleeps on.
        case shutdownDoesNotWake
        /// `cancel` returns early when the worker no longer accepts jobs ("already stopping").
        case cancelIgnoredAfterShutdown
        /// `isFinished` reads the flag without the lock.
        case isFinishedWithoutLock
        /// Runs each job while still holding the lock.
        case jobUnderLock
        /// Starts no thread and keeps no job: `submit` says yes and forgets the job.
        case skipsTheWork
        /// The thread looks for work every millisecond instead of waiting on the condition.
        case pollsForWork
        /// `join` sleeps a millisecond and looks at the flag again.
        case pollingJoin
        /// `join` waits with `if` instead of `while`: any wake-up lets it out.
        case joinWithIf
        /// The thread waits for work with `if` instead of `while`; woken with no job, it takes
        /// "no job" for "stopped" and ends.
        case waitsForWorkWithIf
    }
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var accepting = true, finished = false
    private let mistake: Mistake

    init() { mistake = .cancelKeepsQueue }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func start() {
        switch mistake {
        case .runsOnCaller, .skipsTheWork: return
        case .loopInStart: runLoop()  // the mistake: the job loop on the caller's thread, so start() never returns
        default: Thread.detachNewThread { [self] in runLoop() }
        }
    }

    private func runLoop() {
        while true {
            condition.lock()
            if mistake == .pollsForWork {
                while jobs.isEmpty && accepting {  // the mistake: sleep and look again
                    condition.unlock()
                    usleep(1_000)
                    condition.lock()
                }
            }
            if mistake == .waitsForWorkWithIf {
                if jobs.isEmpty && accepting { condition.wait() }  // the mistake: one look, whatever woke it
            } else {
                while jobs.isEmpty && accepting { condition.wait() }
            }
            if jobs.isEmpty {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            // The mistake: "finished" as soon as nothing is queued, while the last job still runs.
            if mistake == .finishedWhenQueueEmpties && jobs.isEmpty && !accepting { finished = true }
            if mistake == .jobUnderLock {
                job()
                condition.unlock()
            } else {
                condition.unlock()
                job()
            }
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
        if mistake == .skipsTheWork { return true }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    func shutdown() {
        condition.lock()
        accepting = false
        if mistake == .runsOnCaller || mistake == .skipsTheWork { finished = true }
        if mistake != .shutdownDoesNotWake { condition.broadcast() }
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        if mistake == .cancelIgnoredAfterShutdown && !accepting { return }
        accepting = false
        if mistake != .cancelKeepsQueue { jobs.removeAll() }
        if mistake == .runsOnCaller || mistake == .skipsTheWork { finished = true }
        condition.broadcast()
    }

    func join() {
        switch mistake {
        case .pollingJoin:
            while !isFinished { usleep(1_000) }  // the mistake: sleep and look again
        case .joinWithIf:
            condition.lock()
            if !finished { condition.wait() }  // the mistake: a wake-up is not the end
            condition.unlock()
        default:
            condition.lock()
            while !finished { condition.wait() }
            condition.unlock()
        }
    }

    var isFinished: Bool {
        if mistake == .isFinishedWithoutLock { return finished }  // the race: no lock held
        condition.lock()
        defer { condition.unlock() }
        return finished
    }
}

/// Keeps its state in one enum: `cancel` marks it cancelled (the loop then takes no more jobs),
/// and `shutdown` sets "draining" whatever the state was — so a shutdown after a cancel revives
/// the queued jobs.
final class StateWorker: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`
    private enum State { case accepting, draining, cancelled }
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var state = State.accepting
    private var finished = false

    init() {}

    func start() {
        Thread.detachNewThread { [self] in
            while let job = nextJob() { job() }
            condition.withLock {
                finished = true
                condition.broadcast()
            }
        }
    }

    private func nextJob() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && state == .accepting { condition.wait() }
        guard state != .cancelled, !jobs.isEmpty else { return nil }
        return jobs.removeFirst()
    }

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard state == .accepting else { return false }
            jobs.append(job)
            condition.broadcast()
            return true
        }
    }

    func shutdown() { condition.withLock { state = .draining; condition.broadcast() } }  // the mistake: overwrites .cancelled
    func cancel() { condition.withLock { state = .cancelled; condition.broadcast() } }

    func join() { condition.withLock { while !finished { condition.wait() } } }

    var isFinished: Bool { condition.withLock { finished } }
}

/// `join` waits on a semaphore that the thread signals once, at its end: the first caller of
/// `join` takes the signal, and every later one waits for ever.
final class SignalOnceJoinWorker: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`
    private let condition = NSCondition()
    private let ended = DispatchSemaphore(value: 0)
    private var jobs: [@Sendable () -> Void] = []
    private var accepting = true, finished = false
    /// Correct when true: each `join` passes the signal on to the next.
    private let relays: Bool

    init() { relays = false }
    init(relays: Bool) { self.relays = relays }

    func start() {
        Thread.detachNewThread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty && accepting { condition.wait() }
                guard !jobs.isEmpty else {
                    finished = true
                    condition.unlock()
                    ended.signal()
                    return
                }
                let job = jobs.removeFirst()
                condition.unlock()
                job()
            }
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard accepting else { return false }
            jobs.append(job)
            condition.broadcast()
            return true
        }
    }

    func shutdown() { condition.withLock { accepting = false; condition.broadcast() } }
    func cancel() { condition.withLock { accepting = false; jobs.removeAll(); condition.broadcast() } }

    func join() {
        ended.wait()
        if relays { ended.signal() }
    }

    var isFinished: Bool { condition.withLock { finished } }
}

/// A serial `DispatchQueue` instead of a thread: the jobs run in order, one at a time, but on
/// the queue's pool threads, which do not end with the worker.
final class QueueWorker: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`
    private let queue = DispatchQueue(label: "worker")
    private let condition = NSCondition()
    private var accepting = true, cancelled = false, finished = false, ending = false

    init() {}

    func start() {}

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard accepting else { return false }
            queue.async { [self] in
                if condition.withLock({ !cancelled }) { job() }
            }
            return true
        }
    }

    func shutdown() { stop(cancelling: false) }
    func cancel() { stop(cancelling: true) }

    private func stop(cancelling: Bool) {
        condition.withLock {
            accepting = false
            if cancelling { cancelled = true }
            guard !ending else { return }
            ending = true
            queue.async { [self] in
                condition.withLock {
                    finished = true
                    condition.broadcast()
                }
            }
        }
    }

    func join() { condition.withLock { while !finished { condition.wait() } } }

    var isFinished: Bool { condition.withLock { finished } }
}

/// Like the reference, except that `isFinished` reads the flag without the lock (a quick look
/// at a Bool "cannot hurt" — but nothing orders it with the worker thread's write).
final class UnlockedFlagWorker: WorkerProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`, except in `isFinished`
    private enum State { case accepting, draining, cancelled }
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var state = State.accepting
    private var finished = false

    init() {}

    func start() {
        Thread.detachNewThread { [self] in
            while let job = nextJob() { job() }
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private func nextJob() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && state == .accepting { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .accepting else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    func shutdown() { stop(as: .draining) }
    func cancel() { stop(as: .cancelled) }

    private func stop(as newState: State) {
        condition.lock()
        defer { condition.unlock() }
        if state != .cancelled { state = newState }
        if newState == .cancelled { jobs.removeAll() }
        condition.broadcast()
    }

    func join() {
        condition.lock()
        defer { condition.unlock() }
        while !finished { condition.wait() }
    }

    var isFinished: Bool { finished }  // the race: no lock held
}
