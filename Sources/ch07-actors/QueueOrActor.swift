import Dispatch
import Foundation
import WorkbookCore
import WorkbookExplorer

/// The slides' fix before actors: every access to `count` on one serial queue.
///
/// The critical section is explicit and the results are right, but the API turned into a
/// callback, and the compiler cannot see the queue: `@unchecked Sendable` is a promise it takes
/// on trust. A method added later that reads `count` off the queue compiles without a word.
final class QueueCounter: @unchecked Sendable {  // every access to `count` happens on `queue`
    private let queue = DispatchQueue(label: "counter")
    private var count = 0

    func increment(completion: @escaping @Sendable (Int) -> Void) {
        queue.async { [self] in
            count += 1
            completion(count)
        }
    }
}

/// The same body in an actor: one job at a time, and isolation the compiler checks. Callers
/// `await` (a possible suspension and hop); inside, the code is synchronous.
actor ActorCounter {
    private var count = 0

    func increment() -> Int {
        count += 1
        return count
    }
}

extension Chapter07 {
    /// Two tasks call the actor's `increment()`, A and B. Returns `A=… B=…`.
    @Sendable static func actorCounterCalls() async -> String {
        let counter = ActorCounter()
        nameNextTasks("A", "B")
        async let a = call(counter, "A")
        async let b = call(counter, "B")
        let (first, second) = await (a, b)
        return "A=\(first) B=\(second)"
    }

    private static func call(_ counter: ActorCounter, _ name: String) async -> Int {
        checkpoint(Localized("\(name): await increment()", ja: "\(name): increment() を await"))
        let value = await counter.increment()
        checkpoint(Localized("\(name): got \(value)", ja: "\(name): \(value) を受け取った"))
        return value
    }

    /// What the compiler says when code outside the actor reaches for its state.
    static let actorOutsideDiagnostic = Diagnostic(
        preamble: """
        actor ActorCounter {
            private var count = 0
            func increment() -> Int {
                count += 1
                return count
            }
        }
        """,
        code: """
        func bump(_ counter: ActorCounter) -> Int {
            counter.increment()
        }
        """,
        errors: ["call to actor-isolated instance method 'increment()' in a synchronous nonisolated context"],
        notes: ["calls to instance method 'increment()' from outside of its actor context are implicitly asynchronous"],
        reason: Localized(
            "Outside the actor a call is a message: it may have to wait for the actor, so it needs `await` in an `async` function. The queue version has no such rule: a method that reads `count` off the queue compiles.",
            ja: "アクターの外からの呼び出しはメッセージです。アクターを待つことがあるので、`async` 関数の中で `await` が要ります。キューの版にはそんな規則がなく、キューの外で `count` を読むメソッドもコンパイルできてしまいます。"))

