import Foundation
import WorkbookCore

extension Chapter02 {
    /// The same pipeline twice: GCD expresses "after" by where you submit the next block
    /// (a group's `notify`); OperationQueue by dependencies declared up front.
    static let gcdVersusOperations = Scenario(
        slug: "gcd-vs-operations",
        title: Localized("GCD and OperationQueue side by side", ja: "GCD と OperationQueue を並べて"),
        narration: Localized(
            """
            One small pipeline, built twice: fetch, then parse and thumbnail side by side, then save once both are done. \
            With GCD, the order lives in the code's shape: the fetch block submits parse and thumbnail into a `DispatchGroup`, and `notify` submits save. \
            With OperationQueue, four objects get their dependencies up front and are added together; the queue works out the order. \
            The two timelines look alike, and the scenario checks the same four edges on both. \
            The differences show up around the edges. Cancelling: a `DispatchWorkItem` cancelled before it runs is skipped, \
            but GCD has nothing like dependants or `cancelAllOperations()`. Reuse: a closure can be submitted again and again; \
            an operation runs once. Calling `start()` on a finished one does nothing, and adding it to a queue again is a programming error that kills the process, \
            shown here in a child process (`ch02-operations --child add-twice`). \
            Rule of thumb: GCD for small fire-and-forget blocks, operations for work with a graph, limits, cancellation or state you want to observe.
            """,
            ja: """
            小さなパイプラインを 2 通りに組みます。fetch の後に parse と thumbnail を並行して行い、両方が終わったら save します。\
            GCD では順番がコードの形に表れます。fetch のブロックが parse と thumbnail を `DispatchGroup` に投入し、`notify` が save を投入します。\
            OperationQueue では 4 つのオブジェクトに最初に依存関係を付けてまとめて追加し、順番はキューが割り出します。\
            2 つのタイムラインは似ていて、シナリオはどちらでも同じ 4 本の辺を確かめます。\
            違いはそれ以外のところに現れます。キャンセル: 実行前にキャンセルした `DispatchWorkItem` は飛ばされますが、GCD には依存するオペレーションや `cancelAllOperations()` に当たるものがありません。\
            再利用: クロージャは何度でも投入できますが、オペレーションは 1 回しか動きません。\
            終わったオペレーションに `start()` を呼んでも何も起きず、もう一度キューに追加するのはプロセスを終わらせるプログラミングエラーです。\
            ここではそれを子プロセス（`ch02-operations --child add-twice`）で見せます。\
            目安: 投げっぱなしの小さなブロックには GCD、依存グラフや同時実行数の上限、キャンセル、監視したい状態がある処理にはオペレーションを使います。
            """)
    ) { context in
        try await blocking {
            try runPipelines(context)
            try runCancelAndReuse(context)
            runAddTwiceInChild(context)
        }
    }

    /// The name of the child process that adds one operation to a queue twice.
    static let addTwiceChildName = "add-twice"

    /// Printed by the child just before the second `addOperation`.
    private static let addingAgain = "adding the finished operation again"

    /// The child process's body: run an operation, then add it to a queue again.
    ///
    /// swift-corelibs-foundation stops with a fatal error, Apple's Foundation raises an
    /// Objective-C exception; either ends the process. Exit status 3 if neither happened.
    static func addTwiceChild() -> Never {
        let queue = OperationQueue()
        let operation = BlockOperation {}
        queue.addOperation(operation)
        queue.waitUntilAllOperationsAreFinished()
        Console.line(addingAgain)
        queue.addOperation(operation)
        queue.waitUntilAllOperationsAreFinished()
        exit(3)
    }

    private static let pipelineEdges = [
        Edge(earlier: "fetch", later: "parse"), Edge(earlier: "fetch", later: "thumbnail"),
        Edge(earlier: "parse", later: "save"), Edge(earlier: "thumbnail", later: "save"),
    ]

    /// A pipeline step: records its span and prints its name.
    private static func step(_ label: String, _ microseconds: Int, _ context: ScenarioContext) {
        let lane = context.trace.currentThreadLane()
        context.trace.span(label, lane: lane) { spin(microseconds: microseconds) }
        context.printLine(label, lane: lane)
    }

