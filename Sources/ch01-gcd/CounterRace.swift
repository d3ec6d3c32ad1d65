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
            (the `window`), then writes the value it read plus one. Both wait at a start line until both are running, so they start together. \
            If one block writes before the other reads, the counter ends at 2. \
            If both read 0 before either writes, both write 1: one increment is lost and the counter ends at 1. \
            One run proves little, so the scenario repeats it `iterations` times and tallies the final values. \
            Read the tally: a single final=1 proves the race. How often it happens depends on the window and on how busy the machine is, \
            so a tally without one proves nothing; run it again, or with more iterations (run 2 iterations=5000). \
            The timeline draws the first run that lost an update, one lane per block: the two bars overlap, each from its read to its write. \
            Then the fix: the same two blocks on one serial queue. They can no longer overlap, and the tally shows only final=2.
            """,
            ja: """
            2 つのブロックを `DispatchQueue.global()` で実行します。\
            それぞれ共有カウンタを読み、少し別の処理（`window`）をしてから、読んだ値 + 1 を書き込みます。両方が動き出すまでスタートラインで待ち合わせるので、2 つは同時に始まります。\
            片方が書き込んでからもう片方が読めば、カウンタは 2 になります。\
            どちらかが書き込む前に両方が 0 を読むと、どちらも 1 を書き込み、インクリメントが 1 回失われてカウンタは 1 で終わります。\
            1 回の実行ではほとんど何もわからないので、`iterations` 回繰り返して最終値を集計します。\
            集計を読んでください。final=1 が 1 回でもあれば競合状態の証拠です。その頻度は window とマシンの混み具合で変わるので、1 回も出ない集計は何の証明にもなりません。もう一度、または回数を増やして（run 2 iterations=5000）実行してみてください。\
            タイムラインには更新が失われた最初の実行をブロックごとのレーンで描きます。読み取りから書き込みまでのバーが 2 本、重なっています。\
            最後に修正版として、同じ 2 つのブロックを 1 つのシリアルキューで実行します。\
            もう重なりようがなく、集計は final=2 だけになります。
            """),
        knobs: [
            .init("iterations", default: 1000, range: 1...100_000,
                  help: Localized("how many runs to tally", ja: "集計する実行回数")),
            .init("window", default: 20, range: 0...1000,
                  help: Localized("µs of work between the read and the write (0: adjacent, which still collide sometimes)",
                                  ja: "読み取りと書き込みの間の処理の長さ（µs）。0 は隣り合わせ（それでもときどき競合する）")),
        ],
        prediction: .init(
            question: Localized(
                "After one run of the two racy blocks, what is the counter's final value?",
                ja: "競合する 2 つのブロックを 1 回実行したあと、カウンタの最終値はいくつでしょう？"),
            explanation: Localized(
                "Both 2 and 1 are possible. Nothing orders the two read-then-write sequences, so both blocks may read 0 and both write 1: a lost update. The tally shows how often each happens on this machine; the serial queue makes 2 the only outcome.",
                ja: "2 も 1 もあり得ます。2 つの「読んでから書く」処理には順序の保証がないため、両方が 0 を読んで両方が 1 を書くことがあります（更新の消失）。集計を見ると、このマシンでそれぞれどのくらい起きるかがわかります。シリアルキューにすれば結果は 2 だけになります。"),
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
    /// Nothing is recorded between the read and the write (a trace takes a lock, which would
    /// widen the window); the times are logged afterwards and drawn with `spans(of:)`.
    private static func readThenWrite(_ counter: UnsafeCounter, block: Int, window: Int, log: Locked<[Increment]>) {
        let readAt = MonotonicClock.now()
        let read = counter.value
        spin(microseconds: window)
        counter.value = read + 1
        let wroteAt = MonotonicClock.now()
        log.withLock { $0.append(Increment(block: block, readAt: readAt, read: read, wroteAt: wroteAt)) }
    }

    /// A run's increments as spans from read to write, one lane per block, for `Trace.replay`.
    private static func spans(of increments: [Increment], _ context: ScenarioContext) -> [Trace.Event] {
        var steps: [(time: UInt64, lane: String, label: Localized, kind: Trace.Kind)] = []
        for increment in increments {
            let label = Localized("read \(increment.read), write \(increment.read + 1)", ja: "読み \(increment.read)、書き \(increment.read + 1)")
            let lane = context.text(Localized("block \(increment.block)", ja: "ブロック \(increment.block)"))
            steps.append((increment.readAt, lane, label, .begin))
            steps.append((increment.wroteAt, lane, label, .end))
        }
        return steps.sorted { $0.time < $1.time }.enumerated().map { index, step in
            Trace.Event(sequence: index, time: step.time, lane: step.lane, label: step.label, kind: step.kind)
        }
    }

    /// Where the two racy blocks wait for each other, so that both are running when either reads.
    /// A pool that gives both blocks one thread would never let the second arrive, so the wait
    /// is bounded (then the first block simply goes).
    private final class StartLine: Sendable {
        private let arrived = Locked(0)
        private let gaveUp = Locked(false)

        func arriveAndWait(limitMicroseconds: Int = 2_000) {
            arrived.withLock { $0 += 1 }
            let end = MonotonicClock.now() + UInt64(limitMicroseconds) * 1_000
            while arrived.current < 2 && MonotonicClock.now() < end {}
            if arrived.current < 2 { gaveUp.withLock { $0 = true } }
        }

        /// Whether both blocks were running at once (nobody went alone).
        var metInTime: Bool { !gaveUp.current }
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
            "Racy: two blocks on DispatchQueue.global() share an unprotected counter (window \(window) µs), \(iterations) runs:",
            ja: "競合あり: DispatchQueue.global() 上の 2 つのブロックが保護されていないカウンタを共有（window \(window) µs）、\(iterations) 回:"))
        var racy = OutcomeTally(classify: classifyFinalValue)
        var drawn: (run: Int, final: Int, increments: [Increment])?
        var together = 0
        for run in 1...iterations {
            let log = Locked<[Increment]>([])
            let (final, met) = try racyRun(window: window, log: log)
            if met { together += 1 }
            racy.record(outcome(final: final, context))
            if run == 1 { context.note("first final", String(final)) }
            if run == 1 || (final != 2 && drawn?.final == 2) { drawn = (run, final, log.current) }
        }
        context.show(racy.render(terminal: context.terminal, language: context.language))
        context.note("racy lost updates", String(racy.forbiddenCount))
        context.say(Localized(
            "Both blocks were running at the same moment in \(together) of \(iterations) runs; in the others one ran after the other (one pool thread for both, or a core busy elsewhere), and those cannot lose an update.",
            ja: "2 つのブロックが同時に動いていたのは \(iterations) 回中 \(together) 回でした。それ以外は片方が終わってからもう片方が動いており（1 本のプールスレッドが両方を実行した、別の処理がコアを使っていた、など）、その場合は更新は失われません。"))
        context.trace.record(Localized("racy", ja: "競合あり"))
        if let drawn, drawn.final != 2 {
            context.note("drawn final", String(drawn.final))
            context.say(Localized("The first lost update, in run \(drawn.run) (drawn on the timeline):",
                                  ja: "最初に更新が失われたのは \(drawn.run) 回目の実行です（タイムラインに描きます）:"))
            for line in describe(drawn.increments) { context.say(line) }
        } else {
            context.say(Localized(
                "No update was lost this time; that proves nothing (the timeline draws run 1). Run it again, or with more iterations: run 2 iterations=5000.",
                ja: "今回は更新が失われませんでしたが、それは何の証明にもなりません（タイムラインには 1 回目を描きます）。もう一度、または回数を増やして実行してみてください（run 2 iterations=5000）。"))
        }
        if let drawn { context.trace.replay(spans(of: drawn.increments, context)) }

        context.say(Localized("Fixed: the same two blocks on one serial queue, \(iterations) runs:",
                              ja: "修正版: 同じ 2 つのブロックを 1 つのシリアルキューで、\(iterations) 回:"))
        var fixed = OutcomeTally(classify: classifyFinalValue)
        context.trace.record(Localized("fixed", ja: "修正版"))
        for run in 1...iterations {
            let log = Locked<[Increment]>([])
            fixed.record(outcome(final: try fixedRun(window: window, log: log), context))
            if run == 1 { context.trace.replay(spans(of: log.current, context)) }
        }
        context.show(fixed.render(terminal: context.terminal, language: context.language))
        context.note("fixed lost updates", String(fixed.forbiddenCount))
    }

    /// The racy way: both blocks on the global concurrent queue. Returns the final value.
    private static func racyRun(window: Int, log: Locked<[Increment]>) throws -> (final: Int, together: Bool) {
        let counter = UnsafeCounter()
        let group = DispatchGroup()
        let startLine = StartLine()
        for block in 1...2 {
            DispatchQueue.global().async(group: group) {
                startLine.arriveAndWait()
                readThenWrite(counter, block: block, window: window, log: log)
            }
        }
        try wait(for: group, Localized("a run did not finish", ja: "実行が終わりませんでした"))
        return (counter.value, startLine.metInTime)  // safe to read here: the group's wait happens after both blocks
    }

    /// The safe way: the same blocks on one serial queue. Returns the final value.
    private static func fixedRun(window: Int, log: Locked<[Increment]>) throws -> Int {
        let counter = SerialQueueCounter()
        let group = DispatchGroup()
        for block in 1...2 {
            counter.increment(group: group) { storage in
                readThenWrite(storage, block: block, window: window, log: log)
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
