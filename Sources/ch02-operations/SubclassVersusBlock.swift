import Foundation
import WorkbookCore

extension Chapter02 {
    /// Two ways to package work as an operation: a subclass that overrides `main()`, and a
    /// `BlockOperation` that holds closures (and finishes only when all of them have run).
    static let subclassVersusBlock = Scenario(
        slug: "subclass-vs-block",
        title: Localized("An Operation subclass and BlockOperation", ja: "Operation のサブクラスと BlockOperation"),
        narration: Localized(
            """
            An operation is an object that wraps one piece of work, so that a queue can run it, and so that it can have dependencies and be cancelled. \
            Part one subclasses `Operation`: the input comes in through `init`, the work goes in `main()`, and the result is a property the caller reads once the operation has finished. \
            Watch the state flags: ready before it is added; executing inside `main()`, on a thread of the queue (T2…), not on the caller (T1); finished when `main()` returns. \
            Part two is a `BlockOperation` holding `blocks` closures (`addExecutionBlock`). \
            The operation counts as finished only when every block has returned: a dependant operation starts after the end of the last block. \
            Apple's Foundation may run the blocks of one BlockOperation at the same time on several threads; the timeline shows what this Foundation did. \
            Either way, blocks must not share mutable state unguarded, and their order is not promised.
            """,
            ja: """
            オペレーションは 1 つの処理を包むオブジェクトで、キューに実行させたり、依存関係を付けたり、キャンセルしたりできます。\
            パート 1 は `Operation` のサブクラスです。入力は `init` で受け取り、処理は `main()` に書き、結果はプロパティに入れて、終わってから呼び出し元が読みます。\
            状態フラグに注目してください。キューに入れる前は準備完了（`isReady`）、`main()` の中では `isExecuting` で、動いているのは呼び出し元（T1）ではなくキューのスレッド（T2 …）です。`main()` から戻ると `isFinished` になります。\
            パート 2 は `blocks` 個のクロージャを持つ `BlockOperation`（`addExecutionBlock`）です。\
            オペレーションが `isFinished` になるのはすべてのブロックが戻ってからなので、依存するオペレーションは最後のブロックが終わった後に始まります。\
            Apple の Foundation では 1 つの BlockOperation のブロックが複数のスレッドで同時に動くことがあります。この Foundation でどうなったかはタイムラインで確かめてください。\
            いずれにしても、ブロック同士で可変の状態をロックなどで守らずに共有してはいけませんし、ブロックの順番も保証されていません。
            """),
        knobs: [
            .init("blocks", default: 3, range: 1...8, help: Localized("execution blocks in the BlockOperation", ja: "BlockOperation に入れるブロックの数")),
        ]
    ) { context in
        try await blocking { try runSubclassVersusBlock(context) }
    }

