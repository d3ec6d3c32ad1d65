import Foundation
import ExerciseKit

// Exercise 03-threads/Worker — read chapters/en/03-threads.md (ja: chapters/ja/03-threads.md) first.
//
// Goal: a worker with a thread of its own. `submit` queues jobs; the thread runs them one at a
// time, in order. `shutdown` lets the accepted jobs finish; `cancel` lets only the running job
// finish — no other job starts after `cancel` returns. `join` blocks until the thread has
// ended, and `isFinished` turns true only then, after every job the worker will ever run.
//
// Tools: `Thread { … }` and `start()`; `NSCondition` to guard the job list and the state and to
// wait for "a job or a reason to stop".
//
// Check your answer:   swift test --filter ExercisesTests.Worker
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

/// `@unchecked Sendable`: you promise that `condition` guards every `var`; the check tests it.
public final class Worker: WorkerProtocol, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    // TODO: add the state you need (accepting or not, cancelled, finished).

    public init() {}

    public func start() {
        // TODO: start a Thread whose body takes jobs one at a time (waiting while there are none
        // and the worker still accepts), runs each outside the lock, and at the very end marks
        // the worker finished and wakes anyone in join().
        todo()
    }

    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        // TODO: under the lock: if still accepting, append the job, wake the thread, return true.
        todo()
    }

    public func shutdown() {
        // TODO: stop accepting; the thread runs what is queued, then ends.
        todo()
    }

    public func cancel() {
        // TODO: stop accepting and drop the queued jobs, so none of them ever starts.
        todo()
    }

    public func join() {
        // TODO: wait on the condition until the worker has finished.
        todo()
    }

    public var isFinished: Bool {
        // TODO: read the finished flag under the lock.
        todo()
    }
}
