import ExerciseKit
import Foundation
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Helpers the chapter's scenarios share: how many tasks are inside a region at once, and how a
// thumbnail pipeline's answer reads. (`OSThread`, which OS thread is running, is WorkbookCore's.)

/// Counts the tasks inside a region (between `enter` and `leave`), the most there were at
/// once, and the threads they entered and left on.
///
/// The racy way would be a plain `var inFlight` that every child task bumps: the compiler
/// rejects that in Swift 6. Here every count is under one lock.
final class InFlight: Sendable {
    private let state = Locked((now: 0, peak: 0, threads: Set<UInt>()))

    func enter() {
        state.withLock {
            $0.now += 1
            $0.peak = max($0.peak, $0.now)
            $0.threads.insert(ThreadIdentity.current)
        }
    }

    func leave() {
        state.withLock {
            $0.now -= 1
            $0.threads.insert(ThreadIdentity.current)
        }
    }

    /// The most tasks that were inside at the same time.
    var peak: Int { state.current.peak }
    /// How many different threads tasks entered or left on.
    var threadCount: Int { state.current.threads.count }
}

/// Whole milliseconds from `start` to `end` (`MonotonicClock` readings), for the learner: `12`.
func milliseconds(since start: UInt64, to end: UInt64 = MonotonicClock.now()) -> String {
    String(format: "%.0f", Double(end &- start) / 1_000_000)
}

/// The name of an error as the chapter's code spells it: `.badID`, `.offline`, `CancellationError`.
func errorName(_ error: any Error) -> String {
    switch error {
    case let error as ThumbnailError: ".\(error)"
    case let error as ServerError: ".\(error)"
    case is CancellationError: "CancellationError"
    default: String(describing: error)
    }
}