    static let queueOrActor = Scenario(
        slug: "queue-or-actor",
        title: Localized("The fixes: a serial queue (a promise) and an actor (checked)", ja: "2 つの修正: シリアルキュー（約束）とアクター（検査される）"),
        narration: Localized(
            """
            The slides fixed the counter twice. First with a serial queue: `count += 1` and the completion run as one block on the queue, so two increments cannot overlap — \
            but the API became a callback, and Swift 6 accepts the class only as `@unchecked Sendable`, a promise it cannot check. \
            Then with an actor: the same body, `await` at the call, synchronous inside, isolation checked by the compiler. \
            1) The queue counter, `iterations` times with two blocks. 2) The actor counter, `iterations` times with two tasks, then every schedule within two preemptions. \
            3) What the compiler says when code outside the actor calls it without `await`.
            """,
            ja: """
            スライドはカウンタを 2 回直しました。最初はシリアルキューで: `count += 1` と完了ハンドラを 1 つのブロックとしてキューで実行するので、2 回のインクリメントは重なりません。\
            ただし API はコールバックになり、Swift 6 はこのクラスを `@unchecked Sendable` としてしか受け入れません。コンパイラが検査できない約束です。\
            次にアクターで: 本体は同じで、呼び出しに `await`、中は同期的、隔離はコンパイラが検査します。\
            1) キューのカウンタを 2 つのブロックで `iterations` 回。2) アクターのカウンタを 2 つのタスクで `iterations` 回、その後プリエンプション 2 回以内のすべてのスケジュール。\
            3) アクターの外のコードが `await` なしで呼ぶと、コンパイラが何と言うか。
            """),
        knobs: [.init("iterations", default: 500, range: 1...100_000, help: Localized("runs of each counter to tally", ja: "各カウンタで数える実行回数"))]
    ) { context in
        let runs = context.knob("iterations")

        // 1) The serial queue.
        var queueTally = OutcomeTally(classify: classifyCounterPair)
        let queueRuns = try await blockingResult { () throws -> [[String: Int]] in
            try (1...runs).map { _ in try queueRun() }
        }
        for run in queueRuns { queueTally.record("A=\(run["A"] ?? 0) B=\(run["B"] ?? 0)") }
        context.say(Localized("1) Serial queue, \(runs) runs, two blocks calling increment(completion:):",
                              ja: "1) シリアルキューで \(runs) 回。2 つのブロックが increment(completion:) を呼ぶ:"))
        context.show(queueTally.render(terminal: context.terminal, language: context.language))
        context.note("queue forbidden", String(queueTally.forbiddenCount))
        let queueLane = Localized("serial queue", ja: "シリアルキュー")
        if let first = queueRuns.first {
            for (name, value) in first.sorted(by: { $0.value < $1.value }) {
                context.trace.record(.verbatim("\(name): completion(\(value))"), lane: queueLane)
            }
        }

        // 2) The actor, real tasks and then the explorer.
        var actorTally = OutcomeTally(classify: classifyCounterPair)
        let actorLane = Localized("actor", ja: "アクター")
        for run in 1...runs {
            let counter = ActorCounter()
            let pair = await withTaskGroup(of: (String, Int).self) { group in
                for name in ["A", "B"] { group.addTask { (name, await counter.increment()) } }
                var pair: [String: Int] = [:]
                for await (name, value) in group { pair[name] = value }
                return pair
            }
            actorTally.record("A=\(pair["A"] ?? 0) B=\(pair["B"] ?? 0)")
            if run == 1 {
                for (name, value) in pair.sorted(by: { $0.value < $1.value }) {
                    context.trace.record(.verbatim("\(name): await increment() → \(value)"), lane: actorLane)
                }
            }
        }
        context.say(Localized("2) Actor, \(runs) runs, two tasks calling `await counter.increment()`:",
                              ja: "2) アクターで \(runs) 回。2 つのタスクが `await counter.increment()` を呼ぶ:"))
        context.show(actorTally.render(terminal: context.terminal, language: context.language))
        context.note("actor forbidden", String(actorTally.forbiddenCount))
        let explored = await onDedicatedThread {
            Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 5_000, maxSeconds: 10)) {
                await actorCounterCalls()
            }
        }
        let outcomes = explored.outcomes.map(\.outcome).sorted()
        context.note("actor explored outcomes", outcomes.joined(separator: " | "))
        context.note("actor explored exhausted", String(explored.exhausted))
        context.say(Localized(
            "   Explored: \(explored.schedulesRun) schedules within two preemptions, outcomes \(outcomes.joined(separator: ", ")). The whole increment is one job on the actor: no schedule puts B inside A's.",
            ja: "   探索: プリエンプション 2 回以内のスケジュール \(explored.schedulesRun) 個、結果は \(outcomes.joined(separator: "、"))。インクリメント全体がアクター上の 1 つのジョブなので、A の途中に B を入れるスケジュールはありません。"))

        // 3) What the compiler checks.
        context.say(Localized("3) Code outside the actor that forgets `await`:", ja: "3) アクターの外で `await` を忘れたコード:"))
        context.show(actorOutsideDiagnostic)
        context.trace.record(Localized("outside, no await: does not compile", ja: "外から await なし: コンパイルできない"), lane: Localized("compiler", ja: "コンパイラ"))
    }

    /// One run of the queue counter: blocks A and B, each calling `increment(completion:)`.
    private static func queueRun() throws -> [String: Int] {
        let counter = QueueCounter()
        let results = Locked<[String: Int]>([:])
        let startLine = StartLine()
        let group = DispatchGroup()
        for block in ["A", "B"] {
            group.enter()
            DispatchQueue.global().async {
                startLine.arriveAndWait()
                counter.increment { value in
                    results.withLock { $0[block] = value }
                    group.leave()
                }
            }
        }
        try wait(for: group, Localized("a run did not finish", ja: "実行が終わりませんでした"))
        return results.current
    }
}
