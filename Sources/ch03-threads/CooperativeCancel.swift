import Foundation
import WorkbookCore

extension Chapter03 {
    /// `cancel()` on a thread only sets a flag; the thread stops only if its code looks at it.
    static let cooperativeCancel = Scenario(
        slug: "cooperative-cancel",
        title: Localized("Cancellation is cooperative", ja: "キャンセルは協調的"),
        narration: Localized(
            """
            Two threads run the same loop of `steps` steps (about 0.3 ms of work each). \
            After both have done step 1, the caller (T1) calls `cancel()` on both thread objects, and only then lets them go on. \
            The polling thread asks `Thread.current.isCancelled` before each step and returns as soon as it is true; the other never asks. \
            `cancel()` does not stop, interrupt or wake a thread: it sets `isCancelled`, and that is all. \
            So the polling thread stops after step 1, and the other runs every step, to the end, with `isCancelled` true the whole time. \
            The same holds for `Operation` (chapter 02) and, in spirit, for Swift tasks (chapter 04): cancellation is a request that the work itself must check, at points where stopping is safe. \
            A thread blocked in `sleep` or in a lock or condition wait does not see the flag until it wakes up.
            """,
            ja: """
            2 本のスレッドが、同じ `steps` ステップのループ（1 ステップあたり約 0.3 ms の処理）を実行します。\
            両方がステップ 1 を終えたところで、呼び出し元（T1）が両方のスレッドオブジェクトに `cancel()` を呼び、それから先へ進ませます。\
            確かめる側のスレッドは各ステップの前に `Thread.current.isCancelled` を見て、true ならすぐに戻ります。もう一方は一度も見ません。\
            `cancel()` はスレッドを止めることも、中断することも、起こすこともしません。`isCancelled` を立てる、それだけです。\
            そのため確かめる側はステップ 1 の後で止まり、もう一方は `isCancelled` が true のまま最後のステップまで実行します。\
            `Operation`（第 02 章）も同じで、Swift のタスク（第 04 章）も考え方は同じです。キャンセルは要求であって、止まっても安全な箇所で処理の側が自分で確かめなければなりません。\
            `sleep` やロック・条件変数の待ちで止まっているスレッドは、起床するまでフラグに気づきません。
            """),
        knobs: [
            .init("steps", default: 8, range: 2...50, help: Localized("steps in each thread's loop", ja: "各スレッドのループのステップ数")),
        ]
    ) { context in
        try await blocking { try runCooperativeCancel(context) }
    }

    private static func runCooperativeCancel(_ context: ScenarioContext) throws {
        let steps = context.knob("steps")
        let caller = context.trace.currentThreadLane()
        let stuck = Localized("a thread did not end", ja: "スレッドが終わりませんでした")
        let go = DispatchSemaphore(value: 0)

        /// Starts a thread that runs `steps` steps, checking `isCancelled` before each one if `polls`.
        func worker(polls: Bool, stepDone: Locked<Int>, firstStepDone: DispatchSemaphore) -> StartedThread {
            // The lane says which thread it is; its steps are drawn as spans named by number.
            let name = polls ? Localized("polling", ja: "確かめる側") : Localized("not polling", ja: "確かめない側")
            return StartedThread {
                let lane = context.trace.currentThreadLane()
                context.trace.record(name, lane: lane)
                for step in 1...steps {
                    if polls && Thread.current.isCancelled {
                        context.printLine(Localized("isCancelled is true before step \(step): return",
                                                    ja: "ステップ \(step) の前で isCancelled が true: 戻る"), lane: lane)
                        context.trace.record(Localized("return", ja: "戻る"), lane: lane)
                        return
                    }
                    context.trace.span("\(step)", lane: lane) { spin(microseconds: 300) }
                    stepDone.withLock { $0 = step }
                    if step == 1 {
                        firstStepDone.signal()
                        _ = go.wait(timeout: .now() + 5)  // the caller cancels before step 2
                    }
                }
                context.printLine(Localized("all \(steps) steps done", ja: "\(steps) ステップすべて終了"), lane: lane)
            }
        }

        let pollingSteps = Locked(0), ignoringSteps = Locked(0)
        let pollingReady = DispatchSemaphore(value: 0), ignoringReady = DispatchSemaphore(value: 0)
        context.trace.record(Localized("start both", ja: "2 本とも開始"), lane: caller)
        let polling = worker(polls: true, stepDone: pollingSteps, firstStepDone: pollingReady)
        let ignoring = worker(polls: false, stepDone: ignoringSteps, firstStepDone: ignoringReady)
        defer { go.signal(); go.signal() }  // never leave a thread waiting
        try wait(for: pollingReady, stuck)
        try wait(for: ignoringReady, stuck)

        polling.thread.cancel()
        ignoring.thread.cancel()
        context.emit(Localized("cancel both", ja: "2 本ともキャンセル"), lane: caller)
        go.signal()
        go.signal()
        try polling.join(stuck)
        try ignoring.join(stuck)

        let polled = pollingSteps.current, ignored = ignoringSteps.current
        context.note("polling steps", String(polled))
        context.note("not polling steps", String(ignored))
        context.say(Localized(
            """
            polling: \(polled) of \(steps) steps done, \(polled - 1) after cancel().
            not polling: \(ignored) of \(steps) steps done, \(ignored - 1) after cancel(); isCancelled = \(ignoring.thread.isCancelled) all along.
            """,
            ja: """
            確かめる側: \(steps) ステップ中 \(polled) ステップを実行、cancel() の後は \(polled - 1) ステップ。
            確かめない側: \(steps) ステップ中 \(ignored) ステップを実行、cancel() の後は \(ignored - 1) ステップ。その間ずっと isCancelled = \(ignoring.thread.isCancelled)。
            """))
    }
}
