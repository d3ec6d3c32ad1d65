import Dispatch
import WorkbookCore

extension Chapter01 {
    /// `suspend()` stops a queue from starting new blocks; it does not interrupt the running one.
    static let suspendResume = Scenario(
        slug: "suspend-resume",
        title: Localized("suspend and resume a queue", ja: "キューの一時停止と再開（`suspend()`/`resume()`）"),
        narration: Localized(
            """
            Block 1 on a serial queue prints A, waits for the caller's signal, then prints B. \
            While it runs, the caller suspends the queue, submits block 2 (which prints C), and prints S. \
            Then it lets block 1 finish, waits for it, prints R, and resumes the queue. \
            `suspend()` does not interrupt a block that is already running: block 1 still prints B. \
            It only keeps the queue from starting the next block, so C cannot appear before R, even though block 2 was queued long before. \
            Semaphores, not sleeps, make every step wait for the one before it, so the order is the same on every run. \
            Every `suspend()` needs a matching `resume()`; releasing a suspended queue is a crash.
            """,
            ja: """
            シリアルキューのブロック 1 は A を表示し、呼び出し元の合図を待ってから B を表示します。\
            その間に呼び出し元はキューを一時停止（`suspend()`）し、ブロック 2（C を表示）を投入して S を表示します。\
            続いてブロック 1 を終わらせてその終了を待ち、R を表示してからキューを再開（`resume()`）します。\
            `suspend()` は実行中のブロックを中断しないので、ブロック 1 はそれでも B を表示します。\
            止めるのは次のブロックの開始だけなので、ブロック 2 がずっと前からキューに入っていても、C が R より先に出ることはありません。\
            スリープではなくセマフォで各ステップが前のステップを待つので、順番は毎回同じです。\
            `suspend()` には必ず対になる `resume()` が必要で、一時停止したままのキューを解放するとクラッシュします。
            """),
        prediction: .init(
            question: Localized(
                "Block 1 prints A, waits, prints B. Meanwhile the caller suspends the queue, submits block 2 (prints C), prints S, lets block 1 finish and waits for it, prints R, then resumes. Order?",
                ja: "ブロック 1 は A を表示し、待ってから B を表示します。その間に呼び出し元はキューを一時停止（suspend()）し、ブロック 2（C を表示）を投入して S を表示、ブロック 1 を終わらせてその終了を待ち、R を表示してから再開（resume()）します。表示の順番は？"),
            explanation: Localized(
                "A S B R C, every time. suspend() lets the running block 1 finish (B), but keeps block 2 from starting until resume(), which comes after R.",
                ja: "毎回 A S B R C です。suspend() は実行中のブロック 1 を最後まで走らせます（B）が、ブロック 2 は resume() まで始まりません。resume() は R の後です。"),
            isPossible: { $0 == "ASBRC" })
    ) { context in
        try await blocking { try runSuspendResume(context) }
    }

    private static func runSuspendResume(_ context: ScenarioContext) throws {
        let queue = DispatchQueue(label: "workbook.suspendable")
        let blockOneStarted = DispatchSemaphore(value: 0)
        let blockOneMayFinish = DispatchSemaphore(value: 0)
        let blockOneFinished = DispatchSemaphore(value: 0)
        let blockTwoFinished = DispatchSemaphore(value: 0)
        let caller = context.trace.currentThreadLane()
        let queueLane = context.text(Localized("queue", ja: "キュー"))  // the queue's state, drawn as a lane of its own
        let suspended = Localized("suspended", ja: "一時停止中")
        /// A little work between steps, only so the timeline spreads them out.
        @Sendable func work() { spin(microseconds: 300) }

        queue.async {
            let lane = context.trace.currentThreadLane()
            context.trace.span(Localized("block 1", ja: "ブロック 1"), lane: lane) {
                context.emit("A", lane: lane)
                blockOneStarted.signal()
                blockOneMayFinish.wait()
                work()
                context.emit("B", lane: lane)
            }
            blockOneFinished.signal()
        }
        try wait(for: blockOneStarted, Localized("block 1 did not start", ja: "ブロック 1 が始まりませんでした"))

        work()
        queue.suspend()
        var resumed = false
        defer { if !resumed { queue.resume() } }  // a queue released while suspended is a crash
        context.trace.begin(suspended, lane: queueLane)
        queue.async {
            context.emit("C")
            blockTwoFinished.signal()
        }
        context.emit("S", lane: caller)
        work()
        blockOneMayFinish.signal()
        try wait(for: blockOneFinished, Localized("block 1 did not finish", ja: "ブロック 1 が終わりませんでした"))
        work()
        context.emit("R", lane: caller)
        context.trace.end(suspended, lane: queueLane)
        queue.resume()
        resumed = true
        try wait(for: blockTwoFinished, Localized("block 2 did not run after resume()", ja: "resume() の後もブロック 2 が実行されませんでした"))
    }
}
