import WorkbookExplorer

/// "Play the scheduler": async code that runs under the explorer while the learner chooses,
/// at every scheduling point, which ready task goes next.
public struct Game: Sendable {
    public let slug: String
    public let title: Localized
    public let narration: Localized
    /// The code to play; returns its outcome, e.g. `counter=1`.
    public let body: Explorer.Body
    /// Whether an outcome is what the rules allow.
    public let classify: @Sendable (String) -> OutcomeTally.Verdict
    /// Why a forbidden outcome happens, shown at the end.
    public let explanation: Localized

    public init(slug: String, title: Localized, narration: Localized, explanation: Localized,
                classify: @escaping @Sendable (String) -> OutcomeTally.Verdict, body: @escaping Explorer.Body) {
        self.slug = slug
        self.title = title
        self.narration = narration
        self.explanation = explanation
        self.classify = classify
        self.body = body
    }
}

extension ScheduleReport {
    /// The outcome as one line, in English: what a tally counts (`counter=1`, `deadlock: …`).
    public var outcomeText: String { outcome.description }
}
