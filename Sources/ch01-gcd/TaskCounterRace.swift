import WorkbookCore
import WorkbookExplorer

/// A counter in an actor whose increment is split across two actor calls.
///
/// The racy way: `let value = await counter.read(); await counter.write(value + 1)` — between
/// the two `await`s another task can run, read the same value and write the same result.
/// The safe way is one actor call that reads and writes with no `await` in between
/// (`func increment() { value += 1 }`), which chapter 07 builds on.
actor SplitCounter {
    private(set) var value = 0
    func read() -> Int { value }
    func write(_ newValue: Int) { value = newValue }
}

extension Chapter01 {
    /// Two tasks, each reading then writing read + 1. Returns `counter=N`.
    @Sendable static func twoTaskIncrements() async throws -> String {
        let counter = SplitCounter()
        nameNextTasks("A", "B")
        async let first: Void = increment(counter, as: "A")
        async let second: Void = increment(counter, as: "B")
        _ = await (first, second)
        return "counter=\(await counter.value)"
    }

    private static func increment(_ counter: SplitCounter, as name: String) async {
        nameTask(name)
        let value = await counter.read()
        checkpoint("\(name): read() → \(value)")
        await counter.write(value + 1)
        checkpoint("\(name): write(\(value + 1))")
    }

    static func classifyCounter(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "counter=2" ? .acceptable : .forbidden
    }

    static let lostUpdateExplanation = Localized(
        "Both tasks read the counter before either wrote it, so both wrote the same value: one increment was lost. Each `await` is a point where another task may run.",
        ja: "どちらかが書く前に両方のタスクがカウンタを読んだため、同じ値を書き込み、インクリメントが 1 回失われました。`await` の 1 つ 1 つが、別のタスクが実行され得る地点です。")

    /// Game 1: you choose which task runs at each step.
    static let taskCounterRaceGame = Game(
        slug: "task-counter-race",
        title: Localized("The counter race with tasks: can you lose an update?", ja: "タスク版カウンタ競合: 更新を失わせられるか？"),
        narration: Localized(
            "Tasks A and B each read an actor's counter, then write read + 1 — two actor calls with an `await` between them. Make both read 0 before either writes.",
            ja: "タスク A と B は、それぞれアクターのカウンタを読み、読んだ値 + 1 を書きます。2 回のアクター呼び出しの間に `await` があります。どちらかが書く前に、両方に 0 を読ませてみましょう。"),
        explanation: lostUpdateExplanation,
        classify: classifyCounter,
        body: twoTaskIncrements)

    /// Scenario 12: the same code under many explored schedules, tallied.
    static let taskCounterRace = Scenario(
        slug: "task-counter-race",
        title: Localized("The counter race with tasks, explored (then: play 1)", ja: "タスク版カウンタ競合を探索（続けて: play 1）"),
        narration: Localized(
            """
            The counter race again, with Swift concurrency: two tasks, and a counter inside an actor. The actor makes each \
            call safe, but an increment written as `read()` then `write(value + 1)` is two calls with an `await` between them. \
            The explorer runs the tasks one job at a time and chooses the order; this scenario runs `schedules` seeded random \
            schedules and tallies the outcomes, then shows one schedule that lost an update, with its replay token. \
            Then type `play 1` and be the scheduler yourself.
            """,
            ja: """
            同じカウンタの競合を、今度は Swift のタスクとアクターで見ます。2 つのタスクと、アクターの中のカウンタ。アクターは 1 回 1 回の呼び出しを安全にしますが、\
            `read()` の後に `write(value + 1)` と書いたインクリメントは、間に `await` を挟んだ 2 回の呼び出しです。\
            エクスプローラはタスクを 1 ジョブずつ実行して順序を選びます。このシナリオはシード付きのランダムなスケジュールを `schedules` 回実行して結果を集計し、\
            更新が失われたスケジュールを 1 つ、リプレイトークン付きで表示します。続けて `play 1` で、あなた自身がスケジューラになってみましょう。
            """),
        knobs: [.init("schedules", default: 2000, range: 1...100_000, help: Localized("how many schedules to explore", ja: "探索するスケジュール数"))]
    ) { context in
        let result = await Explorer.explore(.random(seed: context.seed),
                                      budget: .init(maxSchedules: context.knob("schedules"), maxSeconds: 10),
                                      { try await twoTaskIncrements() })
        var tally = OutcomeTally(classify: classifyCounter)
        for (outcome, count) in result.outcomes { for _ in 0..<count { tally.record(outcome) } }
        context.say(Localized("\(result.schedulesRun) schedules (seed \(context.seed)):", ja: "\(result.schedulesRun) 個のスケジュール（シード \(context.seed)）:"))
        context.show(tally.render(terminal: context.terminal, language: context.language))
        // One schedule that loses the update, found by exhaustive search (fewest preemptions).
        let lost = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let outcome = try await twoTaskIncrements()
            if classifyCounter(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        guard let schedule = lost.failure else { return }
        context.say(Localized("A schedule that loses an update (\(schedule.deviations) preemptions):", ja: "更新が失われるスケジュール（プリエンプション \(schedule.deviations) 回）:"))
        for step in schedule.steps {
            let passed = step.checkpoints.isEmpty ? "" : " → " + step.checkpoints.joined(separator: " → ")
            let who = step.who.localized.text(context.language)
            context.show("  \(step.number). \(who)\(passed)")
            context.trace.record(step.checkpoints.isEmpty ? Localized("(runs)", ja: "（実行）").text(context.language) : step.checkpoints.joined(separator: "; "), lane: who)
        }
        context.show("  replay 1 \(schedule.token)")
        context.say(lostUpdateExplanation)
    }
}
