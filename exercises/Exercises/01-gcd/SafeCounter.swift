import Dispatch
import ExerciseKit

// Exercise 01-gcd/SafeCounter — read chapters/en/01-gcd.md (ja: chapters/ja/01-gcd.md) first.
//
// Goal: a page-view counter that many threads use at once. Every `increment` must count (no
// lost update), and a thread that increments a page and then reads it must see its own
// increment.
//
// Protect `counts` with one serial `DispatchQueue`: every read and every write of `counts`
// happens inside a block on that queue.
//
// Check your answer:   swift test --filter ExercisesTests.SafeCounter
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

/// `@unchecked Sendable`: the compiler cannot see that a queue protects `counts`, so you promise
/// it. The check runs many threads against your counter to see that the promise holds.
public final class SafeCounter: SafeCounterProtocol, @unchecked Sendable {
    // TODO: add the serial queue that owns `counts`.
    private var counts: [String: Int] = [:]

    public init() {}

    public func increment(_ page: String) {
        // TODO: add one to `counts[page]` inside a block on your queue.
        todo()
    }

    public func count(of page: String) -> Int {
        // TODO: read `counts[page]` (0 if missing) on your queue and return it.
        todo()
    }

    public func snapshot() -> [String: Int] {
        // TODO: return a copy of `counts`, read on your queue.
        todo()
    }
}
