import Dispatch
import Foundation
import WorkbookCore
import WorkbookExplorer

/// The counter of the slides, as they wrote it: `increment()` adds one and returns the count.
///
/// The racy way, on purpose. In Swift 6 the slides' code does not compile (part 3 shows why);
/// `@unchecked Sendable` is here only so that this program can run what their Swift 5 code did.
/// Nothing backs the promise: two threads can both be between `count += 1` and `return count`.
final class SlidesCounter: @unchecked Sendable {
    var count = 0

    func increment() -> Int {
        count += 1
        return count
    }
}

/// The same `count += 1; return count`, one memory access per step, for the explorer: load,
/// store, load. Each `await step(…)` is a point where a thread could lose the processor, so
/// the explorer can let the other call run there. (Explored on one driver thread, one job at a
/// time: the two calls never touch `count` at the same instant, only in every order.)
final class SteppedCounter: @unchecked Sendable {
    private var count = 0

    func increment(_ caller: String) async -> Int {
        let loaded = count                                   // count += 1: load …
        await step(Localized("\(caller): load \(loaded)", ja: "\(caller): \(loaded) を読む"))
        count = loaded + 1                                   //             … store
        await step(Localized("\(caller): store \(loaded + 1)", ja: "\(caller): \(loaded + 1) を書く"))
        let returned = count                                 // return count: load again
        checkpoint(Localized("\(caller): returns \(returned)", ja: "\(caller): \(returned) を返す"))
        return returned
    }

    private func step(_ label: Localized) async {
        checkpoint(label)
        await Task.yield()
    }
}

extension Chapter07 {
    /// Two calls of the stepped counter, A and B. Returns `A=… B=…`.
    @Sendable static func slidesCounterStepped() async -> String {
        let counter = SteppedCounter()
        nameNextTasks("A", "B")
        async let a = counter.increment("A")
        async let b = counter.increment("B")
        let (first, second) = await (a, b)
        return "A=\(first) B=\(second)"
    }

    /// 1 and 2 in either order are what a counter should give; anything else is the race.
    static func classifyCounterPair(_ outcome: String) -> OutcomeTally.Verdict {
        ["A=1 B=2", "A=2 B=1"].contains(outcome) ? .acceptable : .forbidden
    }

    /// The diagnostic the slides' code meets in Swift 6.
    static let slidesCounterDiagnostic = Diagnostic(
        preamble: """
        import Dispatch
        final class Counter {
            var count = 0
            func increment() -> Int {
                count += 1
                return count
            }
        }
        """,
        code: """
        func start() {
            let counter = Counter()
            DispatchQueue.global().async { print(counter.increment()) }
            DispatchQueue.global().async { print(counter.increment()) }
        }
        """,
        errors: ["capture of 'counter' with non-Sendable type 'Counter' in a '@Sendable' closure"],
        notes: ["class 'Counter' does not conform to the 'Sendable' protocol"],
        reason: Localized(
            "`async` takes a `@Sendable` closure: it may run on another thread while the caller and other blocks go on, so what it captures must be safe to share. A class with a `var` is not: two blocks could touch `count` at once — the race above, found before the program runs.",
            ja: "`async` は `@Sendable` クロージャを受け取ります。呼び出し元や他のブロックと同時に別のスレッドで動くかもしれないので、キャプチャするものは共有しても安全でなければなりません。`var` を持つクラスは安全ではありません。2 つのブロックが同時に `count` に触れられます。上の競合を、プログラムを動かす前に見つけたわけです。"))

