import Dispatch
import WorkbookCore

/// A shared counter with no protection at all: the racy way, on purpose.
///
/// `@unchecked Sendable` tells the compiler "trust me"; nothing backs that promise, so two
/// threads can both read 0 and both write 1. The lesson needs the bug in order to show it. Never
/// do this in real code: `SerialQueueCounter` below is the safe way.
final class UnsafeCounter: @unchecked Sendable {
    var value = 0
}

/// The safe way: the count lives behind one serial queue, and every read-modify-write is one
/// block on that queue, so two increments can never interleave.
///
/// The blocks are the very same as in the racy version — only the queue they run on changed.
/// (Plain `Sendable`: the unsafe box is private and touched only on `queue`.)
final class SerialQueueCounter: Sendable {
    private let queue = DispatchQueue(label: "workbook.counter")
    private let storage = UnsafeCounter()

    /// Submits one increment; `body` is the read-then-write block, handed the storage.
    func increment(group: DispatchGroup, _ body: @escaping @Sendable (UnsafeCounter) -> Void) {
        queue.async(group: group) { [storage] in body(storage) }
    }

    /// The count, read on the queue (after every increment submitted before it).
    var value: Int { queue.sync { storage.value } }
}

extension Chapter01 {
    /// The lost update: two blocks each read a shared counter, then write value + 1.
    static let counterRace = Scenario(
        slug: "counter-race",
        title: Localized("A race on a counter: the lost update", ja: "カウンタの競合: 更新の消失"),
        narration: Localized(
            """
            Two blocks run on `DispatchQueue.global()`. Each reads the shared counter, does a little other work \
            (the `window`), then writes the value it read plus one and prints it. \
            If one block finishes before the other starts, they print 1 and 2 and the counter ends at 2. \
            If both read 0 before either writes, both print 1: one increment is lost and the counter ends at 1. \
            One run proves little, so the scenario repeats it `iterations` times and tallies the final values; \
            a wider `window` loses more updates. The timeline shows one run of each version: look for overlapping spans. \
            Then the fix: the same two blocks on one serial queue. They can no longer overlap, and the tally shows only final=2.
            """,
            ja: """
            2 つのブロックを `DispatchQueue.global()` で実行します。\
            それぞれ共有カウンタを読み、少し別の処理（`window`）をしてから、読んだ値 + 1 を書き込んで表示します。\
            片方が終わってからもう片方が始まれば、表示は 1 と 2、カウンタは 2 になります。\
            両方が書き込む前に両方が 0 を読むと、どちらも 1 を表示し、インクリメントが 1 回消えてカウンタは 1 で終わります。\
            1 回の実行では何もわからないので、`iterations` 回繰り返して最終値を集計します（`window` を広げると更新の消失が増えます）。\
            タイムラインには両方の版の 1 回分が出るので、バーが重なっているかを見てください。\
            最後に修正版として、同じ 2 つのブロックを 1 つのシリアルキューで実行します。\
            もう重なりようがなく、集計は final=2 だけになります。
            """),
        knobs: [
            .init("iterations", default: 1000, range: 1...100_000,
                  help: Localized("how many runs to tally", ja: "集計する実行回数")),
            .init("window", default: 20, range: 0...1000,
                  help: Localized("µs of work between the read and the write (wider: more lost updates)",
                                  ja: "読み取りと書き込みの間の処理の長さ（µs）。広いほど更新が消えやすい")),
        ],
        prediction: .init(
            question: Localized(
                "After one run of the two racy blocks, what is the counter's final value?",
                ja: "競合する 2 つのブロックを 1 回実行したあと、カウンタの最終値はいくつでしょう？"),
            explanation: Localized(
                "Both 2 and 1 are possible. Nothing orders the two read-then-write sequences, so both blocks may read 0 and both write 1: a lost update. The tally shows how often each happens on this machine; the serial queue makes 2 the only outcome.",
                ja: "2 も 1 もありえます。2 つの「読んでから書く」処理には順序の保証がないため、両方が 0 を読んで両方が 1 を書くことがあります（更新の消失）。集計を見ると、このマシンでそれぞれどのくらい起きるかがわかります。シリアルキューにすれば 2 しか起きません。"),
            observe: { $0.noted("first final") ?? "" },
            isPossible: { $0 == "1" || $0 == "2" })
    ) { context in
        try await blocking { try runCounterRace(context) }
    }

    /// What one block of one run did: when it read, what it read, when it wrote.
    private struct Increment: Sendable {
        let block: Int
        let readAt: UInt64
        let read: Int
        let wroteAt: UInt64
    }

    /// The block both versions run: read, work for `window` µs, write read + 1.
    /// On a traced run it also records the span from read to write and "prints" the value it wrote.
    private static func readThenWrite(
        _ counter: UnsafeCounter, block: Int, window: Int, log: Locked<[Increment]>, context: ScenarioContext?
    ) {
        let lane = context?.trace.currentThreadLane() ?? ""
        let readAt = MonotonicClock.now()
        let read = counter.value
        let label = Localized("read \(read), write \(read + 1)", ja: "読み \(read)、書き \(read + 1)")
        context?.trace.begin(label, lane: lane)
        spin(microseconds: window)
        counter.value = read + 1
        let wroteAt = MonotonicClock.now()
        context?.printLine(String(read + 1), lane: lane)
        context?.trace.end(label, lane: lane)
        log.withLock { $0.append(Increment(block: block, readAt: readAt, read: read, wroteAt: wroteAt)) }
    }

