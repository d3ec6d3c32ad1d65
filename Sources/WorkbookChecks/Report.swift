import WorkbookCore
import WorkbookExplorer

/// How a verdict looks to the learner: the property broken, the rule, what was seen, the tally
/// and the timeline of the interleaving that broke it.
public enum Report {
    /// `✓ SafeCounter — done (…properties…)`, and on a platform where some probes could not
    /// run, a second line that names them: a pass never hides what was not checked.
    public static func passed(_ exercise: String, properties: [Property], notRun: [PlatformProbe] = [], terminal: Terminal, language: Language) -> String {
        let names = properties.map { $0.name.text(language) }.joined(separator: Localized(", ", ja: "、").text(language))
        let head = Localized("✓ \(exercise) — done", ja: "✓ \(exercise) — 完了").text(language)
        var text = terminal.paint(head, .green)
        if displayWidth(head + " (\(names))") <= terminal.width {
            text += terminal.paint(" (\(names))", .dim)
        } else {
            text += "\n" + terminal.paint(wrap("(\(names))", prefix: "  ", width: terminal.width).joined(separator: "\n"), .dim)
        }
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
            ja: "修正後にこのスケジュールだけを実行するには `swift run exercise-runner \(exercise) --replay \(argument)`、または章のプログラムで `replay \(exercise) \(argument)`。")
    }

    /// A failing verdict's report, no wider than `terminal.width` where words allow: paragraphs
    /// are wrapped with a hanging indent (`Rule:`, `Seen:` … and the lines under them), the
    /// tally fits its outcome column to the width, the timeline is drawn for it. Only a command
    /// or a replay token longer than a line is left whole, on a line of its own, to be copied.
    public static func failed(_ exercise: String, _ failure: CheckFailure, terminal: Terminal, language: Language, hint: Localized? = nil) -> String {
        func t(_ text: Localized) -> String { text.text(language) }
        /// `text` after `label`, wrapped under itself.
        func paragraph(_ label: Localized, _ text: String, keepsLongTokens: Bool = false) -> [String] {
            wrapParagraphs(text, prefix: t(label), width: terminal.width, keepsLongTokens: keepsLongTokens)
        }
        var lines = [terminal.paint(wrap(t(Localized("✗ \(exercise) — failing: \(failure.property.name.en)", ja: "✗ \(exercise) — 失敗: \(failure.property.name.ja)")),
                                         width: terminal.width).joined(separator: "\n"), .red)]
        lines += paragraph(Localized("  Rule: ", ja: "  ルール: "), t(failure.property.rule))
        lines += paragraph(Localized("  Seen: ", ja: "  観測: "), t(failure.observed))
        if let tally = failure.tally {
            lines.append("")
            if tally.total == 1, let only = tally.outcomes.first, tally.verdict(of: only.outcome) == .forbidden {
                // One run, the failing one: a table would only repeat what was seen.
                lines += paragraph(.verbatim("  "), t(Localized("Outcome tally: 1 run; its outcome, seen above, is FORBIDDEN.",
                                                               ja: "結果の集計: 実行は 1 回で、その結果（上の観測）の判定は「禁止」です。")))
            } else {
                lines.append(t(Localized("  Outcome tally (jcstress style):", ja: "  結果の集計（jcstress 形式）:")))
                lines.append(tally.render(terminal: terminal, language: language))
            }
        }
        if let schedule = failure.schedule {
            lines.append("")
            lines += paragraph(.verbatim("  "), t(Localized(
                "Schedule found by \(schedule.search.localized.en), \(schedule.deviations) preemption(s) (⟲), one job at a time:",
                ja: "\(schedule.search.localized.ja)で見つけたスケジュール、プリエンプション \(schedule.deviations) 回（⟲）、一度に 1 ジョブずつ:")))
            for run in schedule.runsOfSteps {
                let first = run.first!, last = run.last!
                let numbers = run.count == 1 ? "\(first.number)" : "\(first.number)–\(last.number)"
                let passed = last.checkpoints.isEmpty ? "" : " → " + last.checkpoints(in: language).joined(separator: " → ")
                let step = wrap(t(first.who.localized) + passed, prefix: "    \(numbers). ", width: terminal.width - (first.isDeviation ? 2 : 0))
                let mark = first.isDeviation ? terminal.paint(" ⟲", .yellow) : ""
                lines += step.dropLast() + [step.last! + mark]
            }
            if let number = failure.exploredCase {
                lines += paragraph(Localized("  Replay token (case \(number)): ", ja: "  リプレイトークン（ケース \(number)）: "),
                                   schedule.token.description, keepsLongTokens: true)
                // The two commands in a sentence where they fit a line, else each on a line of
                // its own, whole, to be copied (a long token does not fit any line).
                let argument = "\(number):\(schedule.token)"
                let commands = ["swift run exercise-runner \(exercise) --replay \(argument)", "replay \(exercise) \(argument)"]
                if commands.allSatisfy({ displayWidth("  `\($0)`,") <= terminal.width }) {
                    lines += paragraph(.verbatim("  "), t(replayInstruction(exercise, case: number, token: schedule.token)))
                } else {
                    lines.append(t(Localized("  This schedule alone, after an edit:", ja: "  修正後にこのスケジュールだけを実行するには:")))
                    lines.append("    " + commands[0])
                    lines.append(t(Localized("  or, in the chapter program:", ja: "  または章のプログラムで:")))
                    lines.append("    " + commands[1])
                }
            } else {
                lines += paragraph(Localized("  Replay token: ", ja: "  リプレイトークン: "), schedule.token.description, keepsLongTokens: true)
            }
            if !schedule.uncontrolled.isEmpty {
                lines += paragraph(Localized("  Uncontrolled: ", ja: "  エクスプローラが制御しなかったもの: "),
                                   schedule.uncontrolled(in: language).joined(separator: t(Localized("; ", ja: "、"))))
            }
        }
        let events = failure.schedule.map { $0.traceEvents(language) } ?? failure.events
        if !events.isEmpty {
            lines.append("")
            lines += paragraph(.verbatim("  "), failure.schedule == nil
                ? t(Localized("Trace (lanes are threads; bars are calls in progress):", ja: "トレース（レーンはスレッド、バーは実行中の呼び出し）:"))
                : t(Localized("Timeline (lanes are tasks; time is the step number):", ja: "タイムライン（レーンはタスク、時間はステップ番号）:")))
            var timeline = Timeline(terminal: terminal, maxListedEvents: 30)
            if failure.schedule != nil { timeline.axis = .steps }
            timeline.terminal.width = max(38, terminal.width - 2)  // indented by 2: no wider than the report
            lines.append(timeline.render(events, language: language).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        if let hint {
            lines.append("")
            lines.append(terminal.paint(paragraph(Localized("  Hint: ", ja: "  ヒント: "), t(hint)).joined(separator: "\n"), .yellow))
        }
        return lines.joined(separator: "\n")
    }
}
