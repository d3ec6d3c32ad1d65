import WorkbookChecks
import WorkbookCore

/// `workbook check [ID]`: builds, checks one exercise (the next unfinished one by default) and
/// prints the same report as `swift test --filter ExercisesTests.ID`, then where you stand.
enum CheckCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        var state = WorkbookState.load(context.workspace)
        let entry = try context.options.operands.isEmpty ? nextUnfinished(context, state: state) : context.entry()
        guard let verdict = try check([entry], context, state: &state).first else { return 1 }
        Console.line(StatusCommand.block(context, verdicts: context.cachedVerdicts(state)))
        return verdict.status == .failing ? 1 : 0
    }

    /// Builds, then checks `entries` and prints each report — or the compiler's messages, and
    /// no verdicts, when the learner's code does not compile. The verdicts are kept in `state`.
    static func check(_ entries: [ExerciseCatalog.Entry], _ context: CommandContext, state: inout WorkbookState) throws(UsageError) -> [Verdict] {
        let built: Checking.Built
        do {
            built = try context.checking.buildRecordingFiles()
        } catch {
            let names = entries.map(\.id).joined(separator: ", ")
            Console.line(context.terminal.paint(context.t(Localized(
                "The exercises do not compile (all of them are built together), so \(names) was not checked:",
                ja: "演習のコードがコンパイルできないため（演習はまとめてビルドします）、\(names) をチェックしていません:")), .red))
            Console.line(error.diagnostics)
            return []
        }
        let verdicts = try context.checking.check(entries, built: built, state: &state, checks: context.checks)
        state.save(context.workspace)
        for verdict in verdicts { Console.line(verdict.report) }
        return verdicts
    }

    /// The first exercise not known to be done: failing ones first, then in the catalogue's order.
    static func nextUnfinished(_ context: CommandContext, state: WorkbookState) throws(UsageError) -> ExerciseCatalog.Entry {
        if let next = context.summary(context.cachedVerdicts(state)).next(in: context.workspace.catalog, includingUnchecked: true) { return next }
        throw UsageError(message: Localized("every exercise is done — name one to check it again", ja: "すべての演習が完了しています。もう一度チェックするなら演習を指定してください"))
    }
}
