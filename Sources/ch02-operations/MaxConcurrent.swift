import Foundation
import WorkbookCore

extension Chapter02 {
    /// `maxConcurrentOperationCount` caps how many operations of one queue run at once: 1 makes
    /// the queue run one at a time, N lets up to N overlap (if threads are free).
    static let maxConcurrent = Scenario(
        slug: "max-concurrent",
        title: Localized("maxConcurrentOperationCount: one at a time or N", ja: "maxConcurrentOperationCount: 1 つずつか N 個まで"),
        narration: Localized(
            """
            The same `operations` operations (2 ms of work each) go to two queues: one with `maxConcurrentOperationCount = 1`, one with `width`. \
            The limit is checked by the queue before it starts an operation, so the first queue's spans lie end to end on the timeline, \
            and the second's overlap, but never more than `width` at a time. The scenario measures the peak on the recorded trace. \
            The limit is a ceiling, not a promise: the queue runs its operations on GCD threads, and if GCD hands out fewer threads (or the machine has fewer cores), fewer overlap. \
            The default, `OperationQueue.defaultMaxConcurrentOperationCount`, leaves the number to the system. \
            A queue limited to 1 is often called serial, and the line "Started in the order" shows the order it picked. \
            But Apple documents only that it runs one operation at a time, not first in first out: which one starts next follows readiness and priority (scenarios 3 and 8). \
            When order matters, say so with a dependency.
            """,
            ja: """
            同じ `operations` 個のオペレーション（それぞれ 2 ms の処理）を 2 つのキューに入れます。1 つは `maxConcurrentOperationCount = 1`、もう 1 つは `width` です。\
            キューはオペレーションを始める前に上限を確かめるので、1 つ目のキューのバーはタイムライン上で一列に並び、2 つ目のキューのバーは重なりますが、同時に `width` 個を超えることはありません。\
            最大の同時実行数は、記録したトレースから測ります。\
            上限はあくまで上限で、その数だけ動く保証はありません。キューは GCD のスレッドで動くので、GCD が渡すスレッドが少なければ（あるいはマシンのコアが少なければ）、重なる数も減ります。\
            既定値の `OperationQueue.defaultMaxConcurrentOperationCount` は、数をシステムに任せるという意味です。\
            上限 1 のキューはよくシリアルと呼ばれます。どの順番で始めたかは「始まった順番」の行に出ます。\
            ただし Apple が保証しているのは 1 つずつ実行することだけで、先入れ先出しは保証されていません。次にどれを始めるかは、準備完了かどうかと優先度で決まります（シナリオ 3 と 8）。\
            順番が大事なら、依存関係でそれを書いてください。
            """),
        knobs: [
            .init("operations", default: 6, range: 1...24, help: Localized("operations per queue", ja: "キューごとのオペレーション数")),
            .init("width", default: 3, range: 1...16, help: Localized("maxConcurrentOperationCount of the second queue", ja: "2 つ目のキューの maxConcurrentOperationCount")),
        ]
    ) { context in
        try await blocking { try runMaxConcurrent(context) }
    }

    private static func runMaxConcurrent(_ context: ScenarioContext) throws {
        let count = context.knob("operations"), width = context.knob("width")

        for (part, limit) in [(1, 1), (2, width)] {
            let queue = OperationQueue()
            queue.name = "limit \(limit)"
            queue.maxConcurrentOperationCount = limit
            let from = context.trace.nextSequence
            let started = Locked<[Int]>([])
            context.say(Localized("\(part)) maxConcurrentOperationCount = \(limit): \(count) operations",
                                  ja: "\(part)) maxConcurrentOperationCount = \(limit): オペレーション \(count) 個"))
            context.trace.record(Localized("limit \(limit)", ja: "上限 \(limit)"))
            let operations = (1...count).map { index in
                BlockOperation {
                    started.withLock { $0.append(index) }
                    let lane = context.trace.currentThreadLane()
                    context.trace.span("op\(index)", lane: lane) { spin(microseconds: 2_000) }
                }
            }
            queue.addOperations(operations, waitUntilFinished: false)
            try waitForAll(in: queue, Localized("the operations did not finish", ja: "オペレーションが終わりませんでした"))
            withExtendedLifetime(operations) {}

            let isOperation: (String) -> Bool = { $0.hasPrefix("op") }
            let peak = context.trace.peakOverlap(from: from, where: isOperation)
            let threads = context.trace.lanes(from: from, where: isOperation)
            let order = started.current.map(String.init).joined(separator: " ")
            context.note("peak \(part)", String(peak))
            context.note("start order \(part)", order)
            context.say(Localized(
                "  Peak in flight: \(peak) (limit \(limit)), on \(threads.count) thread(s). Started in the order: \(order).",
                ja: "  同時実行の最大: \(peak) 個（上限 \(limit)）、スレッド \(threads.count) 本。始まった順番: \(order)"))
            if part == 2 && peak < min(limit, count) {
                context.say(Localized(
                    "  Fewer than the limit overlapped: GCD lent this queue only \(peak) thread(s) at a time here (\(ProcessInfo.processInfo.activeProcessorCount) cores).",
                    ja: "  上限より少ない数しか重なりませんでした。ここでは GCD がこのキューに一度に \(peak) 本のスレッドしか貸さなかったのです（コア数 \(ProcessInfo.processInfo.activeProcessorCount)）。"))
            }
        }
    }
}
