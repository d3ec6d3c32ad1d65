import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// Readers and writers on one concurrent queue: reads overlap, a `.barrier` write runs alone.
    static let barrier = Scenario(
        slug: "barrier",
        title: Localized("Readers and writers with a barrier", ja: "バリアによる読み手と書き手"),
        narration: Localized(
            """
            Readers and writers share one value on a concurrent queue. Reads are plain `async` blocks, \
            so several may run at once; writes are `async(flags: .barrier)` blocks. \
            A barrier block waits until every block submitted before it has finished, runs alone, \
            and only then lets the blocks submitted after it start. \
            On the timeline, reads (R1, R2, …) overlap on different threads while each write (W1, …) sits in a gap of its own; \
            every reader submitted after a write sees its value. \
            The count of concurrent readers is capped by the cores GCD uses, and the count of blocks that overlapped a write must be 0. \
            The barrier only works on a queue you created with `.concurrent`: on a global queue it is an ordinary block.
            """,
            ja: """
            読み手と書き手が、コンカレントキュー上の 1 つの値を共有します。\
            読み取りは普通の `async` ブロックなので同時にいくつも動けますが、書き込みは `async(flags: .barrier)` のブロックです。\
            バリアブロックは、先に投入されたブロックがすべて終わるのを待ってから単独で実行され、それが終わって初めて後から投入されたブロックが始まります。\
            タイムラインでは、読み取り（R1、R2 …）は別々のスレッドで重なり、書き込み（W1 …）はそれぞれ単独の隙間に収まります。\
            書き込みより後に投入された読み手は、どれもその値を読みます。\
            同時に動く読み手の数は GCD が使うコア数で頭打ちになり、書き込みと重なったブロックの数は 0 でなければなりません。\
            バリアが効くのは `.concurrent` を付けて自分で作ったキューだけで、グローバルキューではただのブロックになります。
            """),
        knobs: [
            .init("readers", default: 4, range: 1...32, help: Localized("read blocks", ja: "読み取りブロックの数")),
            .init("writers", default: 1, range: 0...8, help: Localized("barrier write blocks, spread among the reads", ja: "読み取りの間に散らして投入するバリア書き込みブロックの数")),
        ]
    ) { context in
        try await blocking { try runBarrier(context) }
    }

    /// Who is inside the queue right now, and the worst seen.
    private struct Occupancy {
        var readers = 0
        var writers = 0
        var maxReaders = 0
        /// Blocks that ran while a write was running, or a write that started while anything ran.
        var overlapsWithWrite = 0
    }

    /// Reads are plain blocks and may overlap; writes are barrier blocks and run alone.
    ///
    /// The racy way is the same code with `flags: .barrier` left out: a write then runs beside
    /// reads (and other writes) and they see half-done state. The over-careful way is a serial
    /// queue: safe, but reads then wait for each other for no reason.
    private static func runBarrier(_ context: ScenarioContext) throws {
        let readers = context.knob("readers"), writers = context.knob("writers")
        let queue = DispatchQueue(label: "workbook.readers-writers", attributes: .concurrent)
        // The same unsafe box as in counter-race; here the barrier discipline makes it safe:
        // it is read only in blocks on `queue`, and written only in barrier blocks.
        let shared = UnsafeCounter()
        let occupancy = Locked(Occupancy())
        let group = DispatchGroup()

        func read(_ name: String) {
            queue.async(group: group) {
                let lane = context.trace.currentThreadLane()
                occupancy.withLock { state in
                    state.readers += 1
                    state.maxReaders = max(state.maxReaders, state.readers)
                    if state.writers > 0 { state.overlapsWithWrite += 1 }
                }
                let seen = context.trace.span(name, lane: lane) { () -> Int in
                    spin(microseconds: 3_000)
                    return shared.value
                }
                occupancy.withLock { $0.readers -= 1 }
                context.printLine(Localized("\(name) read \(seen)", ja: "\(name) が \(seen) を読んだ"), lane: lane)
            }
        }
        func write(_ name: String) {
            queue.async(group: group, flags: .barrier) {
                let lane = context.trace.currentThreadLane()
                occupancy.withLock { state in
                    if state.readers > 0 || state.writers > 0 { state.overlapsWithWrite += 1 }
                    state.writers += 1
                }
                let written = context.trace.span(name, lane: lane) { () -> Int in
                    spin(microseconds: 1_000)
                    shared.value += 1
                    return shared.value
                }
                occupancy.withLock { $0.writers -= 1 }
                context.printLine(Localized("\(name) wrote \(written)", ja: "\(name) が \(written) を書いた"), lane: lane)
            }
        }

        // Spread the writes evenly among the reads: R1 R2 W1 R3 R4 for readers=4 writers=1.
        context.trace.record(Localized("submit", ja: "投入"))
        var nextReader = 1
        for chunk in 0...writers {
            let end = readers * (chunk + 1) / (writers + 1)
            while nextReader <= end {
                read("R\(nextReader)")
                nextReader += 1
            }
            if chunk < writers { write("W\(chunk + 1)") }
        }
        try wait(for: group, Localized("the readers and writers did not finish", ja: "読み手と書き手が終わりませんでした"))

        let final = occupancy.current
        context.note("max readers", String(final.maxReaders))
        context.note("overlaps with write", String(final.overlapsWithWrite))
        context.say(Localized(
            "At most \(final.maxReaders) reader(s) ran at once (this machine has \(ProcessInfo.processInfo.activeProcessorCount) cores); blocks that overlapped a write: \(final.overlapsWithWrite).",
            ja: "同時に動いた読み手は最大 \(final.maxReaders) 個（このマシンのコア数は \(ProcessInfo.processInfo.activeProcessorCount)）。書き込みと重なったブロック: \(final.overlapsWithWrite)。"))
        if final.maxReaders == 1 && readers > 1 {
            context.say(Localized(
                "This time the reads did not overlap: GCD had not woken a second pool thread in time. Nothing forbids it; run it again.",
                ja: "今回は読み取りが重なりませんでした。GCD が 2 本目のプールスレッドを間に合うように起こさなかったのです。禁止されているわけではないので、もう一度実行してみてください。"))
        }
    }
}