    private static func runSubclassVersusBlock(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()

        // Part one: a subclass.
        context.say(Localized("1) An Operation subclass: ChecksumOperation(numbers: 1...1000)", ja: "1) Operation のサブクラス: ChecksumOperation(numbers: 1...1000)"))
        let checksum = ChecksumOperation(numbers: Array(1...1_000), context: context)
        context.show("  \(caller): " + checksum.stateFlags(Localized("before addOperation", ja: "addOperation の前")))
        context.trace.record("addOperation", lane: caller)
        queue.addOperation(checksum)
        guard finishes(checksum, within: 5) else {
            throw ScenarioStuck(what: Localized("ChecksumOperation did not finish", ja: "ChecksumOperation が終わりませんでした"))
        }
        context.trace.record(Localized("waitUntilFinished returned", ja: "waitUntilFinished から戻った"), lane: caller)
        context.show("  \(caller): " + checksum.stateFlags(Localized("after waitUntilFinished", ja: "waitUntilFinished の後")))
        let result = checksum.checksum.map(String.init) ?? "nil"
        context.note("checksum", result)
        context.say(Localized("  The caller reads checksum = \(result) after the operation finished.",
                              ja: "  呼び出し元は、オペレーションが終わってから `checksum` = \(result) を読みます。"))

        // Part two: one BlockOperation with several blocks, and a dependant.
        let blocks = context.knob("blocks")
        context.say(Localized("2) One BlockOperation with \(blocks) blocks, and an operation that depends on it:",
                              ja: "2) ブロックを \(blocks) 個持つ BlockOperation と、それに依存するオペレーション:"))
        let blockOperation = BlockOperation()
        for index in 1...blocks {
            blockOperation.addExecutionBlock {
                let lane = context.trace.currentThreadLane()
                context.trace.span(Localized("block \(index)", ja: "ブロック \(index)"), lane: lane) { spin(microseconds: 1_500) }
                context.printLine(Localized("block \(index) returns", ja: "ブロック \(index) が戻る"), lane: lane)
            }
        }
        let dependant = BlockOperation {
            let lane = context.trace.currentThreadLane()
            context.trace.span(Localized("dependant", ja: "依存する側"), lane: lane) { spin(microseconds: 300) }
            context.printLine(Localized("dependant runs", ja: "依存する側が動く"), lane: lane)
        }
        dependant.addDependency(blockOperation)
        let operations = [blockOperation, dependant]
        context.trace.record("addOperations", lane: caller)
        queue.addOperations(operations, waitUntilFinished: false)
        try waitForAll(in: queue, Localized("the BlockOperation did not finish", ja: "BlockOperation が終わりませんでした"))
        withExtendedLifetime(operations) {}

        let isBlock: (String) -> Bool = { $0.hasPrefix("block ") }
        let together = context.trace.peakOverlap(where: isBlock)
        let threads = context.trace.lanes(where: isBlock)
        let lastBlockEnd = context.trace.events.filter { $0.kind == .end && isBlock($0.label) }.map(\.sequence).max() ?? Int.max
        let dependantAfterBlocks = (context.trace.sequence(of: .begin, "dependant") ?? -1) > lastBlockEnd
        context.note("blocks at once", String(together))
        context.note("dependant after all blocks", String(dependantAfterBlocks))
        context.say(Localized(
            "  \(blocks) blocks ran on \(threads.count) thread(s) (\(threads.joined(separator: ", "))), at most \(together) at the same time.",
            ja: "  \(blocks) 個のブロックは \(threads.count) 本のスレッド（\(threads.joined(separator: ", "))）で動き、同時に動いていたのは最大 \(together) 個でした。"))
        if blocks > 1 && together == 1 {
            context.say(Localized(
                "  Here they ran one after another: this Foundation (swift-corelibs-foundation) calls the blocks in a loop inside main(). Apple's may run them concurrently, so do not count on either.",
                ja: "  ここでは 1 つずつ順番に動きました。この Foundation（swift-corelibs-foundation）は main() の中でブロックをループで呼ぶからです。Apple の Foundation では同時に動くこともあるので、どちらも当てにしないでください。"))
        } else if together > 1 {
            context.say(Localized(
                "  They overlapped: the blocks of one BlockOperation may run concurrently, so they must not share unguarded state.",
                ja: "  ブロックが重なりました。1 つの BlockOperation のブロックは同時に動くことがあるので、守られていない状態を共有してはいけません。"))
        }
        context.say(dependantAfterBlocks
            ? Localized("  The dependant began after the last block ended: the operation finishes when all of its blocks have.",
                        ja: "  依存するオペレーションは最後のブロックが終わってから始まりました。オペレーションが終わるのは、すべてのブロックが終わったときです。")
            : Localized("  The dependant began BEFORE the last block ended (unexpected).",
                        ja: "  依存するオペレーションが最後のブロックより前に始まりました（想定外）。"))
    }
}

/// An `Operation` subclass: immutable input from `init`, the work in `main()`, and the result
/// read by the caller once the operation has finished.
///
/// The queue calls `main()` on one of its threads while the caller may read `checksum` from
/// another, so the result is guarded: a plain `var checksum: Int?` written in `main()` and read
/// by the caller would be a data race (and makes the class unfit for `@unchecked Sendable`).
private final class ChecksumOperation: Operation, @unchecked Sendable {  // input immutable, result behind Locked
    private let numbers: [Int]
    private let context: ScenarioContext
    private let result = Locked<Int?>(nil)

    init(numbers: [Int], context: ScenarioContext) {
        self.numbers = numbers
        self.context = context
    }

    /// The result; nil until `main()` has run.
    var checksum: Int? { result.current }

    override func main() {
        if isCancelled { return }  // a cancelled operation should not start its work
        let lane = context.trace.currentThreadLane()
        context.show("  \(lane): " + stateFlags(Localized("inside main()", ja: "main() の中")))
        let sum = context.trace.span("Checksum.main", lane: lane) { () -> Int in
            spin(microseconds: 2_000)  // stands in for real work, so the span is visible
            return numbers.reduce(0) { ($0 &* 31 &+ $1) % 1_000_003 }
        }
        result.withLock { $0 = sum }
    }

    /// The state flags, e.g. "inside main(): ready=true executing=true finished=false".
    func stateFlags(_ moment: Localized) -> String {
        "\(moment.text(context.language)): isReady=\(isReady) isExecuting=\(isExecuting) isFinished=\(isFinished)"
    }
}
