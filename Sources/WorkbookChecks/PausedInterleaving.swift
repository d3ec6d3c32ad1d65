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
/// The hand-over is a `QuietState`: it adds no ordering that TSan could see.
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
        let gate = QuietState(State())
        Thread.detachNewThread {
            let hold = {
                gate.update { $0.firstPaused = true }
                gate.wait(seconds: deadlineSeconds, until: { $0.resumed })
            }
            let paused = ReleasePoint.run(pausingAfterRelease: release, pause: hold) { first() }.paused
            gate.update { $0.firstDone = true; $0.firstPaused = $0.firstPaused || paused }
        }
        guard gate.wait(seconds: deadlineSeconds, until: { $0.firstPaused || $0.firstDone }) else { return .stuck }
        if !gate.current.firstPaused { return .notReached }
        Thread.detachNewThread {
            gate.update { $0.secondThread = KernelThread.current() }
            second()
            gate.update { $0.secondDone = true }
        }
        // Until the second call returns, or its thread sleeps: it waits for the paused one.
        var watch: KernelThread.BlockedWatch?
        let until = MonotonicClock.now() + UInt64(min(deadlineSeconds, 2) * 1e9)
        var secondBlocked = false
        while !gate.current.secondDone && MonotonicClock.now() < until {
            usleep(1_000)
            if watch == nil, let thread = gate.current.secondThread { watch = KernelThread.BlockedWatch(thread) }
            // Asleep twice in a row, or ended (then `secondDone` tells which).
            if watch?.look() == true { secondBlocked = !gate.current.secondDone; break }
        }
        gate.update { $0.resumed = true }
        guard gate.wait(seconds: deadlineSeconds, until: { $0.firstDone && $0.secondDone }) else { return .stuck }
        return .interleaved(secondBlocked: secondBlocked)
    }

    private struct State {
        var firstPaused = false, firstDone = false, resumed = false, secondDone = false
        var secondThread: KernelThread?
    }
}
