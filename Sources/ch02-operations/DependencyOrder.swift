import Foundation
import WorkbookCore

extension Chapter02 {
    /// A dependency decides order: an operation is not ready until everything it depends on has
    /// finished, and a queue starts only ready operations, whatever order they were added in.
    static let dependencyOrder = Scenario(
        slug: "dependency-order",
        title: Localized("A dependency reorders the queue", ja: "依存関係がキューの順番を変える"),
        narration: Localized(
            """
            A queue limited to one operation at a time gets A, then B; each prints its letter. \
            Part one adds them with no dependency. Part two first says `A.addDependency(B)`: A may start only after B has finished. \
            A queue looks only at operations that are ready (`isReady`), and A is not ready while B is unfinished, \
            so although A was added first, B runs first. Nothing else (adding order, priority, timing) can change that: B A, every run. \
            A dependency is a rule the queue follows, not a hint, and it works whether or not the two operations are on the same queue (scenario 4). \
            Part three is the trap: A depends on B and B depends on A. Neither is ever ready, so neither ever starts, and the queue never empties. \
            Nobody reports it: the scenario gives up after 200 ms. Cancelling both ends the cycle: a cancelled operation ignores its dependencies, \
            so both finish at once, without running `main()`. The scenario suspends the queue while it cancels the two: \
            cancel A alone and A finishes, which makes B ready, and B would run its `main()` if the queue started it before `B.cancel()` (seen under load).
            """,
            ja: """
            同時に 1 つしか動かさないキューに A、続いて B を入れます。それぞれ自分の文字を表示します。\
            パート 1 では依存関係なしで入れます。パート 2 ではまず `A.addDependency(B)` と書きます。A は B が終わってからでないと始められません。\
            キューが見るのは準備完了（`isReady`）のオペレーションだけで、B が終わるまで A は準備完了になりません。\
            そのため A を先に入れても、先に動くのは B です。追加した順も優先度もタイミングも、これを変えられません。毎回 B A です。\
            依存関係はキューが従う規則であってヒントではなく、2 つのオペレーションが同じキューにあってもなくても効きます（シナリオ 4）。\
            パート 3 が落とし穴です。A が B に、B が A に依存すると、どちらも準備完了にならないので永遠に始まらず、キューも空になりません。\
            しかも何も報告されません。シナリオは 200 ms で見切りをつけます。両方をキャンセルすると循環が解けます。\
            キャンセルされたオペレーションは依存関係を無視するので、2 つとも `main()` を動かさずにすぐ終わります。\
            シナリオは 2 つをキャンセルする間キューを一時停止します。A だけをキャンセルすると A が終わって B が準備完了になり、\
            `B.cancel()` の前にキューが B を始めれば、B の `main()` が動いてしまうからです（負荷が高いときに実際に起きました）。
            """),
        prediction: .init(
            question: Localized(
                "A queue runs one operation at a time. A is added first, then B, and A depends on B (A.addDependency(B)). In what order do A and B run?",
                ja: "キューは一度に 1 つのオペレーションしか動かしません。先に A、次に B を追加し、A は B に依存しています（A.addDependency(B)）。A と B はどの順番で動くでしょう？"),
            explanation: Localized(
                "BA, every time. A is not ready until B has finished, and a queue starts only ready operations; the order of adding does not matter.",
                ja: "毎回 BA です。B が終わるまで A は準備完了にならず、キューは準備完了のオペレーションしか始めません。追加した順番は関係ありません。"),
            observe: { $0.noted("with dependency") ?? "" },
            isPossible: { $0 == "BA" })
    ) { context in
        try await blocking { try runDependencyOrder(context) }
    }

