import WorkbookCore

/// The block that closes a run: every exercise checked, in the catalogue's order, with its
/// status, then the one to do next — so a learner never scrolls through the workbook's own test
/// output to find theirs.
public struct VerdictSummary: Sendable {
    public var verdicts: [String: Verdict.Status] = [:]
    public var failedProperties: [String: String] = [:]
    /// Done, but some of the check's platform probes could not run here.
    public var notRun: [String: [String]] = [:]

    public init() {}

    public mutating func record(_ verdict: Verdict) {
        verdicts[verdict.exercise] = verdict.status
        failedProperties[verdict.exercise] = verdict.failedProperty
        notRun[verdict.exercise] = verdict.status == .done && !verdict.notRun.isEmpty ? verdict.notRun : nil
    }

    public var isEmpty: Bool { verdicts.isEmpty }

    /// The exercise to do next: the first failing one, else the first not done — among those
    /// checked, or among all when `unchecked` ones count as not done.
    public func next(in catalog: ExerciseCatalog, includingUnchecked unchecked: Bool = false) -> ExerciseCatalog.Entry? {
        let candidates = unchecked ? catalog.exercises : catalog.exercises.filter { verdicts[$0.id] != nil }
        return candidates.first { verdicts[$0.id] == .failing } ?? candidates.first { verdicts[$0.id] != .done }
    }

    /// `Exercises: 2 done, 1 failing, 6 not started`.
    public func countLine(language: Language) -> String {
        let all = Array(verdicts.values)
        let done = all.filter { $0 == .done }.count
        let failing = all.filter { $0 == .failing }.count
        let notStarted = all.filter { $0 == .notStarted }.count
        return Localized(
            "Exercises: \(done) done, \(failing) failing, \(notStarted) not started",
            ja: "演習: 完了 \(done)、失敗 \(failing)、未着手 \(notStarted)").text(language)
    }

    public func render(catalog: ExerciseCatalog, terminal: Terminal, language: Language) -> String {
        func t(_ text: Localized) -> String { text.text(language) }
        let rule = String(repeating: terminal.usesUnicode ? "─" : "-", count: min(terminal.width, 72))
        var lines = ["", rule, t(Localized("Your exercises", ja: "あなたの演習"))]
        let checked = catalog.exercises.filter { verdicts[$0.id] != nil }
        let width = checked.map { displayWidth($0.id) }.max() ?? 0
        let chapterWidth = checked.map { displayWidth($0.chapter) }.max() ?? 0
        for entry in checked {
            guard let status = verdicts[entry.id] else { continue }
            let padding = String(repeating: " ", count: width - displayWidth(entry.id))
            let chapterPadding = String(repeating: " ", count: chapterWidth - displayWidth(entry.chapter))
            let (mark, text, style): (String, Localized, Terminal.Style) = switch status {
            case .done: ("✓", Localized("done", ja: "完了"), .green)
            case .failing: ("✗", Localized("failing", ja: "失敗"), .red)
            case .notStarted: ("◻", Localized("not started", ja: "未着手"), .dim)
            }
            var property = status == .failing ? failedProperties[entry.id].map { " (\($0))" } ?? "" : ""
            if status == .done, let gaps = notRun[entry.id] {
                property = t(Localized(" (\(gaps.count) \(gaps.count == 1 ? "check" : "checks") could not run on this platform)",
                                       ja: "（この環境では \(gaps.count) 件の検査を実行できませんでした）"))
            }
            lines.append(terminal.paint("  \(mark) \(entry.chapter)\(chapterPadding)  \(entry.id)\(padding)  \(t(text))\(property)", style))
        }
        let unchecked = catalog.exercises.count - checked.count
        if unchecked > 0 {
            lines.append(terminal.paint(t(Localized("  (\(unchecked) more not checked in this run)", ja: "  （ほか \(unchecked) 件はこの実行では未チェック）")), .dim))
        }
        if let next = next(in: catalog) {
            lines.append(t(Localized("Next: \(next.id) — \(next.file)", ja: "次: \(next.id) — \(next.file)")))
            lines.append(t(Localized("      swift test --filter ExercisesTests.\(next.id)", ja: "      swift test --filter ExercisesTests.\(next.id)")))
        } else if !checked.isEmpty {
            lines.append(t(Localized("Everything checked here is done.", ja: "この実行でチェックした演習はすべて完了です。")))
        }
        lines.append(countLine(language: language))
        return lines.joined(separator: "\n")
    }
}
