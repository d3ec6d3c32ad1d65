import WorkbookChecks
import WorkbookCore

/// `workbook check [ID]`: builds, checks one exercise (the next unfinished one by default) and
/// prints the same report as `swift test --filter ExercisesTests.ID`, then where you stand.
enum CheckCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        var state = WorkbookState.load(context.workspace)
        let entry = try context.options.operands.isEmpty ? nextUnfinished(context, state: state) : context.entry()
        do {
            try context.checking.build()
        } catch {
            Console.line(context.terminal.paint(context.t(Localized(
                "\(entry.id): your code does not compile, so it was not checked:", ja: "\(entry.id): コードがコンパイルできないため、チェックしていません:")), .red))
            Console.line(error.diagnostics)
            return 1
        }
        guard let verdict = try context.checking.check([entry], state: &state, checks: context.checks).first else { return 1 }
        state.save(context.workspace)
        Console.line(verdict.report)
        Console.line(StatusCommand.block(context, verdicts: context.cachedVerdicts(state)))
        return verdict.status == .failing ? 1 : 0
    }

    /// The first exercise not known to be done: failing ones first, then in the catalogue's order.
    static func nextUnfinished(_ context: CommandContext, state: WorkbookState) throws(UsageError) -> ExerciseCatalog.Entry {
        if let next = context.summary(context.cachedVerdicts(state)).next(in: context.workspace.catalog, includingUnchecked: true) { return next }
        throw UsageError(message: Localized("every exercise is done — name one to check it again", ja: "すべての演習が完了しています。もう一度チェックするなら演習を指定してください"))
    }
}
