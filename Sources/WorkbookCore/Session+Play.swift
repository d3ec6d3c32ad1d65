import WorkbookExplorer

/// `play N` and `replay N TOKEN`: the learner is the scheduler.
extension Session {
    enum PlayEnding: Sendable { case finished, automatic, undo, quit }

    func listGames() {
        guard !chapter.games.isEmpty else {
            write(t(Localized("This chapter has no games yet.", ja: "この章にはまだゲームがありません。")))
            return
        }
        write(terminal.paint(t(Localized("Games — you are the scheduler (play N):", ja: "ゲーム — あなたがスケジューラです（play N）:")), .bold))
        for (index, game) in chapter.games.enumerated() {
            write(padded("\(index + 1).", to: 4) + t(game.title))
        }
    }

    func game(_ number: Int) -> Game? {
        guard chapter.games.indices.contains(number - 1) else {
            write(t(Localized("no game \(number) (see 'play')", ja: "ゲーム \(number) はありません（'play' を参照）")))
            return nil
        }
        return chapter.games[number - 1]
    }

    func play(_ number: Int) {
        guard let game = game(number) else { return }
        write(terminal.paint("▶ \(number). \(t(game.title))", .bold))
        writeWrapped(t(game.narration))
        writeWrapped(t(Localized(
            "At each step, pick which ready task runs next: its number, 'auto' to let the scheduler finish, 'undo', or 'quit'.",
            ja: "各ステップで次に実行する準備済みのタスクを選びます。番号、'auto'（残りを自動で実行）、'undo'（1 手戻す）、'quit'（やめる）。")))
        let decisions = LockedList()
        while true {
            let ending = LockedValue(PlayEnding.finished)
            let shownSteps = LockedValue(0)
            let replaying = decisions.count
            let asked = LockedValue(0)
            let report = Explorer.play(choose: { [self] point in
                let index = asked.update { $0 += 1; return $0 - 1 }
                if index < replaying { return decisions.at(index) }
                showSteps(point.history, from: shownSteps)
                showChoices(point)
                while true {
                    if interactive { Console.prompt(t(Localized("pick> ", ja: "選択> "))) }
                    guard let typed = nextLine() else {
                        if interactive { write("") }  // end the prompt's line
                        ending.set(.quit)
                        return nil
                    }
                    let input = InputLine(typed)
                    let line = input.text.trimmingCharacters(in: .whitespaces).lowercased()
                    if !interactive { write("> \(line)") }
                    if input.isBlank && input.hadEscapeSequence {
                        writeWrapped(t(arrowKeysMessage))
                        continue
                    }
                    switch line {
                    case "auto", "a": ending.set(.automatic); return nil
                    case "undo", "u": ending.set(.undo); return nil
                    case "quit", "q", "exit": ending.set(.quit); return nil
                    default:
                        if let pick = Int(line), (1...point.ready.count).contains(pick) {
                            decisions.append(pick - 1)
                            return pick - 1
                        }
                        write(t(Localized("pick 1–\(point.ready.count), auto, undo or quit", ja: "1–\(point.ready.count)、auto、undo、quit のいずれかを入力してください")))
                    }
                }
            }, game.body)
            switch ending.get() {
            case .undo:
                if decisions.count > 0 { decisions.removeLast() }
                write(t(Localized("↶ undone — back one choice", ja: "↶ 1 手戻しました")))
                continue
            case .quit:
                write(t(Localized("Left the game.", ja: "ゲームを終了しました。")))
                return
            case .finished, .automatic:
                showSteps(report.steps, from: shownSteps)
                showEnd(of: report, game: game, number: number)
                return
            }
        }
    }

    func replay(_ number: Int, token text: String) {
        guard let game = game(number) else { return }
        let token: ReplayToken
        switch ReplayToken.parse(text) {
        case let .success(parsed):
            token = parsed
        case let .failure(error):
            write(t(error.explained(text)))
            return
        }
        write(terminal.paint("▶ \(number). \(t(game.title)) — replay \(token)", .bold))
        let report = Explorer.replay(token, game.body)
        showSteps(report.steps, from: LockedValue(0))
        showEnd(of: report, game: game, number: number)
    }

