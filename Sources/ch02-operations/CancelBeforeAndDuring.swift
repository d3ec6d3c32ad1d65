import Foundation
import WorkbookCore

extension Chapter02 {
    /// `cancel()` only sets a flag. Before `start`, the queue honours it by skipping `main()`;
    /// during `main()`, only the operation itself can honour it, by checking `isCancelled`.
    static let cancelBeforeAndDuring = Scenario(
        slug: "cancel-before-and-during",
        title: Localized("Cancel before start vs cancel during main()", ja: "開始前のキャンセルと main() 実行中のキャンセル"),
        narration: Localized(
            """
            Part one: C depends on B, and B depends on A. While A is running, the caller cancels B, which has not started. \
            The queue still starts B, but `start()` sees `isCancelled` and skips `main()`: B becomes finished without doing its work. \
            Being finished is all C waits for, so C runs; it cannot tell that B did nothing unless it looks at `dependencies` and their `isCancelled`. \
            Also watch when: a cancelled operation stops waiting for its own dependencies, so B finishes, and C runs, while A is still going. \
            Part two cancels two operations in the middle of their `main()`: each does `steps` steps, and after the first step both are cancelled. \
            The polling one checks `isCancelled` before every step and stops; the other one never looks, and does every remaining step, wasting the time and producing a result nobody wants. \
            Nothing interrupts a running operation: cancellation is cooperative.
            """,
            ja: """
            パート 1: C は B に、B は A に依存しています。A の実行中に、呼び出し元はまだ始まっていない B をキャンセルします。\
            キューは B を始めますが、`start()` は `isCancelled` を見て `main()` を飛ばすので、B は何も処理せずに終了（`isFinished`）します。\
            C が待っているのは終了（`isFinished`）することだけなので、C は動きます。B が何もしなかったことは、`dependencies` とその `isCancelled` を見ない限り C にはわかりません。\
            タイミングにも注目してください。キャンセルされたオペレーションは自分の依存先を待つのをやめるので、A がまだ動いているうちに B が終わり、C が動きます。\
            パート 2 は `main()` の途中で 2 つのオペレーションをキャンセルします。どちらも `steps` 個のステップを実行し、最初のステップの後で両方ともキャンセルされます。\
            ポーリングする方はステップごとに `isCancelled` を確かめて止まります。もう一方は一度も見ないので残りのステップを全部実行し、時間を無駄にして誰も必要としない結果を作ります。\
            実行中のオペレーションを中断するものは何もありません。キャンセルは協調的なものです。
            """),
        knobs: [
            .init("steps", default: 8, range: 2...50, help: Localized("steps in each operation of part two", ja: "パート 2 の各オペレーションのステップ数")),
        ]
    ) { context in
        try await blocking {
            try runCancelBeforeStart(context)
            try runCancelDuringMain(context)
        }
    }

    /// Part one: cancel B (which depends on A) while A runs; C depends on B.
    private static func runCancelBeforeStart(_ context: ScenarioContext) throws {
        context.say(Localized("1) A → B → C (C depends on B, B on A). Cancel B while A runs:",
                              ja: "1) A → B → C（C は B に、B は A に依存）。A の実行中に B をキャンセル:"))
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        let aStarted = DispatchSemaphore(value: 0), releaseA = DispatchSemaphore(value: 0)
        let bMainRan = Locked(false)
        let a = BlockOperation {
            let lane = context.trace.currentThreadLane()
            context.trace.span("A", lane: lane) {
                aStarted.signal()
                _ = releaseA.wait(timeout: .now() + 5)  // held until the caller has seen what C does
            }
            context.printLine(Localized("A ends", ja: "A が終わる"), lane: lane)
        }
        let b = BlockOperation {
            bMainRan.withLock { $0 = true }
            context.trace.span("B", lane: context.trace.currentThreadLane()) { spin(microseconds: 500) }
        }
        let c = BlockOperation {
            let lane = context.trace.currentThreadLane()
            context.trace.span("C", lane: lane) { spin(microseconds: 500) }
            context.printLine(Localized("C runs", ja: "C が動く"), lane: lane)
        }
        b.addDependency(a)
        c.addDependency(b)
        let operations = [a, b, c]
        context.trace.record(Localized("add A, B, C", ja: "A, B, C を追加"), lane: caller)
        queue.addOperations(operations, waitUntilFinished: false)
        defer { releaseA.signal() }  // never leave A held, whatever happens below
        try wait(for: aStarted, Localized("A did not start", ja: "A が始まりませんでした"))

        context.emit(Localized("cancel B", ja: "B をキャンセル"), lane: caller)
        b.cancel()
        // C may run as soon as B counts as finished; give it a moment before A is let go.
        let cRanWhileAHeld = finishes(c, within: 2)
        releaseA.signal()
        try waitForAll(in: queue, Localized("A, B and C did not finish", ja: "A、B、C が終わりませんでした"))
        withExtendedLifetime(operations) {}

        context.note("cancelled main ran", String(bMainRan.current))
        context.note("dependant ran", String(c.isFinished && context.trace.sequence(of: .begin, "C") != nil))
        context.note("dependant ran before A ended", String(cRanWhileAHeld))
        context.say(Localized(
            "  B: isCancelled=\(b.isCancelled) isFinished=\(b.isFinished), main() ran: \(bMainRan.current).",
            ja: "  B: isCancelled=\(b.isCancelled) isFinished=\(b.isFinished)、main() の実行: \(bMainRan.current)"))
        context.say(cRanWhileAHeld
            ? Localized("  C ran while A was still running: the cancelled B stopped waiting for A, finished at once, and released C.",
                        ja: "  C は A がまだ動いている間に動きました。キャンセルされた B は A を待つのをやめてすぐに終わり、C を解き放ったのです。")
            : Localized("  C did not run while A was held: here the cancelled B still waited for A.",
                        ja: "  A を止めている間、C は動きませんでした。ここではキャンセルされた B もまだ A を待っていました。"))
    }

