import WorkbookExplorer

/// The explorer's structured values in the learner's language: who ran a step, how a schedule
/// was found, how it ended.
extension Entity {
    /// English is the entity's own `description`; Japanese is said here.
    public var localized: Localized {
        let ja: String = switch self {
        case let .task(number): "タスク \(number)"
        case let .named(name): BilingualLabel.japanese(name)
        case .actor: "アクター"
        case let .timer(owner): owner.map { "タイマー（\($0.localized.ja)）" } ?? "タイマー"
        case let .yieldEnds(owner): owner.map { "Task.yield（\($0.localized.ja)）" } ?? "Task.yield"
        // Short, as a lane's name must be (the English says "on MainActor").
        case let .onMainActor(entity): "\(entity.localized.ja)（MainActor）"
        }
        return Localized(description, ja: ja)
    }
}

extension ScheduleStep {
    /// The checkpoints passed in the step, in `language`.
    public func checkpoints(in language: Language) -> [String] {
        checkpoints.map { language == .ja ? BilingualLabel.japanese($0) : BilingualLabel.english($0) }
    }
}

/// A step as a line reads it: the task, then ` → ` and each checkpoint it passed; a checkpoint
/// that starts with the task's own name says it once (`caller → starts …`, not
/// `caller → caller: starts …`).
public func stepText(who task: String, passed checkpoints: [String]) -> String {
    let labels = checkpoints.map { text -> String in
        guard let colon = text.range(of: ": ") ?? text.range(of: "："),
              !text[..<colon.lowerBound].isEmpty, task.hasPrefix(text[..<colon.lowerBound]) else { return text }
        return String(text[colon.upperBound...])
    }
    return ([task] + labels).joined(separator: " → ")
}

extension Localized {
    /// A label joined with `BilingualLabel.join`, split back into its two languages.
    public init(bilingual label: String) {
        self.init(BilingualLabel.english(label), ja: BilingualLabel.japanese(label))
    }
}

/// Names the calling task in both languages (`nameTask` with a `Localized`).
public func nameTask(_ name: Localized) {
    WorkbookExplorer.nameTask(BilingualLabel.join(name.en, name.ja))
}

/// A checkpoint in both languages (`checkpoint` with a `Localized`).
public func checkpoint(_ label: Localized) {
    WorkbookExplorer.checkpoint(BilingualLabel.join(label.en, label.ja))
}

extension Search {
    /// English is the search's own `description`; Japanese is said here.
    public var localized: Localized {
        let ja: String = switch self {
        case .exhaustive: "網羅探索"
        case let .random(seed): "ランダムなスケジュール（シード \(seed)）"
        case let .pct(seed, depth): "PCT 深さ \(depth)（シード \(seed)）"
        case .replay: "再現"
        case .played: "あなたの選択"
        case let .thenFair(search): "\(search.localized.ja)、その後は公平に"
        }
        return Localized(description, ja: ja)
    }
}

extension ScheduleReport {
    /// The schedule as trace events for the timeline: one lane per task, one mark per step
    /// labelled with the checkpoints it passed; time is the step number.
    /// A task's steps that pass no checkpoint after its first in a row (hops inside the runtime)
    /// are left out, so the marks are the task starting and what it passed; so are the runtime's
    /// jobs that end a `Task.yield()`.
    public func traceEvents(_ language: Language) -> [Trace.Event] {
        let runs = Localized("(runs)", ja: "（実行）").text(language)
        return runsOfSteps.flatMap { run in
            run.prefix(1) + run.dropFirst().filter { !$0.checkpoints.isEmpty }
        }.filter { if case .yieldEnds = $0.who { false } else { true } }.enumerated().map { index, step in
            let label = step.checkpoints.isEmpty ? runs : step.checkpoints(in: language).joined(separator: Self.labelSeparator.text(language))
            return Trace.Event(sequence: index, time: UInt64(step.number), lane: step.who.localized.text(language), label: label, kind: .point)
        }
    }

    /// What joins the labels of the checkpoints one step passed: `a; b`, `あ／い` (a Japanese
    /// label may hold a 、 of its own).
    public static let labelSeparator = Localized("; ", ja: "／")