    private func showSteps(_ steps: [ScheduleStep], from shown: LockedValue<Int>) {
        let start = shown.get()
        for step in steps.dropFirst(start) {
            write(terminal.paint(t(Localized("  step \(step.number): ", ja: "  ステップ \(step.number): ")), .dim)
                  + stepText(who: t(step.who.localized), passed: step.checkpoints(in: language)))
        }
        shown.set(max(start, steps.count))
    }

    private func showChoices(_ point: Explorer.ChoicePoint) {
        write(t(Localized("step \(point.step) — ready to run:", ja: "ステップ \(point.step) — 準備済み:")))
        for (index, entry) in point.ready.enumerated() {
            let next: String
            if entry.who == .actor {
                next = t(Localized("runs the calls waiting on an actor", ja: "アクターで待っている呼び出しを実行"))
            } else if case let .yieldEnds(owner) = entry.who {
                next = owner.map { t(Localized("ends \($0.localized.en)'s Task.yield(): \($0.localized.en) is ready again", ja: "\($0.localized.ja) の Task.yield() を終える（\($0.localized.ja) が再び準備済みになる）")) }
                    ?? t(Localized("ends a Task.yield()", ja: "Task.yield() を終える"))
            } else if case let .timer(owner) = entry.who {
                next = owner.map { t(Localized("fires: the sleep of \($0.localized.en) ends", ja: "発火: \($0.localized.ja) のスリープが終わる")) }
                    ?? t(Localized("fires: a sleep ends", ja: "発火: スリープが終わる"))
            } else if !entry.hasRun {
                next = t(Localized("has not started yet", ja: "まだ開始していない"))
            } else if let last = entry.lastCheckpoint {
                next = t(Localized("continues after \"\(BilingualLabel.english(last))\"", ja: "\"\(BilingualLabel.japanese(last))\" の後から続行"))
            } else {
                next = t(Localized("continues (no checkpoint passed yet)", ja: "続行（まだチェックポイントを通過していない）"))
            }
            write("  \(index + 1)) " + padded(t(entry.who.localized), to: 10) + " " + next)
        }
    }

    private func showEnd(of report: ScheduleReport, game: Game, number: Int) {
        let verdict: OutcomeTally.Verdict = report.outcome.isFailure ? .forbidden : game.classify(report.outcomeText)
        write("")
        let line = t(Localized("Outcome: ", ja: "結果: ")) + report.outcomeText(language) + " — " + verdict.label.text(language)
        write(terminal.paint(line, verdict == .forbidden ? .red : verdict == .interesting ? .yellow : .green))
        if verdict == .forbidden { writeWrapped(t(game.explanation)) }
        if !report.uncontrolled.isEmpty {
            writeWrapped(t(Localized("Uncontrolled: ", ja: "エクスプローラが制御しなかったもの: ")) + report.uncontrolled(in: language).joined(separator: t(Localized("; ", ja: "、"))))
        }
        write(t(Localized("Replay this schedule: ", ja: "このスケジュールを再現: ")) + "replay \(number) \(report.token)")
        if showsTimeline {
            var timeline = Timeline(terminal: terminal)
            timeline.axis = .steps
            write("")
            write(timeline.render(report.traceEvents(language), language: language))
        }
    }
}

/// Small locked boxes for the chooser closure, which runs on the explorer's driver thread.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let box: Locked<Value>
    init(_ value: Value) { box = Locked(value) }
    func get() -> Value { box.current }
    func set(_ value: Value) { box.withLock { $0 = value } }
    func update<R>(_ body: (inout Value) -> R) -> R { box.withLock(body) }
}

final class LockedList: @unchecked Sendable {
    private let box = Locked<[Int]>([])
    var count: Int { box.withLock { $0.count } }
    func at(_ index: Int) -> Int { box.withLock { $0[index] } }
    func append(_ value: Int) { box.withLock { $0.append(value) } }
    func removeLast() { box.withLock { _ = $0.removeLast() } }
}