    static let racyCounter = Scenario(
        slug: "racy-counter",
        title: Localized("The slides' counter: two increments that can both return 2", ja: "スライドのカウンタ: 2 回のインクリメントが両方 2 を返し得る"),
        narration: Localized(
            """
            The counter of the slides: `count += 1; return count` in a class, called once from each of two blocks on `DispatchQueue.global()`. \
            You expect one block to print 1 and the other 2. \
            1) Real threads: `iterations` times on a fresh counter, both blocks released together; the pairs they returned, tallied. \
            2) Explored: the same two lines as the processor runs them — load, store, load — with a scheduling point between each; the explorer tries every order within three preemptions. \
            3) What Swift 6 says about the slides' code, and why. \
            4) With `tsan=1`: the slides' program compiled in the Swift 5 mode with ThreadSanitizer (`swiftc -sanitize=thread`, about a second more), and the two accesses it names.
            """,
            ja: """
            スライドのカウンタです。クラスの中の `count += 1; return count` を、`DispatchQueue.global()` 上の 2 つのブロックから 1 回ずつ呼びます。\
            片方が 1、もう片方が 2 を表示するはずだと考えるでしょう。\
            1) 実スレッド: 新しいカウンタで `iterations` 回、2 つのブロックを同時に走らせ、返した値の組を数えます。\
            2) 探索: 同じ 2 行を、プロセッサが実行する形（読む、書く、読む）にし、その間ごとにスケジューリングポイントを置きます。エクスプローラがプリエンプション 3 回以内のすべての順序を試します。\
            3) スライドのコードに Swift 6 が何と言うか、そしてその理由。\
            4) `tsan=1` のとき: スライドのプログラムを Swift 5 モードで ThreadSanitizer 付き（`swiftc -sanitize=thread`、1 秒ほど余計にかかります）でコンパイルし、TSan が名指しする 2 つのアクセスを示します。
            """),
        knobs: [
            .init("iterations", default: 1000, range: 1...100_000, help: Localized("real-thread runs to tally", ja: "数える実スレッドでの実行回数")),
            .init("tsan", default: 0, range: 0...1, help: Localized("1: also compile and run the slides' code with ThreadSanitizer", ja: "1 のとき、スライドのコードを ThreadSanitizer 付きでコンパイルして実行する")),
        ],
        prediction: .init(
            question: Localized(
                "Two threads each call increment() once on a fresh counter and print the result. What can they print? A) only 1 and 2, in either order B) also 2 and 2 C) also 2 and 2, and also 1 and 1",
                ja: "2 本のスレッドが新しいカウンタの increment() をそれぞれ 1 回呼び、結果を表示します。何が表示され得る？ A) 1 と 2 だけ（順序はどちらでも） B) 2 と 2 もあり得る C) 2 と 2 も、1 と 1 もあり得る"),
            explanation: Localized(
                "C. `count += 1` is a load and a store, and `return count` loads again. If B's increment lands between A's store and A's return, both return 2 (the slides' case). If both load 0 before either stores, both store 1 and return 1: the lost update of chapter 01. The explorer finds all four pairs; real threads show the rare ones now and then.",
                ja: "C です。`count += 1` は読み取りと書き込みで、`return count` はもう一度読みます。A の書き込みと A の return の間に B のインクリメントが入ると、両方が 2 を返します（スライドの例）。どちらかが書く前に両方が 0 を読むと、両方が 1 を書いて 1 を返します。第 01 章の「更新の消失」です。エクスプローラは 4 通りの組をすべて見つけ、実スレッドではまれな組がときどき現れます。"),
            observe: { $0.noted("explored answer") ?? "" },
            isPossible: { $0 == "C" })
    ) { context in
        try await realThreads(context)
        await explored(context)
        context.say(Localized("3) The slides' code in Swift 6:", ja: "3) スライドのコードを Swift 6 で:"))
        context.show(slidesCounterDiagnostic)
        context.trace.record(Localized("Swift 6: does not compile", ja: "Swift 6: コンパイルできない"), lane: Localized("compiler", ja: "コンパイラ"))
        if context.knob("tsan") == 1 {
            await SanitizerProbe.run(context)
        } else {
            context.say(Localized("4) ThreadSanitizer: `run 1 tsan=1` compiles the slides' program with it and shows its report (about a second more).",
                                  ja: "4) ThreadSanitizer: `run 1 tsan=1` でスライドのプログラムを TSan 付きでコンパイルし、そのレポートを示します（1 秒ほど余計にかかります）。"))
        }
    }

    // MARK: 1) Real threads

    /// When each block called `increment()` and what it got, for drawing one run.
    private struct Call: Sendable {
        let block: String
        let start: UInt64
        let end: UInt64
        let returned: Int
    }

