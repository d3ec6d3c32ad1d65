import Dispatch
import WorkbookCore

extension Chapter01 {
    /// A serial queue runs its blocks one at a time, first in first out; a concurrent queue may
    /// start them together, and then they finish in any order.
    static let serialVersusConcurrent = Scenario(
        slug: "serial-vs-concurrent",
        title: Localized("Serial vs concurrent queues", ja: "シリアルキューとコンカレントキュー"),
        narration: Localized(
            """
            The same three blocks go first to a serial queue, then to a concurrent queue, each with `async`. \
            A works longest (3 ms), B 2 ms, C 1 ms, and each prints its letter when it finishes. \
            A serial queue starts a block only after the previous one has finished, in submission order (FIFO): \
            it always prints A B C, and its spans on the timeline lie end to end. \
            A concurrent queue may start all three at once, so the shorter blocks finish first: \
            the letters come out in any order and the spans overlap on different threads (T2, T3, …). \
            How many overlap is capped by the cores GCD lets the queue use. Run it a few times and compare the lanes.
            """,
            ja: """
            同じ 3 つのブロックを、まずシリアルキューに、次にコンカレントキューに `async` で投入します。\
            A が一番長く（3 ms）、B は 2 ms、C は 1 ms の処理を行い、終わったときに自分の文字を表示します。\
            シリアルキューは前のブロックが終わってから次のブロックを、投入した順（FIFO）に 1 つずつ実行します。\
            そのため表示は必ず A B C になり、タイムラインのバーも一列に並びます。\
            コンカレントキューは 3 つを同時に始めてよいので、短いブロックが先に終わります。\
            文字の順番は決まらず、バーは別々のスレッド（T2、T3 …）で重なります。\
            同時にいくつ重なるかは、GCD がそのキューに使わせるコア数で頭打ちになります。何度か実行して、レーンを見比べてください。
            """),
        prediction: .init(
            question: Localized(
                "In what order do A, B, C print on the SERIAL queue? (A works 3 ms, B 2 ms, C 1 ms)",
                ja: "シリアルキューでは A, B, C はどの順番で表示されるでしょう？（処理時間は A が 3 ms、B が 2 ms、C が 1 ms です）"),
            explanation: Localized(
                "A serial queue starts a block only when the one before it has finished, in the order they were submitted. How long each block works does not matter: ABC is the only possible order.",
                ja: "シリアルキューは前のブロックが終わってから、投入された順に次のブロックを始めます。各ブロックの長さは関係なく、ABC 以外の順番はあり得ません。"),
            observe: { $0.noted("serial") ?? "" },
            isPossible: { $0 == "ABC" })
    ) { context in
        try await blocking { try runSerialVersusConcurrent(context) }
    }

    /// The blocks of the lesson: a letter and how long its work takes, longest first.
    private static let lettersAndWork: [(letter: String, microseconds: Int)] = [("A", 3_000), ("B", 2_000), ("C", 1_000)]

    private static func runSerialVersusConcurrent(_ context: ScenarioContext) throws {
        let serial = DispatchQueue(label: "workbook.serial")
        let concurrent = DispatchQueue(label: "workbook.concurrent", attributes: .concurrent)

        context.say(Localized("Serial queue: async A, B, C", ja: "シリアルキュー: A, B, C を async で投入"))
        context.trace.record(Localized("serial queue", ja: "シリアルキュー"))
        let serialOrder = try submitLetters(to: serial, context)
        context.note("serial", serialOrder)

        context.say(Localized("Concurrent queue: the same A, B, C", ja: "コンカレントキュー: 同じ A, B, C を投入"))
        context.trace.record(Localized("concurrent queue", ja: "コンカレントキュー"))
        let concurrentOrder = try submitLetters(to: concurrent, context)
        context.note("concurrent", concurrentOrder)

        context.say(Localized(
            "Finished in order: serial \(serialOrder), concurrent \(concurrentOrder).",
            ja: "終わった順番: シリアル \(serialOrder)、コンカレント \(concurrentOrder)。"))
    }

    /// Submits A, B, C with `async`, waits for all three, and returns the order they finished in.
    private static func submitLetters(to queue: DispatchQueue, _ context: ScenarioContext) throws -> String {
        let finished = Locked<[String]>([])
        let group = DispatchGroup()
        for (letter, work) in lettersAndWork {
            queue.async(group: group) {
                let lane = context.trace.currentThreadLane()
                context.trace.span(letter, lane: lane) {
                    spin(microseconds: work)
                    // Print the letter as the block ends, and remember it under the same lock so
                    // the printed order is the recorded one.
                    finished.withLock { order in
                        order.append(letter)
                        context.printLine(letter, lane: lane)
                    }
                }
            }
        }
        try wait(for: group, Localized("the blocks did not finish", ja: "ブロックが終わりませんでした"))
        return finished.current.joined()
    }
}
