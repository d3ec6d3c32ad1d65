import Dispatch
import WorkbookCore

extension Chapter01 {
    /// `sync` returns after the block has run; `async` returns at once and the block runs later.
    static let syncVersusAsync = Scenario(
        slug: "sync-vs-async",
        title: Localized("sync vs async", ja: "sync と async"),
        narration: Localized(
            """
            The caller prints A, hands a block that prints B to a serial queue, then prints C — first with `sync`, then with `async`. \
            `queue.sync` waits until the block has run, so the sync part always prints A B C. \
            Look at the lane of B: `sync` usually runs the block right on the caller's own thread, because the caller is waiting anyway. \
            `queue.async` returns at once, so C usually comes before B (A C B), and B runs on a pool thread. \
            Usually is not always: a free core may start B before the caller prints C. \
            The tally at the end repeats the async part silently and counts both orders.
            """,
            ja: """
            呼び出し側は A を表示し、B を表示するブロックをシリアルキューに渡してから C を表示します（最初は `sync`、次に `async`）。\
            `queue.sync` はブロックの実行が終わるまで待つので、sync の部分は必ず A B C になります。\
            B のレーンに注目してください。呼び出し側はどうせ待つので、`sync` はブロックを呼び出し側のスレッドでそのまま実行することが多いのです。\
            `queue.async` はすぐに戻るので、たいていは B より先に C が表示され（A C B）、B はプールのスレッドで動きます。\
            ただし「たいてい」は「必ず」ではなく、空いているコアがあれば呼び出し側が C を表示する前に B が始まることもあります。\
            最後の集計では async の部分を黙って繰り返し、両方の順番を数えます。
            """),
        prediction: .init(
            question: Localized(
                "SYNC part: the caller prints A, calls queue.sync { print B }, then prints C. In what order do the letters print?",
                ja: "sync の部分: 呼び出し側が A を表示し、queue.sync { B を表示 } を呼び、C を表示します。表示の順番は？"),
            explanation: Localized(
                "sync does not return until the block has finished, so B is printed before the caller can print C: ABC, every time. (With async, C usually comes first, but not always.)",
                ja: "sync はブロックが終わるまで戻らないので、呼び出し側が C を表示する前に B が表示されます。毎回 ABC です。（async なら C が先になることが多いですが、必ずではありません。）"),
            observe: { $0.noted("sync") ?? "" },
            isPossible: { $0 == "ABC" })
    ) { context in
        try await blocking { try runSyncVersusAsync(context) }
    }

    private static func runSyncVersusAsync(_ context: ScenarioContext) throws {
        let queue = DispatchQueue(label: "workbook.sync-async")

        context.say(Localized("sync:", ja: "sync:"))
        let syncOrder = Locked<[String]>([])
        func printLetter(_ letter: String) {  // what the lesson's code would `print`
            syncOrder.withLock { $0.append(letter) }
            context.emit(letter)
        }
        let callerLane = context.trace.currentThreadLane()
        printLetter("A")
        let blockLane = queue.sync {
            printLetter("B")
            return context.trace.currentThreadLane()
        }
        printLetter("C")
        context.note("sync", syncOrder.current.joined())
        context.say(blockLane == callerLane
            ? Localized("  B ran on \(blockLane), the caller's own thread.", ja: "  B は呼び出し側と同じスレッド \(blockLane) で実行されました。")
            : Localized("  B ran on \(blockLane); the caller (\(callerLane)) waited.", ja: "  B は \(blockLane) で実行され、呼び出し側（\(callerLane)）は待っていました。"))

        context.say(Localized("async:", ja: "async:"))
        let group = DispatchGroup()
        context.emit("A")
        queue.async(group: group) { context.emit("B") }
        context.emit("C")
        try wait(for: group, Localized("the async block did not run", ja: "async のブロックが実行されませんでした"))
        context.trace.record(Localized("waited for the group", ja: "グループを待った").text(context.language))

        // The async part again, silently, many times: how often does B beat C?
        let runs = 1000
        var tally = OutcomeTally { $0 == "ACB" ? .acceptable : .interesting }
        for _ in 0..<runs {
            let order = Locked<[String]>(["A"])
            let done = DispatchGroup()
            queue.async(group: done) { order.withLock { $0.append("B") } }
            order.withLock { $0.append("C") }
            try wait(for: done, Localized("the async block did not run", ja: "async のブロックが実行されませんでした"))
            tally.record(order.current.joined())
        }
        context.say(Localized("The async part \(runs) times:", ja: "async の部分を \(runs) 回:"))
        context.show(tally.render(terminal: context.terminal, language: context.language))
    }
}
