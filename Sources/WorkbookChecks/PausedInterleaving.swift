import Foundation
import ExerciseKit
import WorkbookCore

/// Makes a check-then-act split over two steps show itself every run: `first` runs on a thread
/// of its own and is paused right after its k-th release (a `sync` returning, a lock unlocked —
/// see `ReleasePoint`); at that moment `second` runs whole on another thread (or until it
/// blocks, waiting for something the paused one holds); then `first` goes on.
///
/// The racy way, which only a pause between the two steps exposes:
/// ```swift
/// let current = queue.sync { counts[page, default: 0] }
/// queue.sync { counts[page] = current + 1 }   // another increment in between is lost
/// ```
/// The safe way does the read-modify-write in one block: `queue.sync { counts[page, default: 0] += 1 }`.
///
/// The hand-over runs `RaceDetector.quietly`: it adds no ordering that TSan could see.
enum PausedInterleaving {
    enum Outcome: Equatable {
        /// `second` ran (whole, or until it blocked) while `first` was paused; both returned.
        case interleaved(secondBlocked: Bool)
        /// `first` returned before its k-th release: no pause point left to try.
        case notReached
        /// A call did not return within the deadline.
        case stuck
    }

    static func run(pausingFirstAfterRelease release: Int, deadlineSeconds: Double,
                    first: @escaping @Sendable () -> Void, second: @escaping @Sendable () -> Void) -> Outcome {
        let gate = Gate()
        Thread.detachNewThread {
            let paused = ReleasePoint.run(pausingAfterRelease: release, pause: { gate.holdFirst(seconds: deadlineSeconds) }) { first() }.paused
            gate.update { $0.firstDone = true; $0.firstPaused = $0.firstPaused || paused }
        }
        guard gate.wait(seconds: deadlineSeconds, until: { $0.firstPaused || $0.firstDone }) else { return .stuck }
        if gate.read({ !$0.firstPaused }) { return .notReached }
        Thread.detachNewThread {
            gate.update { $0.secondThread = KernelThread.current() }
            second()
            gate.update { $0.secondDone = true }
        }
        // Until the second call returns, or its thread sleeps: it waits for the paused one.
        var watch: KernelThread.BlockedWatch?
        let until = MonotonicClock.now() + UInt64(min(deadlineSeconds, 2) * 1e9)
        var secondBlocked = false
        while !gate.read({ $0.secondDone }) && MonotonicClock.now() < until {
            usleep(1_000)
            if watch == nil, let thread = gate.read({ $0.secondThread }) { watch = KernelThread.BlockedWatch(thread) }
            // Asleep twice in a row, or ended (then `secondDone` tells which).
            if watch?.look() == true { secondBlocked = !gate.read { $0.secondDone }; break }
        }
        gate.update { $0.resumed = true }
        guard gate.wait(seconds: deadlineSeconds, until: { $0.firstDone && $0.secondDone }) else { return .stuck }
        return .interleaved(secondBlocked: secondBlocked)
    }

    private struct State {
        var firstPaused = false, firstDone = false, resumed = false, secondDone = false
        var secondThread: KernelThread?
    }

    /// The coordination, unseen by TSan.
    private final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var state = State()

        func update(_ change: (inout State) -> Void) {
            RaceDetector.quietly {
                condition.lock()
                change(&state)
                condition.broadcast()
                condition.unlock()
            }
        }

        func read<Value>(_ value: (State) -> Value) -> Value {
            RaceDetector.quietly { condition.withLock { value(state) } }
        }

        func wait(seconds: Double, until done: (State) -> Bool) -> Bool {
            RaceDetector.quietly {
                let deadline = Date(timeIntervalSinceNow: seconds)
                condition.lock()
                defer { condition.unlock() }
                while !done(state) {
                    if !condition.wait(until: deadline) { return done(state) }
                }
                return true
            }
        }

        /// On the first call's thread, at its release point.
        func holdFirst(seconds: Double) {
            update { $0.firstPaused = true }
            _ = wait(seconds: seconds, until: { $0.resumed })
        }
    }
}
