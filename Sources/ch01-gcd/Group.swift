import Dispatch
import WorkbookCore

extension Chapter01 {
    /// DispatchGroup: `notify` runs once, after the last `leave`; `wait(timeout:)` blocks the caller.
    static let group = Scenario(
        slug: "group",
        title: Localized("DispatchGroup: notify and wait", ja: "DispatchGroup: notify と wait"),
        narration: Localized(
            """
            A group counts unfinished work: `enter()` adds one, `leave()` takes one away. \
            Each of `tasks` blocks enters before it is submitted and leaves when its (differently long) work is done. \
            `notify(queue:)` registers a block that runs once, on its queue, as soon as the count drops to zero: \
            on the timeline, `notify` comes after the end of the last task, whichever task that was. \
            `wait()` does the same by blocking the calling thread, which is fine on a thread of your own and wrong on the main thread. \
            Part two shows `wait(timeout:)` giving up: a held task keeps the group busy, so a 5 ms wait returns `.timedOut`; \
            once the task is released, the next wait returns `.success`. \
            Every `enter()` needs exactly one `leave()`: one too few and notify never runs; one too many is a crash.
            """,
            ja: """
            グループは終わっていない処理の数を数えます。`enter()` で 1 増え、`leave()` で 1 減ります。\
            `tasks` 個のブロックはそれぞれ投入前に `enter()` し、（長さの異なる）処理が終わったら `leave()` します。\
            `notify(queue:)` で登録したブロックは数がゼロになった時点で、指定したキューで 1 回だけ実行されます。タイムラインでは、どのタスクが最後であっても、`notify` はその終わりより後に来ます。\
            `wait()` は呼び出し元のスレッドをブロックして同じことをします（自分で作ったスレッドなら問題ありませんが、メインスレッドでは禁物です）。\
            パート 2 では `wait(timeout:)` が待つのをあきらめる様子を見せます。止めてあるタスクがあるのでグループの数はゼロにならず、5 ms の `wait(timeout:)` は `.timedOut` を返します。\
            タスクを解放すると、次の wait は `.success` を返します。\
            `enter()` には `leave()` がちょうど 1 回必要で、足りなければ notify は永遠に動かず、多すぎるとクラッシュします。
            """),
        knobs: [
            .init("tasks", default: 5, range: 1...50, help: Localized("blocks in the group", ja: "グループに入れるブロックの数")),
        ]
    ) { context in
        try await blocking { try runGroup(context) }
    }

    private static func runGroup(_ context: ScenarioContext) throws {
        let tasks = context.knob("tasks")
        let caller = context.trace.currentThreadLane()
        let group = DispatchGroup()
        let notifications = Locked(0)
        let notified = DispatchSemaphore(value: 0)

        context.say(Localized("1) \(tasks) tasks, enter/leave, notify and wait:", ja: "1) \(tasks) 個のタスク、enter/leave、notify と wait:"))
        context.trace.record(Localized("submit", ja: "投入"), lane: caller)
        for index in 1...tasks {
            group.enter()
            DispatchQueue.global().async {
                let lane = context.trace.currentThreadLane()
                context.trace.span(Localized("task \(index)", ja: "タスク \(index)"), lane: lane) { spin(microseconds: 500 * (1 + index % 3)) }
                context.printLine(Localized("task \(index) leaves", ja: "タスク \(index) が leave()"), lane: lane)
                group.leave()
            }
        }
        group.notify(queue: .global()) {
            notifications.withLock { $0 += 1 }
            context.emit("notify")
            notified.signal()
        }
        let waited = group.wait(timeout: .now() + 5)
        context.emit(waited == .success ? Localized("wait returned", ja: "wait から戻った") : Localized("wait timed out", ja: "wait が時間切れ"), lane: caller)
        try wait(for: notified, Localized("notify never ran", ja: "notify が実行されませんでした"))

        // Check the lesson on the trace: notify ran once, after the end of every task.
        let events = context.trace.events
        let lastTaskEnd = events.filter { $0.kind == .end && $0.label.hasPrefix("task ") }.map(\.sequence).max() ?? -1
        let notifyEvents = events.filter { $0.kind == .point && $0.label == "notify" }
        let notifyAfterLastLeave = notifyEvents.allSatisfy { $0.sequence > lastTaskEnd }
        context.note("notifications", String(notifications.current))
        context.note("notify after last leave", String(notifyAfterLastLeave))
        context.say(Localized(
            "notify ran \(notifications.current) time(s), \(notifyAfterLastLeave ? "after" : "NOT after") the last task ended.",
            ja: "notify は \(notifications.current) 回、最後のタスクが終わった\(notifyAfterLastLeave ? "後に" : "後ではなく")実行されました。"))

        // Part two: a wait that times out, then one that succeeds.
        context.say(Localized("2) wait(timeout:) while a task is held:", ja: "2) タスクを止めたまま wait(timeout:):"))
        let held = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        held.enter()
        DispatchQueue.global().async {
            let lane = context.trace.currentThreadLane()
            context.trace.span(Localized("held task", ja: "止めたタスク"), lane: lane) { release.wait() }
            held.leave()
        }
        let first = held.wait(timeout: .now() + .milliseconds(5))
        context.emit("wait(5 ms) → \(first == .success ? ".success" : ".timedOut")", lane: caller)
        release.signal()
        let second = held.wait(timeout: .now() + 5)
        context.emit("wait() → \(second == .success ? ".success" : ".timedOut")", lane: caller)
        context.note("held waits", "\(first == .success ? "success" : "timedOut") \(second == .success ? "success" : "timedOut")")
    }
}