    /// The steps in runs a learner reads as one: consecutive steps of one task, the default
    /// scheduler's choice after the first, none but the last passing a checkpoint. A task takes
    /// several steps to start or to wake (each hop through the runtime is a job).
    public var runsOfSteps: [ArraySlice<ScheduleStep>] {
        let steps = self.steps
        var runs: [ArraySlice<ScheduleStep>] = []
        var start = steps.startIndex
        for index in steps.indices.dropFirst() {
            let previous = steps[index - 1], step = steps[index]
            if step.who != previous.who || step.isDeviation || !previous.checkpoints.isEmpty {
                runs.append(steps[start..<index])
                start = index
            }
        }
        if start < steps.endIndex { runs.append(steps[start...]) }
        return runs
    }

    /// What ran outside the explorer's control (`uncontrolled`), in `language`. The explorer
    /// says it in English, or in both languages (`BilingualLabel`); the phrases it says in
    /// English only are said in Japanese here (one not known here stays as it is).
    public func uncontrolled(in language: Language) -> [String] {
        uncontrolled.map { said in
            if said.contains(BilingualLabel.separator) { return Localized(bilingual: said).text(language) }
            return (Self.uncontrolledInJapanese[said].map { Localized(said, ja: $0) } ?? .verbatim(said)).text(language)
        }
    }

    static let uncontrolledInJapanese = [
        "a job was enqueued from another thread (a callback on a Dispatch queue, the main actor, or a thread of your own)":
            "別のスレッドからジョブが投入された（`DispatchQueue` のコールバック、メインアクター、自分で作ったスレッド）",
    ]

    /// For a deadlock: each task left waiting, and the last checkpoint it passed.
    public var whoWaited: Localized {
        let who = waiting.map { entry in
            entry.after.map { Localized("\(entry.who.localized.en) (after \"\(BilingualLabel.english($0))\")", ja: "\(entry.who.localized.ja)（「\(BilingualLabel.japanese($0))」の後）") }
                ?? Localized("\(entry.who.localized.en) (the body)", ja: "\(entry.who.localized.ja)（本体）")
        }
        return Localized(who.map(\.en).joined(separator: ", "), ja: who.map(\.ja).joined(separator: "、"))
    }

    /// `counter=1`, or how it failed, in the learner's language.
    public func outcomeText(_ language: Language) -> String {
        switch outcome {
        case let .completed(text): return text
        case let .failed(message): return Localized("failed: \(message)", ja: "失敗: \(message)").text(language)
        case .deadlock:
            return Localized("deadlock: ", ja: "デッドロック: ").text(language) + whoWaited.text(language)
        case let .livelock(steps):
            return Localized("livelock after \(steps) steps", ja: "\(steps) ステップでライブロック").text(language)
        case let .stopped(step):
            return Localized("stopped before step \(step)", ja: "ステップ \(step) の手前で停止").text(language)
        case let .blocked(step):
            return Localized("blocked: step \(step) never returned", ja: "ブロック: ステップ \(step) が戻らない").text(language)
        }
    }
}

extension ReplayToken.ParseError {
    /// Why `text` cannot be replayed, in both languages (the chapter programs' `replay` and
    /// `exercise-runner --replay`).
    public func explained(_ text: String) -> Localized {
        switch self {
        case .malformed:
            let example = ReplayToken(choices: [0, 0, 0, 1, 0, 0]).description
            return Localized("'\(text)' is not a replay token (they look like \(example))",
                             ja: "'\(text)' はリプレイトークンではありません（\(example) のような形です）")
        case let .otherConfiguration(found):
            let here = ReplayToken.Configuration.current.name
            return Localized("'\(text)' was found in a \(found.name) build and this is a \(here) build: the same body takes other steps there, so it would replay a different schedule. Run the \(found.name) build to replay it.",
                             ja: "'\(text)' は \(found.name) ビルドで見つかったトークンですが、これは \(here) ビルドです。ビルドが違うと同じ本体でもステップが変わり、別のスケジュールを再現してしまいます。\(found.name) ビルドで再現してください。")
        }
    }
}
