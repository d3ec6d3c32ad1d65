import WorkbookExplorer

/// One body of the regression corpus: realistic async code in a shape chapters 04–08 teach.
///
/// Model of time for the verdicts: a clock's time moves on only when nothing is ready to run;
/// timers due at the same instant may fire in any order, and a due timer may race ready work.
/// Fairness is assumed: a task that stays ready eventually runs.
struct CorpusCase: Sendable {
    enum Expectation: Sendable {
        /// The body is buggy: some schedule must make it throw InvariantViolation (or deadlock / trap, as described).
        /// The text starts with "deadlock:", "livelock:" or "trap:" when that is how the bug shows;
        /// otherwise the body throws InvariantViolation.
        case fails(String)   // what breaks, in words, e.g. "two downloads of the same URL"
        /// The body is correct: every schedule completes without throwing.
        case passes
    }
    let name: String         // unique, "shape.variant", e.g. "imageCache.dedupMissing"
    let shape: String        // e.g. "deduplicating image cache"
    let items: [Int]         // which of the items 1–11 it exercises ([] if none, just a shape)
    let expectation: Expectation
    /// The buggy body is expected to kill the process (e.g. a continuation resumed twice): a harness must run it in a child process.
    let traps: Bool
    let body: Explorer.Body  // @Sendable () async throws -> String; returns an outcome description
}

extension CorpusCase.Expectation {
    /// How a buggy body shows its bug.
    enum FailureKind: String, Sendable { case invariant, deadlock, livelock, trap }

    var failureKind: FailureKind? {
        guard case let .fails(text) = self else { return nil }
        for kind in [FailureKind.deadlock, .livelock, .trap] where text.hasPrefix(kind.rawValue + ":") { return kind }
        return .invariant
    }
}