    private static func runPipelines(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()

        context.say(Localized("1) GCD: fetch submits parse and thumbnail into a group; notify submits save",
                              ja: "1) GCD: fetch が parse と thumbnail をグループに投入し、notify が save を投入"))
        let gcdFrom = context.trace.nextSequence
        context.trace.record("GCD", lane: caller)
        let queue = DispatchQueue(label: "workbook.pipeline", attributes: .concurrent)
        let saved = DispatchSemaphore(value: 0)
        queue.async {
            step("fetch", 2_000, context)
            let group = DispatchGroup()
            queue.async(group: group) { step("parse", 1_500, context) }
            queue.async(group: group) { step("thumbnail", 1_500, context) }
            group.notify(queue: queue) {
                step("save", 500, context)
                saved.signal()
            }
        }
        try wait(for: saved, Localized("the GCD pipeline did not finish", ja: "GCD のパイプラインが終わりませんでした"))

        context.say(Localized("2) Operations: the same four steps, dependencies declared up front, added together",
                              ja: "2) オペレーション: 同じ 4 段階に最初に依存関係を付け、まとめて追加"))
        let operationsFrom = context.trace.nextSequence
        context.trace.record(Localized("Operations", ja: "オペレーション"), lane: caller)
        let fetch = BlockOperation { step("fetch", 2_000, context) }
        let parse = BlockOperation { step("parse", 1_500, context) }
        let thumbnail = BlockOperation { step("thumbnail", 1_500, context) }
        let save = BlockOperation { step("save", 500, context) }
        parse.addDependency(fetch)
        thumbnail.addDependency(fetch)
        save.addDependency(parse)
        save.addDependency(thumbnail)
        let operations = [save, thumbnail, parse, fetch]  // any order: the dependencies decide
        let operationQueue = OperationQueue()
        operationQueue.addOperations(operations, waitUntilFinished: false)
        try waitForAll(in: operationQueue, Localized("the operation pipeline did not finish", ja: "オペレーションのパイプラインが終わりませんでした"))
        withExtendedLifetime(operations) {}

        // The GCD part ended before the operations part began, so from `gcdFrom` on the first
        // events of each label are the GCD ones.
        let gcdBroken = Edge.broken(pipelineEdges, in: context.trace, from: gcdFrom)
        let operationsBroken = Edge.broken(pipelineEdges, in: context.trace, from: operationsFrom)
        context.note("gcd edges broken", String(gcdBroken.count))
        context.note("operation edges broken", String(operationsBroken.count))
        context.say(Localized(
            "Edges kept (fetch → parse, fetch → thumbnail, parse → save, thumbnail → save): GCD \(4 - gcdBroken.count)/4, operations \(4 - operationsBroken.count)/4.",
            ja: "守られた辺（fetch → parse、fetch → thumbnail、parse → save、thumbnail → save）: GCD \(4 - gcdBroken.count)/4、オペレーション \(4 - operationsBroken.count)/4"))
    }

    private static func runCancelAndReuse(_ context: ScenarioContext) throws {
        context.say(Localized("3) Cancel before it runs, and run again:", ja: "3) 実行前のキャンセルと、もう一度の実行:"))
        let serial = DispatchQueue(label: "workbook.cancel-and-reuse")

        // A DispatchWorkItem cancelled while it waits in the queue is skipped.
        let itemRuns = Locked(0)
        let item = DispatchWorkItem { itemRuns.withLock { $0 += 1 } }
        serial.suspend()
        serial.async(execute: item)
        item.cancel()
        serial.resume()
        serial.sync {}  // everything submitted before this has run (or been skipped)
        context.note("cancelled work item runs", String(itemRuns.current))

        // The same for an operation.
        let operationRuns = Locked(0)
        let queue = OperationQueue()
        queue.isSuspended = true
        let cancelled = BlockOperation { operationRuns.withLock { $0 += 1 } }
        queue.addOperation(cancelled)
        cancelled.cancel()
        queue.isSuspended = false
        try waitForAll(in: queue, Localized("the cancelled operation did not finish", ja: "キャンセルしたオペレーションが終わりませんでした"))
        context.note("cancelled operation runs", String(operationRuns.current))
        context.say(Localized(
            "  Cancelled before running: the DispatchWorkItem ran \(itemRuns.current) time(s), the operation's main() ran \(operationRuns.current) time(s).",
            ja: "  実行前にキャンセル: DispatchWorkItem は \(itemRuns.current) 回、オペレーションの main() は \(operationRuns.current) 回動きました。"))

        // A closure can be submitted again; an operation runs once.
        let closureRuns = Locked(0)
        let work: @Sendable () -> Void = { closureRuns.withLock { $0 += 1 } }
        serial.async(execute: work)
        serial.async(execute: work)
        serial.sync {}
        context.note("closure runs", String(closureRuns.current))

        let mainRuns = Locked(0)
        let once = BlockOperation { mainRuns.withLock { $0 += 1 } }
        queue.addOperation(once)
        try waitForAll(in: queue, Localized("the operation did not finish", ja: "オペレーションが終わりませんでした"))
        once.start()  // finished already: start() returns without calling main()
        context.note("main runs after second start", String(mainRuns.current))
        withExtendedLifetime([cancelled, once]) {}
        context.say(Localized(
            "  Submitted twice, the closure ran \(closureRuns.current) time(s). The operation, run by the queue and then start()ed again, ran main() \(mainRuns.current) time(s).",
            ja: "  2 回投入したクロージャは \(closureRuns.current) 回動きました。キューで実行した後にもう一度 start() したオペレーションの main() は \(mainRuns.current) 回でした。"))
    }

    /// Adding a finished operation to a queue again, in a child process so the crash is its own.
    private static func runAddTwiceInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "4) Add a finished operation to a queue again — in a child process (ch02-operations --child \(addTwiceChildName)):",
            ja: "4) 終わったオペレーションをもう一度キューに追加 — 子プロセスで実行（ch02-operations --child \(addTwiceChildName)）:"))
        // Not drawn on the timeline: the child takes far longer than the pipelines.
        guard let outcome = context.runChild(addTwiceChildName, of: "ch02-operations") else { return }
        if outcome.standardOutput.contains(addingAgain) {
            context.say(Localized("  The operation ran once; the child adds it again …", ja: "  オペレーションは 1 回動きました。子プロセスはそれをもう一度追加し …"))
        }
        context.reportFoundationStop(outcome, key: "add twice", quoting: nil,
                                     survived: Localized("  … and nothing happened: this Foundation accepted the operation twice.",
                                                         ja: "  … 何も起きませんでした。この Foundation は同じオペレーションを 2 回受け付けました。"))
    }
}