    private static func classifyFinalValue(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "final=2" ? .acceptable : .forbidden
    }

    private static func outcome(final: Int, _ context: ScenarioContext) -> String {
        final == 2 ? "final=2" : context.text(Localized("final=\(final) (lost update)", ja: "final=\(final)（更新の消失）"))
    }

    private static func runCounterRace(_ context: ScenarioContext) throws {
        let iterations = context.knob("iterations")
        let window = context.knob("window")

        context.say(Localized(
            "Racy: two blocks on DispatchQueue.global() share an unprotected counter (window \(window) µs). One run:",
            ja: "競合あり: DispatchQueue.global() 上の 2 つのブロックが保護のないカウンタを共有（window \(window) µs）。1 回の実行:"))
        context.trace.record(Localized("racy", ja: "競合あり"))
        let firstFinal = try racyRun(window: window, log: Locked([]), traced: context)
        context.note("first final", String(firstFinal))

        context.say(Localized(
            "Fixed: the same two blocks on one serial queue. One run:",
            ja: "修正版: 同じ 2 つのブロックを 1 つのシリアルキューで。1 回の実行:"))
        context.trace.record(Localized("fixed", ja: "修正版"))
        _ = try fixedRun(window: window, log: Locked([]), traced: context)

        context.say(Localized("Racy, \(iterations) runs:", ja: "競合あり、\(iterations) 回:"))
        var racy = OutcomeTally(classify: classifyFinalValue)
        var firstLostUpdate: (run: Int, increments: [Increment])?
        for run in 1...iterations {
            let log = Locked<[Increment]>([])
            let final = try racyRun(window: window, log: log, traced: nil)
            racy.record(outcome(final: final, context))
            if final != 2 && firstLostUpdate == nil { firstLostUpdate = (run, log.current) }
        }
        context.show(racy.render(terminal: context.terminal, language: context.language))
        context.note("racy lost updates", String(racy.forbiddenCount))
        if let lost = firstLostUpdate {
            context.say(Localized("The first lost update, in run \(lost.run):", ja: "最初に更新が消えたのは \(lost.run) 回目:"))
            for line in describe(lost.increments) { context.say(line) }
        } else {
            context.say(Localized(
                "No update was lost this time. Try a wider window, e.g. run 2 window=200.",
                ja: "今回は更新が消えませんでした。window を広げてみてください（例: run 2 window=200）。"))
        }

        context.say(Localized("Fixed, \(iterations) runs:", ja: "修正版、\(iterations) 回:"))
        var fixed = OutcomeTally(classify: classifyFinalValue)
        for _ in 1...iterations {
            fixed.record(outcome(final: try fixedRun(window: window, log: Locked([]), traced: nil), context))
        }
        context.show(fixed.render(terminal: context.terminal, language: context.language))
        context.note("fixed lost updates", String(fixed.forbiddenCount))
    }

    /// The racy way: both blocks on the global concurrent queue. Returns the final value.
    private static func racyRun(window: Int, log: Locked<[Increment]>, traced: ScenarioContext?) throws -> Int {
        let counter = UnsafeCounter()
        let group = DispatchGroup()
        for block in 1...2 {
            DispatchQueue.global().async(group: group) {
                readThenWrite(counter, block: block, window: window, log: log, context: traced)
            }
        }
        try wait(for: group, Localized("a run did not finish", ja: "実行が終わりませんでした"))
        return counter.value  // safe to read here: the group's wait happens after both blocks
    }

    /// The safe way: the same blocks on one serial queue. Returns the final value.
    private static func fixedRun(window: Int, log: Locked<[Increment]>, traced: ScenarioContext?) throws -> Int {
        let counter = SerialQueueCounter()
        let group = DispatchGroup()
        for block in 1...2 {
            counter.increment(group: group) { storage in
                readThenWrite(storage, block: block, window: window, log: log, context: traced)
            }
        }
        try wait(for: group, Localized("a run did not finish", ja: "実行が終わりませんでした"))
        return counter.value
    }

    /// The four steps of a run in time order, e.g. "block 1 read 0", "block 2 read 0", "block 1 wrote 1", "block 2 wrote 1".
    private static func describe(_ increments: [Increment]) -> [Localized] {
        let steps = increments.flatMap { increment in
            [(increment.readAt, Localized("  block \(increment.block) read \(increment.read)",
                                          ja: "  ブロック \(increment.block) が \(increment.read) を読む")),
             (increment.wroteAt, Localized("  block \(increment.block) wrote \(increment.read + 1)",
                                           ja: "  ブロック \(increment.block) が \(increment.read + 1) を書く"))]
        }
        return steps.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
