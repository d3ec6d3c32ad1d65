import WorkbookExplorer

/// One body of the chapters 06–08 corpus: async code in a shape those chapters teach, buggy or
/// fixed, run under the explorer inside `variant-runner` — compiled with ThreadSanitizer, as a
/// learner's answer is — so the corpus proves the same path the checks use.
///
/// A body builds all its state inside itself, returns a description of what happened, and
/// throws `InvariantViolation` when the property it stands for breaks.
public struct CorpusBody: Sendable {
    public enum Expectation: Sendable {
        /// Some schedule breaks it. The text says how, in words; it starts with "deadlock:" when
        /// the bug shows as tasks left waiting for ever, or "data race:" when only
        /// ThreadSanitizer can see it (two tasks touch unprotected memory).
        case fails(String)
        /// Every schedule completes without throwing, with no data race.
        case passes
    }

    /// Unique, `shape.variant`: `tokenRefresh.storedTaskPlainSleep`.
    public let name: String
    /// `token refresh with a stored task`.
    public let shape: String
    public let expectation: Expectation
    public let body: Explorer.Body

    public init(_ name: String, shape: String, _ expectation: Expectation, body: @escaping Explorer.Body) {
        self.name = name
        self.shape = shape
        self.expectation = expectation
        self.body = body
    }
}
