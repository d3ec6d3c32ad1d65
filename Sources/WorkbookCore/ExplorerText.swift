import WorkbookExplorer

/// The explorer's structured values in the learner's language: who ran a step, how a schedule
/// was found, how it ended.
extension Entity {
    public var localized: Localized {
        switch self {
        case let .task(number): Localized("task \(number)", ja: "タスク \(number)")
        case let .named(name): .verbatim(name)
        case .actor: Localized("actor", ja: "アクター")
        case let .timer(owner):
            owner.map { Localized("timer (\($0.localized.en))", ja: "タイマー（\($0.localized.ja)）") } ?? Localized("timer", ja: "タイマー")
        case let .onMainActor(entity): Localized("\(entity.localized.en) on MainActor", ja: "\(entity.localized.ja)（MainActor 上）")
        }
    }
}

extension Search {
    public var localized: Localized {
        switch self {
        case .exhaustive: Localized("exhaustive search", ja: "網羅探索")
        case let .random(seed): Localized("random schedules, seed \(seed)", ja: "ランダムなスケジュール（シード \(seed)）")
        case let .pct(seed, depth): Localized("PCT depth \(depth), seed \(seed)", ja: "PCT 深さ \(depth)（シード \(seed)）")
        case .replay: Localized("replay", ja: "再現")
        case .played: Localized("your choices", ja: "あなたの選択")
        case let .thenFair(search): Localized("\(search.localized.en), then fair", ja: "\(search.localized.ja)、その後は公平に")
        }
    }
}

extension ScheduleReport {
    /// The schedule as trace events for the timeline: one lane per task, one mark per step
    /// labelled with the checkpoints it passed; time is the step number.
    public func traceEvents(_ language: Language) -> [Trace.Event] {
        let runs = Localized("(runs)", ja: "（実行）").text(language)
        return steps.enumerated().map { index, step in
            let label = step.checkpoints.isEmpty ? runs : step.checkpoints.joined(separator: "; ")
            return Trace.Event(sequence: index, time: UInt64(step.number), lane: step.who.localized.text(language), label: label, kind: .point)
        }
    }

    /// `counter=1`, or how it failed, in the learner's language.
    public func outcomeText(_ language: Language) -> String {
        switch outcome {
        case let .completed(text): return text
        case let .failed(message): return Localized("failed: \(message)", ja: "失敗: \(message)").text(language)
        case .deadlock:
            let who = waiting.map { entry in
                entry.after.map { Localized("\(entry.who.localized.en) (after \"\($0)\")", ja: "\(entry.who.localized.ja)（\"\($0)\" の後）") }
                    ?? Localized("\(entry.who.localized.en) (the body)", ja: "\(entry.who.localized.ja)（本体）")
            }
            return Localized("deadlock: ", ja: "デッドロック: ").text(language) + who.map { $0.text(language) }.joined(separator: language == .ja ? "、" : ", ")
        case let .livelock(steps):
            return Localized("livelock after \(steps) steps", ja: "\(steps) ステップでライブロック").text(language)
        }
    }
}