    private static func realThreads(_ context: ScenarioContext) async throws {
        let runs = context.knob("iterations")
        let (tally, drawn, together) = try await blockingResult { () throws -> (OutcomeTally, [Call], Int) in
            var tally = OutcomeTally(classify: classifyCounterPair)
            var drawn: [Call] = []
            var drawnIsRace = false
            var together = 0
            for run in 1...runs {
                let (calls, met) = try race()
                if met { together += 1 }
                let a = calls.first { $0.block == "A" }?.returned ?? 0, b = calls.first { $0.block == "B" }?.returned ?? 0
                let outcome = "A=\(a) B=\(b)"
                tally.record(outcome)
                // Draw the first run that gave both 2, else the first run.
                if run == 1 || (!drawnIsRace && outcome == "A=2 B=2") {
                    drawn = calls
                    drawnIsRace = outcome == "A=2 B=2"
                }
            }
            return (tally, drawn, together)
        }
        context.say(Localized("1) Real threads, \(runs) runs, two blocks released together each time:",
                              ja: "1) 実スレッドで \(runs) 回。毎回 2 つのブロックを同時に走らせる:"))
        context.show(tally.render(terminal: context.terminal, language: context.language))
        context.note("real A=2 B=2", String(tally.count(of: "A=2 B=2")))
        context.note("real A=1 B=1", String(tally.count(of: "A=1 B=1")))
        context.note("real forbidden", String(tally.forbiddenCount))
        context.say(Localized(
            "   Both blocks were running at the same moment in \(together) of \(runs) runs. A tally without 2 and 2 proves nothing: run it again, or with more runs (`run 1 iterations=20000`).",
            ja: "   2 つのブロックが同時に動いていたのは \(runs) 回中 \(together) 回でした。2 と 2 が出ない集計は何の証明にもなりません。もう一度、または回数を増やして（`run 1 iterations=20000`）実行してください。"))
        let first = drawn.map(\.start).min() ?? 0
        context.trace.replay(drawn.flatMap { call -> [Trace.Event] in
            let lane = Localized("block \(call.block)", ja: "ブロック \(call.block)")
            let label = Localized.verbatim("increment() → \(call.returned)")
            return [Trace.Event(sequence: 0, time: call.start - first, lane: lane, label: label, kind: .begin),
                    Trace.Event(sequence: 1, time: call.end - first, lane: lane, label: label, kind: .end)]
        }.sorted { $0.time < $1.time })
    }

    /// One run: a fresh counter, blocks A and B on the global queue, released together.
    private static func race() throws -> (calls: [Call], together: Bool) {
        let counter = SlidesCounter()
        let calls = Locked<[Call]>([])
        let startLine = StartLine()
        let group = DispatchGroup()
        for block in ["A", "B"] {
            DispatchQueue.global().async(group: group) {
                startLine.arriveAndWait()
                let start = MonotonicClock.now()
                let returned = counter.increment()
                let end = MonotonicClock.now()
                calls.withLock { $0.append(Call(block: block, start: start, end: end, returned: returned)) }
            }
        }
        try wait(for: group, Localized("a run did not finish", ja: "実行が終わりませんでした"))
        return (calls.current, startLine.metInTime)
    }

    // MARK: 2) Explored

    private static func explored(_ context: ScenarioContext) async {
        let result = await onDedicatedThread {
            Explorer.explore(.exhaustive(maxPreemptions: 3), budget: .init(maxSchedules: 5_000, maxSeconds: 10)) {
                await slidesCounterStepped()
            }
        }
        var tally = OutcomeTally(classify: classifyCounterPair)
        for (outcome, count) in result.outcomes { for _ in 0..<count { tally.record(outcome) } }
        context.say(Localized("2) Explored: every order of load, store, load within three preemptions; the count is schedules, not frequency (\(result.schedulesRun) schedules):",
                              ja: "2) 探索: プリエンプション 3 回以内で、読む・書く・読むのすべての順序。回数はスケジュールの数で、起きやすさではありません（スケジュール \(result.schedulesRun) 個）:"))
        context.show(tally.render(terminal: context.terminal, language: context.language))
        let outcomes = Set(result.outcomes.map(\.outcome))
        context.note("explored outcomes", outcomes.sorted().joined(separator: " | "))
        let answer = outcomes.contains("A=1 B=1") ? "C" : outcomes.contains("A=2 B=2") ? "B" : "A"
        context.note("explored answer", answer)

        // The schedule of the slides' case, fewest preemptions first.
        let both2 = await onDedicatedThread {
            Explorer.explore(.exhaustive(maxPreemptions: 3)) {
                let outcome = await slidesCounterStepped()
                if outcome == "A=2 B=2" { throw InvariantViolation(outcome) }
                return outcome
            }
        }
        guard let schedule = both2.failure else { return }
        context.note("both 2 token", schedule.token.description)
        context.say(Localized("   Both return 2 (\(schedule.deviations) preemption(s)): B's increment lands between A's store and A's return.",
                              ja: "   両方が 2 を返す（プリエンプション \(schedule.deviations) 回）: A の書き込みと A の `return` の間に B のインクリメントが入る。"))
        let lane = Localized("explored", ja: "探索")
        for step in schedule.steps where !step.checkpoints.isEmpty {
            let passed = step.checkpoints(in: context.language).joined(separator: "; ")
            context.show("     \(step.number). \(passed)")
            context.trace.record(Localized(step.checkpoints(in: .en).joined(separator: "; "), ja: step.checkpoints(in: .ja).joined(separator: "; ")), lane: lane)
        }
        context.show("     play 1 · replay 1 \(schedule.token)")
    }
}

/// Runs blocking work on a thread of its own and returns its result (see `blocking`).
func blockingResult<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    let outcome: Swift.Result<Result, any Error> = await onDedicatedThread { Swift.Result { try body() } }
    return try outcome.get()
}
