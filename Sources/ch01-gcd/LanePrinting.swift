import WorkbookCore

extension ScenarioContext {
    /// "Prints" a line the way the lesson's code would, prefixed with the lane, like `emit`, but
    /// without a point on the trace: for work already drawn as a span, whose end marks the moment
    /// (a point right behind a span would crowd the label of the next one).
    func printLine(_ text: String, lane: String) { show("  \(lane): \(text)") }
}