    /// Part two: two operations cancelled after their first step; one polls `isCancelled`.
    private static func runCancelDuringMain(_ context: ScenarioContext) throws {
        let steps = context.knob("steps")
        context.say(Localized("2) Two operations of \(steps) steps, both cancelled after step 1:",
                              ja: "2) \(steps) ステップのオペレーション 2 つを、どちらもステップ 1 の後でキャンセル:"))
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        let started = DispatchSemaphore(value: 0), cancelled = DispatchSemaphore(value: 0)
        let polling = SteppingOperation(label: Localized("polling", ja: "確かめる側"), polls: true, steps: steps, context: context, started: started, cancelled: cancelled)
        let ignoring = SteppingOperation(label: Localized("not polling", ja: "確かめない側"), polls: false, steps: steps, context: context, started: started, cancelled: cancelled)
        let operations = [polling, ignoring]
        context.trace.record(Localized("add both", ja: "2 つとも追加"), lane: caller)
        queue.addOperations(operations, waitUntilFinished: false)
        defer { cancelled.signal(); cancelled.signal() }  // never leave them waiting
        try wait(for: started, Localized("the first operation did not start", ja: "1 つ目のオペレーションが始まりませんでした"))
        try wait(for: started, Localized("the second operation did not start", ja: "2 つ目のオペレーションが始まりませんでした"))

        context.emit(Localized("cancel both", ja: "2 つともキャンセル"), lane: caller)
        polling.cancel()
        ignoring.cancel()
        cancelled.signal()
        cancelled.signal()
        try waitForAll(in: queue, Localized("the operations did not finish", ja: "オペレーションが終わりませんでした"))
        withExtendedLifetime(operations) {}

        for operation in operations {
            let after = operation.stepsAfterCancel
            context.note("\(operation.label.en) steps after cancel", String(after))
            context.say(Localized(
                "  \(operation.label.en): \(after) of \(steps) steps done after cancel(); isCancelled=\(operation.isCancelled) isFinished=\(operation.isFinished).",
                ja: "  \(operation.label.ja): cancel() の後に実行したステップ \(after) / \(steps)、isCancelled=\(operation.isCancelled) isFinished=\(operation.isFinished)"))
        }
    }
}

/// Does `steps` steps of work. After the first step it tells the caller it has started and
/// waits until the caller has cancelled it, so every run cancels at the same point.
///
/// The cooperative way is `if isCancelled { return }` before each step (`polls: true`); the
/// other way never looks, and cancelling it changes nothing.
private final class SteppingOperation: Operation, @unchecked Sendable {  // settings immutable; the count behind Locked
    let label: Localized
    private let polls: Bool
    private let steps: Int
    private let context: ScenarioContext
    private let started: DispatchSemaphore
    private let cancelled: DispatchSemaphore
    private let afterCancel = Locked(0)

    init(label: Localized, polls: Bool, steps: Int, context: ScenarioContext, started: DispatchSemaphore, cancelled: DispatchSemaphore) {
        self.label = label
        self.polls = polls
        self.steps = steps
        self.context = context
        self.started = started
        self.cancelled = cancelled
    }

    /// How many steps ran after the caller's `cancel()`.
    var stepsAfterCancel: Int { afterCancel.current }

    override func main() {
        let lane = context.trace.currentThreadLane()
        context.trace.begin(label, lane: lane)
        defer { context.trace.end(label, lane: lane) }
        for step in 1...steps {
            if polls && isCancelled {
                context.printLine(Localized("\(label.en): isCancelled is true before step \(step), return",
                                            ja: "\(label.ja): ステップ \(step) の前で isCancelled が true なので戻る"), lane: lane)
                return
            }
            spin(microseconds: 500)
            if step == 1 {
                started.signal()
                _ = cancelled.wait(timeout: .now() + 5)
            } else {
                afterCancel.withLock { $0 += 1 }
            }
        }
        context.printLine(Localized("\(label.en): all \(steps) steps done", ja: "\(label.ja): \(steps) ステップすべて終了"), lane: lane)
    }
}
