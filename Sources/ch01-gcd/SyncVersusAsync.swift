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
            `queue.sync` waits until the block has run, so the sync part prints A B C, every time. \
            Look at the lane of B: `sync` usually runs the block right on the caller's own thread, because the caller is waiting anyway. \
            `queue.async` returns at once and the block runs later on a pool thread. What is guaranteed is only that A comes first: \
            B and C are printed by two threads that nothing orders, so both A B C and A C B happen. \
            Which one is more frequent depends on how busy the machine is, not on the code, so the tally at the end \
            repeats the async part silently and counts both; neither is wrong.
            """,
            ja: """
            呼び出し元は A を表示し、B を表示するブロックをシリアルキューに渡してから C を表示します（最初は `sync`、次に `async`）。\
            `queue.sync` はブロックの実行が終わるまで待つので、sync の部分は毎回 A B C になります。\
            B のレーンに注目してください。呼び出し元はどうせ待つので、`sync` はブロックを呼び出し元のスレッドでそのまま実行することが多いのです。\
            `queue.async` はすぐに戻り、ブロックはあとでプールのスレッドで動きます。保証されているのは A が最初であることだけです。\
            B と C は順序の決まっていない 2 本のスレッドが表示するので、A B C も A C B も起こります。\
            どちらが多いかはコードではなくマシンの混み具合で決まるので、最後の集計では async の部分を表示せずに繰り返し、両方を数えます。どちらも間違いではありません。
            """),
        prediction: .init(
            question: Localized(
                "ASYNC part: the caller prints A, calls queue.async { print B }, then prints C. In what order do the letters print?",
                ja: "async の部分: 呼び出し元が A を表示し、queue.async { B を表示 } を呼び、C を表示します。表示の順番は？"),
            explanation: Localized(
                "Only A first is guaranteed. async returns at once, so the caller's C and the block's B run on two threads that nothing orders: ACB and ABC are both correct answers, and the tally shows how often each happened here. (With sync, B always comes before C: ABC.)",
                ja: "保証されているのは A が最初であることだけです。async はすぐに戻るので、呼び出し元の C とブロックの B は順序の決まっていない 2 本のスレッドで動きます。ACB も ABC も正解で、ここでそれぞれどのくらい起きたかは集計でわかります。（sync なら B は必ず C より前、つまり ABC です。）"),
            observe: { $0.noted("async") ?? "" },
            isPossible: { $0 == "ABC" || $0 == "ACB" })
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
            ? Localized("  B ran on \(blockLane), the caller's own thread.", ja: "  B は呼び出し元と同じスレッド \(blockLane) で実行されました。")
            : Localized("  B ran on \(blockLane); the caller (\(callerLane)) waited.", ja: "  B は \(blockLane) で実行され、呼び出し元（\(callerLane)）は待っていました。"))

        context.say(Localized("async:", ja: "async:"))
        let group = DispatchGroup()
        let asyncOrder = Locked<[String]>([])
        @Sendable func printAsyncLetter(_ letter: String) {
            asyncOrder.withLock { $0.append(letter) }
            context.emit(letter)
        }
        printAsyncLetter("A")
        queue.async(group: group) { printAsyncLetter("B") }
        printAsyncLetter("C")
        try wait(for: group, Localized("the async block did not run", ja: "async のブロックが実行されませんでした"))
        context.trace.record(Localized("waited for the group", ja: "グループを待った").text(context.language))
        context.note("async", asyncOrder.current.joined())

        // The async part again, silently, many times: how often does B beat C?
        let runs = 1000
        var tally = OutcomeTally { ["ABC", "ACB"].contains($0) ? .acceptable : .forbidden }
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