    private static func runDependencyOrder(_ context: ScenarioContext) throws {
        context.say(Localized("1) No dependency: add A, then B", ja: "1) 依存関係なし: A、続いて B を追加"))
        let plain = try runAAndB(context, dependency: false)
        context.note("without dependency", plain)

        context.say(Localized("2) A.addDependency(B): add A, then B", ja: "2) A.addDependency(B): A、続いて B を追加"))
        let ordered = try runAAndB(context, dependency: true)
        context.note("with dependency", ordered)
        context.say(Localized("  Order: without the dependency \(plain), with it \(ordered).",
                              ja: "  順番: 依存関係なしでは \(plain)、ありでは \(ordered)。"))

        try runCycle(context)
    }

    /// Adds A then B to a queue that runs one at a time; returns the order they ran in.
    private static func runAAndB(_ context: ScenarioContext, dependency: Bool) throws -> String {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let order = Locked<[String]>([])
        func letter(_ name: String) -> BlockOperation {
            BlockOperation {
                let lane = context.trace.currentThreadLane()
                context.trace.span(name, lane: lane) { spin(microseconds: 1_000) }
                order.withLock { order in
                    order.append(name)
                    context.emit(name, lane: lane)
                }
            }
        }
        let a = letter("A"), b = letter("B")
        if dependency { a.addDependency(b) }
        context.trace.record(dependency ? Localized("add A, B (A needs B)", ja: "A, B を追加（A は B に依存）") : Localized("add A, B", ja: "A, B を追加"))
        queue.addOperation(a)
        queue.addOperation(b)
        try waitForAll(in: queue, Localized("A and B did not finish", ja: "A と B が終わりませんでした"))
        withExtendedLifetime([a, b]) {}
        return order.current.joined()
    }

    /// A depends on B and B on A: neither ever becomes ready. Cancelling both breaks the cycle.
    private static func runCycle(_ context: ScenarioContext) throws {
        context.say(Localized("3) A cycle: A.addDependency(B) and B.addDependency(A)",
                              ja: "3) 循環: A.addDependency(B) と B.addDependency(A)"))
        // Not drawn on the timeline: nothing happens for 200 ms, which would squeeze parts 1 and 2.
        let queue = OperationQueue()
        let mainsRun = Locked(0)
        let a = BlockOperation { mainsRun.withLock { $0 += 1 } }
        let b = BlockOperation { mainsRun.withLock { $0 += 1 } }
        a.addDependency(b)
        b.addDependency(a)
        let operations = [a, b]
        queue.addOperations(operations, waitUntilFinished: false)
        let drained = returnsWithin(seconds: 0.2) { queue.waitUntilAllOperationsAreFinished() }
        let stuckCount = queue.operationCount
        context.say(drained
            ? Localized("  The queue drained (unexpected).", ja: "  キューが空になりました（想定外）。")
            : Localized("  After 200 ms: \(mainsRun.current) started, \(stuckCount) still in the queue, isReady: A \(a.isReady), B \(b.isReady). No error, no message.",
                        ja: "  200 ms 後: 始まったのは \(mainsRun.current) 個、キューに残っているのは \(stuckCount) 個、isReady は A \(a.isReady)、B \(b.isReady)。エラーもメッセージもありません。"))
        context.note("cycle stuck", String(!drained))

        // Suspended while cancelling: A cancelled alone finishes and makes B ready, and the queue
        // could start B (running its main()) before B.cancel().
        queue.isSuspended = true
        a.cancel()
        b.cancel()
        queue.isSuspended = false
        try waitForAll(in: queue, Localized("the cancelled cycle did not drain", ja: "キャンセルした循環が片付きませんでした"))
        withExtendedLifetime(operations) {}
        context.note("cycle mains run", String(mainsRun.current))
        context.say(Localized(
            "  After cancel(): both finished (A \(a.isFinished), B \(b.isFinished)), and main() ran \(mainsRun.current) time(s).",
            ja: "  cancel() の後: 2 つとも終わり（A \(a.isFinished)、B \(b.isFinished)）、main() が動いた回数は \(mainsRun.current) 回でした。"))
    }
}
