import WorkbookChecks
import WorkbookCore

/// `swift run workbook`: every exercise with its status, and what to do next.
enum StatusCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        var state = WorkbookState.load(context.workspace)
        let (verdicts, buildFailure) = context.statuses(state: &state)
        state.save(context.workspace)
        Console.line(block(context, verdicts: verdicts))
        if let buildFailure {
            Console.line(buildFailed(context, buildFailure))
            return 1
        }
        return 0
    }

    /// The catalogue in order with statuses, then the next exercise and the commands for it.
    static func block(_ context: CommandContext, verdicts: [String: Verdict]) -> String {
        let summary = context.summary(verdicts)
        var text = summary.render(catalog: context.workspace.catalog, terminal: context.terminal, language: context.language)
        if let next = summary.next(in: context.workspace.catalog) {
            text += "\n" + context.t(Localized(
                "Or: swift run workbook check \(next.id) · swift run workbook hint \(next.id)",
                ja: "または: swift run workbook check \(next.id) · swift run workbook hint \(next.id)"))
        }
        return text
    }

    static func buildFailed(_ context: CommandContext, _ diagnostics: String) -> String {
        context.terminal.paint(context.t(Localized(
            "Your code does not compile, so nothing was checked just now (the statuses above are from each exercise's last check):",
            ja: "コードがコンパイルできないため、今回は何もチェックしていません（上の状態は各演習の前回のチェックのものです）:")), .red)
            + "\n" + diagnostics
    }
}
