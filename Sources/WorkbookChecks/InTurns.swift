import Foundation
import Synchronization
import WorkbookCore

/// Runs steps on several threads strictly one after another, in the order given, while adding
/// no happens-before edge between them that ThreadSanitizer could see.
///
/// This is how a check makes a data race show every run: thread A calls the learner's write,
/// then thread B calls the learner's read. They never overlap in time (so the racy code cannot
/// crash or tear), yet unless the learner's own lock or queue orders them, TSan reports the
/// pair — it judges order, not timing. The hand-over is an atomic turn counter in this module,
/// which is not compiled for TSan, so TSan sees no synchronization in it. The waiting thread
/// spins with `sched_yield`, so on a busy machine it gives its core away.
///
/// The racy way (a semaphore hands over the turn, and TSan counts it as ordering):
/// ```swift
/// stepA(); semaphore.signal()     // release
/// semaphore.wait(); stepB()        // acquire: A's writes "happen before" B's reads
/// ```
///
/// Returns the index of the first step that did not return within `deadlineSeconds` (a
/// deadlock in the learner's code), or nil when every step ran. Threads stuck in a step are
/// left behind, as with `runOnThreads`.
func runInTurns(threads: Int, deadlineSeconds: Double, steps: [(thread: Int, body: @Sendable () -> Void)]) -> Int? {
    let turns = TurnCounter()
    let finished = runOnThreads(threads, deadlineSeconds: deadlineSeconds) { thread in
        for (index, step) in steps.enumerated() where step.thread == thread {
            guard turns.wait(for: index, deadline: MonotonicClock.now() + UInt64(deadlineSeconds * 1e9)) else { return }
            step.body()
            turns.pass()
        }
    }
    if finished { return nil }
    let reached = turns.current
    return reached < steps.count ? reached : nil
}

/// The turn counter behind `runInTurns`: plain atomics, invisible to ThreadSanitizer.
final class TurnCounter: Sendable {
    private let turn = Atomic<Int>(0)

    var current: Int { turn.load(ordering: .sequentiallyConsistent) }

    /// Spins (yielding the core) until it is turn `index`; false at the deadline.
    func wait(for index: Int, deadline: UInt64) -> Bool {
        var spins = 0
        while turn.load(ordering: .sequentiallyConsistent) != index {
            spins += 1
            if spins % 64 == 0 {
                if MonotonicClock.now() > deadline { return false }
                usleep(50)
            } else {
                sched_yield()
            }
        }
        return true
    }

    func pass() { turn.add(1, ordering: .sequentiallyConsistent) }
}
