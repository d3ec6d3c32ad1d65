import Foundation
import WorkbookCore

extension Chapter02 {
    /// The waiting calls of OperationQueue: `addOperations(_:waitUntilFinished:)` and
    /// `waitUntilAllOperationsAreFinished()` block the calling thread; without them, adding returns at once.
    static let waitUntilFinished = Scenario(
        slug: "wait-until-finished",
        title: Localized("addOperations(_:waitUntilFinished:)", ja: "addOperations(_:waitUntilFinished:)"),
        narration: Localized(
            """
            Three batches of `operations` operations each, from the caller's thread T1. \
            Batch 1: `addOperations(batch, waitUntilFinished: false)` returns as soon as the operations are queued; the caller counts how many were still unfinished at that moment. \
            Batch 2: `waitUntilFinished: true` blocks T1 until every operation of the batch has finished: on the timeline, T1's span covers the work, and nothing is unfinished when it returns. \
            Batch 3 is added without waiting, then `waitUntilAllOperationsAreFinished()` blocks until the queue is empty, whoever added the operations. \
            Blocking is the point and the danger: never wait on the main thread (the UI freezes), \
            and never wait from inside an operation for its own queue: the queue is not empty while the waiting operation is in it, so it waits for itself, a deadlock, whatever the width. \
            And "finished" means finished: a completion block may still be pending (scenario 8).
            """,
            ja: """
            `operations` 個ずつの 3 つのバッチを、呼び出し元のスレッド T1 から追加します。\
            バッチ 1: `addOperations(batch, waitUntilFinished: false)` はキューに入れたらすぐに戻ります。呼び出し元は、その瞬間にまだ終わっていなかった数を数えます。\
            バッチ 2: `waitUntilFinished: true` はバッチのすべてのオペレーションが終わるまで T1 をブロックします。タイムラインでは T1 のバーが処理全体を覆い、戻ったときに終わっていないものはありません。\
            バッチ 3 は待たずに追加し、それから `waitUntilAllOperationsAreFinished()` で、誰が追加したものであれキューが空になるまで待ちます。\
            ブロックすることこそが目的であり、危険でもあります。メインスレッドで待ってはいけません（UI が固まります）。\
            オペレーションの中から自分のキューを待ってもいけません。待っているオペレーション自身がキューにいる限りキューは空にならないので、キューの幅にかかわらず自分自身を待つことになり、デッドロックします。\
            また、`isFinished` はオペレーションが終わったという意味でしかありません。完了ブロックはまだ実行待ちかもしれません（シナリオ 8）。
            """),
        knobs: [
            .init("operations", default: 3, range: 1...12, help: Localized("operations per batch", ja: "バッチごとのオペレーション数")),
        ]
    ) { context in
        try await blocking { try runWaitUntilFinished(context) }
    }

    private static func runWaitUntilFinished(_ context: ScenarioContext) throws {
        let count = context.knob("operations")
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        var everything: [Operation] = []

        func batch(_ name: String) -> [Operation] {
            let operations = (1...count).map { index in
                BlockOperation {
                    let lane = context.trace.currentThreadLane()
                    context.trace.span("\(name)\(index)", lane: lane) { spin(microseconds: 1_500) }
                }
            }
            everything += operations
            return operations
        }
        func unfinished(_ operations: [Operation]) -> Int { operations.filter { !$0.isFinished }.count }
        let stuck = Localized("the batch did not finish", ja: "バッチが終わりませんでした")
        let returned = Localized("returned", ja: "戻った")
        /// Makes a blocking call under a deadline (it has no timeout of its own), drawn as a bar on T1.
        func blocked(_ label: Localized, _ call: @escaping @Sendable () -> Void) throws {
            context.trace.begin(label, lane: caller)
            let returnedInTime = returnsWithin(seconds: 5, call)
            context.trace.end(label, lane: caller)
            guard returnedInTime else { throw ScenarioStuck(what: stuck) }
            context.emit(returned, lane: caller)
        }

        context.say(Localized("1) addOperations(batch, waitUntilFinished: false)", ja: "1) addOperations(batch, waitUntilFinished: false)"))
        let first = batch("a")
        context.trace.record(Localized("add a", ja: "a を追加"), lane: caller)
        queue.addOperations(first, waitUntilFinished: false)
        let leftAfterNoWait = unfinished(first)
        context.emit(returned, lane: caller)
        context.say(Localized("  returned with \(leftAfterNoWait) of \(count) still unfinished.",
                              ja: "  戻った時点で \(count) 個中 \(leftAfterNoWait) 個がまだ終わっていませんでした。"))
        try waitForAll(in: queue, stuck)

        context.say(Localized("2) addOperations(batch, waitUntilFinished: true)", ja: "2) addOperations(batch, waitUntilFinished: true)"))
        let second = batch("b")
        try blocked(Localized("blocked in addOperations", ja: "addOperations で待機")) { queue.addOperations(second, waitUntilFinished: true) }
        let leftAfterWait = unfinished(second)
        context.say(Localized("  returned with \(leftAfterWait) of \(count) still unfinished.",
                              ja: "  戻った時点で \(count) 個中 \(leftAfterWait) 個がまだ終わっていませんでした。"))

        context.say(Localized("3) addOperations(batch, waitUntilFinished: false), then waitUntilAllOperationsAreFinished()",
                              ja: "3) addOperations(batch, waitUntilFinished: false) の後で waitUntilAllOperationsAreFinished()"))
        let third = batch("c")
        context.trace.record(Localized("add c", ja: "c を追加"), lane: caller)
        queue.addOperations(third, waitUntilFinished: false)
        try blocked(Localized("blocked in waitUntilAll", ja: "waitUntilAll… で待機")) { queue.waitUntilAllOperationsAreFinished() }
        let leftAfterWaitAll = unfinished(third)
        context.say(Localized("  returned with \(leftAfterWaitAll) of \(count) unfinished; operationCount = \(queue.operationCount).",
                              ja: "  戻った時点で終わっていなかったのは \(count) 個中 \(leftAfterWaitAll) 個、operationCount = \(queue.operationCount)。"))
        withExtendedLifetime(everything) {}

        context.note("unfinished after no wait", String(leftAfterNoWait))
        context.note("unfinished after wait", String(leftAfterWait))
        context.note("unfinished after waitUntilAll", String(leftAfterWaitAll))
    }
}
