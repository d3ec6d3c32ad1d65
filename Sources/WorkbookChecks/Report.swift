import WorkbookCore
import WorkbookExplorer

/// How a verdict looks to the learner: the property broken, the rule, what was seen, the tally
/// and the timeline of the interleaving that broke it.
public enum Report {
    /// `✓ SafeCounter — done (…properties…)`, and on a platform where some probes could not
    /// run, a second line that names them: a pass never hides what was not checked.
    public static func passed(_ exercise: String, properties: [Property], notRun: [PlatformProbe] = [], terminal: Terminal, language: Language) -> String {
        let names = properties.map { $0.name.text(language) }.joined(separator: ", ")
        let head = Localized("✓ \(exercise) — done", ja: "✓ \(exercise) — 完了").text(language)
        var text = terminal.paint(head, .green) + terminal.paint(" (\(names))", .dim)
        if !notRun.isEmpty {
            let gap = Localized("But \(PlatformProbes.sentence(notRun).en). See docs/how-checks-work.md, \"On Apple platforms\".",
                                ja: "ただし、\(PlatformProbes.sentence(notRun).ja)。docs/ja/how-checks-work.md の「Apple プラットフォームでは」を参照してください。")
            text += "\n" + terminal.paint(wrap(gap.text(language), prefix: "  ", width: terminal.width).joined(separator: "\n"), .yellow)
        }
        return text
    }

    /// How to run one failing schedule again after an edit, without the search.
    static func replayInstruction(_ exercise: String, case number: Int, token: ReplayToken) -> Localized {
        let argument = "\(number):\(token)"
        return Localized(
            "This schedule alone, after an edit: `swift run exercise-runner \(exercise) --replay \(argument)`, or `replay \(exercise) \(argument)` in the chapter program.",
            ja: "修正後にこのスケジュールだけを実行するには `swift run exercise-runner \(exercise) --replay \(argument)`、またはチャプタープログラムで `replay \(exercise) \(argument)`。")
    }

    public static func failed(_ exercise: String, _ failure: CheckFailure, terminal: Terminal, language: Language, hint: Localized? = nil) -> String {
        func t(_ text: Localized) -> String { text.text(language) }
        var lines = [terminal.paint(t(Localized("✗ \(exercise) — failing: \(failure.property.name.en)", ja: "✗ \(exercise) — 失敗: \(failure.property.name.ja)")), .red)]
        lines.append(t(Localized("  Rule: ", ja: "  ルール: ")) + t(failure.property.rule))
        lines.append(t(Localized("  Seen: ", ja: "  観測: ")) + t(failure.observed))
        if let tally = failure.tally {
            lines.append("")
            lines.append(t(Localized("  Outcome tally (jcstress style):", ja: "  結果の集計（jcstress 形式）:")))
            lines.append(tally.render(terminal: terminal, language: language))
        }
        if let schedule = failure.schedule {
            lines.append("")
            lines.append(t(Localized(
                "  Schedule found by \(schedule.search.localized.en), \(schedule.deviations) preemption(s) (⟲), one job at a time:",
                ja: "  \(schedule.search.localized.ja)で見つけたスケジュール、プリエンプション \(schedule.deviations) 回（⟲）、一度に 1 ジョブずつ:")))
            for run in schedule.runsOfSteps {
                let first = run.first!, last = run.last!
                let numbers = run.count == 1 ? "\(first.number)" : "\(first.number)–\(last.number)"
                let passed = last.checkpoints.isEmpty ? "" : " → " + last.checkpoints(in: language).joined(separator: " → ")
                let mark = first.isDeviation ? terminal.paint(" ⟲", .yellow) : ""
                lines.append("    \(numbers). \(t(first.who.localized))\(passed)\(mark)")
            }
            if let number = failure.exploredCase {
                let again = replayInstruction(exercise, case: number, token: schedule.token)
                lines.append(t(Localized("  Replay token: \(schedule.token) (case \(number)). \(again.en)",
                                         ja: "  リプレイトークン: \(schedule.token)（ケース \(number)）。\(again.ja)")))
            } else {
                lines.append(t(Localized("  Replay token: ", ja: "  リプレイトークン: ")) + schedule.token.description)
            }
            if !schedule.uncontrolled.isEmpty {
                lines.append(t(Localized("  Uncontrolled: ", ja: "  エクスプローラが制御しなかったもの: ")) + schedule.uncontrolled.joined(separator: "; "))
            }
        }
        let events = failure.schedule.map { $0.traceEvents(language) } ?? failure.events
        if !events.isEmpty {
            lines.append("")
            lines.append(failure.schedule == nil
                ? t(Localized("  Trace (lanes are threads; bars are calls in progress):", ja: "  トレース（レーンはスレッド、バーは実行中の呼び出し）:"))
                : t(Localized("  Timeline (lanes are tasks; time is the step number):", ja: "  タイムライン（レーンはタスク、時間はステップ番号）:")))
            var timeline = Timeline(terminal: terminal, maxListedEvents: 30)
            if failure.schedule != nil { timeline.axis = .steps }
            timeline.terminal.width = max(60, terminal.width - 2)
            lines.append(timeline.render(events, language: language).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        if let hint {
            lines.append("")
            lines.append(terminal.paint(t(Localized("  Hint: ", ja: "  ヒント: ")) + t(hint), .yellow))
        }
        return lines.joined(separator: "\n")
    }
}
