import WorkbookChecks
import WorkbookCore

/// `workbook hint ID`: the next layer of hints each time it is asked. After a failing check,
/// the layers start with the ones for the property that failed first.
enum HintCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        let entry = try context.entry()
        show(entry, context, again: "swift run workbook hint \(entry.id)")
        return 0
    }

    /// Prints the next hint for `entry`; `again` is how to ask for the one after it.
    static func show(_ entry: ExerciseCatalog.Entry, _ context: CommandContext, again: String) {
        var state = WorkbookState.load(context.workspace)
        let failed = state.verdict(for: entry, in: context.workspace, checks: context.checks)
            .flatMap { $0.status == .failing ? $0.property : nil }
        let ordered = entry.hints(after: failed)
        let unseen = firstUnseenLayer(ordered, failed: failed)
        var shown = state.hints[entry.id] ?? .init(count: unseen, property: failed)
        if shown.property != failed { shown = .init(count: unseen, property: failed) }  // a new failure: its hints first
        guard !ordered.isEmpty else {
            Console.line(context.t(Localized("\(entry.id) has no hints.", ja: "\(entry.id) にはヒントがありません。")))
            return
        }
        let index = min(shown.count, ordered.count - 1)
        let fromReport = index == 1 && unseen == 1
            ? Localized("; hint 1 is in the check's report", ja: "。ヒント 1 はチェックのレポートにあります") : Localized("", ja: "")
        let header = failed.map { Localized("Hint \(index + 1) of \(ordered.count) for \(entry.id) (it failed: \($0)\(fromReport.en)):",
                                            ja: "\(entry.id) のヒント \(index + 1)/\(ordered.count)（失敗した性質: \($0)\(fromReport.ja)）:") }
            ?? Localized("Hint \(index + 1) of \(ordered.count) for \(entry.id):", ja: "\(entry.id) のヒント \(index + 1)/\(ordered.count):")
        Console.line(context.terminal.paint(context.t(header), .bold))
        Console.line(wrap(context.t(ordered[index].localized), prefix: "  ", width: context.terminal.width).joined(separator: "\n"))
        if index == ordered.count - 1 {
            Console.line(context.t(Localized("That was the last one; all of them are in exercises/exercises.json.", ja: "これが最後のヒントです。すべてのヒントは exercises/exercises.json にあります。")))
        } else {
            Console.line(context.terminal.paint(context.t(Localized("Again for the next: \(again)", ja: "次のヒント: \(again)")), .dim))
        }
        shown.count = index + 1
        state.hints[entry.id] = shown
        state.save(context.workspace)
    }

    /// Where the layers start for a new failure: after the first one when the check's report
    /// already showed it (the report ends with the first hint for the property that failed).
    static func firstUnseenLayer(_ ordered: [ExerciseCatalog.Hint], failed: String?) -> Int {
        guard let failed, ordered.count > 1, ordered[0].properties.contains(failed) else { return 0 }
        return 1
    }
}
