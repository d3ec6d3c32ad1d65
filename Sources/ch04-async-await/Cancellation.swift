import Foundation
import WorkbookCore

extension Chapter04 {
    /// Cancelling a task only asks it to stop: the flag reaches its structured children, and the
    /// code that checks it decides where to stop.
    ///
    /// The way that keeps working after a cancel checks once, up front:
    ///
    ///     guard !Task.isCancelled else { return }
    ///     for item in items { process(item) }           // runs to the end, cancelled or not
    ///
    /// The way that stops checks at every point where stopping is safe:
    ///
    ///     for item in items {
    ///         try Task.checkCancellation()              // throws CancellationError
    ///         process(item)
    ///     }
    static let cancellation = Scenario(
        slug: "cancellation",
        title: Localized("Cancellation is cooperative (then: play 2)", ja: "キャンセルは協調的（続けて: play 2）"),
        narration: Localized(
            """
            `cancel()` does not stop a task: it sets a flag, and the task's code stops itself where it looks at it, \
            as with threads and operations (chapters 02 and 03). Four parts, each ordered by signals, not by sleeping. \
            1) A parent task has three children: two in a task group, one an `async let`. Each does step 1 and waits; \
            the caller cancels only the parent. All three see `Task.isCancelled` turn true: cancellation flows down to structured children. \
            Child 1 asks with `try Task.checkCancellation()`, which throws `CancellationError`, and the group passes the error up to the parent; \
            children 2 and 3 ask `Task.isCancelled` and return what they have, a partial result. \
            2) Two tasks process `items` items. One checks once, before its loop; the other before every item. \
            Cancelled after item 1, the first does every remaining item anyway. \
            3) `withTaskCancellationHandler(operation:onCancel:)`: `onCancel` runs at once, inside `cancel()`, on the thread that called it, \
            while the operation is still in progress (it may be running on another thread at that very moment), so what the two share must be thread-safe. \
            Use it to stop what cannot look at the flag: here the operation is suspended, awaiting a request behind a callback API, and `onCancel` stops the request. \
            If the task is already cancelled, `onCancel` runs before the operation even starts. \
            4) `Task.sleep` in a cancelled task throws `CancellationError` at once instead of sleeping on. \
            Writing `try? await Task.sleep(…)` throws that error away: a loop around it never ends.
            """,
            ja: """
            `cancel()` はタスクを止めません。フラグを立てるだけで、止まるのはタスクのコードがそのフラグを見た箇所です。\
            スレッドやオペレーション（第 02 章、第 03 章）と同じです。4 つのパートがあり、順序はスリープではなく合図で決めています。\
            1) 親タスクに 3 つの子タスクがあります。2 つはタスクグループの子、1 つは `async let` です。それぞれステップ 1 を実行して待ち、\
            呼び出し元は親だけをキャンセルします。3 つとも `Task.isCancelled` が true になるのを見ます。キャンセルは構造化された子タスクへ伝わるのです。\
            子タスク 1 は `try Task.checkCancellation()` で確かめ、これが `CancellationError` をスローし、グループがそのエラーを親へ渡します。\
            子タスク 2 と 3 は `Task.isCancelled` を見て、そこまでの結果（途中までの結果）を返します。\
            2) 2 つのタスクが `items` 個の項目を処理します。一方はループの前に 1 回だけ確かめ、もう一方は項目ごとに確かめます。\
            項目 1 の後でキャンセルされても、前者は残りの項目をすべて処理してしまいます。\
            3) `withTaskCancellationHandler(operation:onCancel:)`: `onCancel` は `cancel()` の中で、それを呼んだスレッドで、ただちに実行されます。\
            そのとき `operation` はまだ終わっていません（その瞬間に別のスレッドで動いていることもあります）。そのため両者が共有するものはスレッドセーフでなければなりません。\
            フラグを見られないものを止めるのに使います。ここでは `operation` がサスペンドしてコールバック式 API の先のリクエストを待っており、`onCancel` がそのリクエストを止めます。\
            タスクがすでにキャンセルされていれば、`onCancel` は `operation` が始まる前に実行されます。\
            4) キャンセルされたタスクの `Task.sleep` は、眠り続けずにただちに `CancellationError` をスローします。\
            `try? await Task.sleep(…)` と書くとそのエラーを捨ててしまい、それを囲むループは終わりません。
            """),
        knobs: [
            .init("items", default: 6, range: 2...40, help: Localized("items each task of part 2 processes", ja: "パート 2 の各タスクが処理する項目の数")),
        ]
    ) { context in
        try await cancelParent(context)
        try await checkOnceOrEveryItem(context)
        try await cancellationHandler(context)
        try await cancelSleep(context)
    }

    private static let caller = Localized("caller", ja: "呼び出し元")
    private static let notStarted = Localized("a task did not reach its first wait", ja: "タスクが最初の待ちまで進みませんでした")
    private static let notLetGo = Localized("the caller did not let the tasks go on", ja: "呼び出し元がタスクを先へ進ませませんでした")

    /// How a child of part 1 looks at the flag.
    private enum Check: Sendable { case checkCancellation, isCancelled }

    /// A request behind a callback API, as a `URLSessionDataTask` is: it answers after a delay
    /// unless `stop()` comes first; either way its callback runs exactly once. Its state is
    /// behind a lock because `stop()` comes from the canceller's thread, at any moment.
    private final class StoppableRequest: Sendable {
        private let state = Locked<(callback: (@Sendable (String) -> Void)?, outcome: String)>((nil, "pending"))

        var outcome: String { state.withLock { $0.outcome } }

        func start(answerAfter seconds: Double, _ callback: @escaping @Sendable (String) -> Void) {
            let stoppedAlready = state.withLock { state -> Bool in
                guard state.outcome == "pending" else { return true }
                state.callback = callback
                return false
            }
            if stoppedAlready { return callback(outcome) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { self.finish("answered") }
        }

        func stop() { finish("stopped") }

        private func finish(_ outcome: String) {
            let callback = state.withLock { state -> (@Sendable (String) -> Void)? in
                guard state.outcome == "pending" else { return nil }
                state.outcome = outcome
                defer { state.callback = nil }
                return state.callback
            }
            callback?(outcome)
        }
    }

    // MARK: 1) Parent to children

    private static func cancelParent(_ context: ScenarioContext) async throws {
        context.say(Localized("1) Cancel the parent: its task-group children and its `async let` child see it.",
                              ja: "1) 親をキャンセル: タスクグループの子も `async let` の子もそれに気づく"))
        let ready = (1...3).map { _ in OneShotSignal() }
        let go = OneShotSignal()
        defer { go.fire() }  // never leave a child waiting, even if the scenario gives up
        let stepsDone = Locked<[Int: Int]>([:])

        /// A child that does up to 50 steps of 0.3 ms, looking at the flag before each; it waits
        /// for the caller after step 1.
        @Sendable func child(_ number: Int, _ check: Check) async throws -> Int {
            let lane = Localized("child \(number)", ja: "子タスク \(number)")
            for step in 1...50 {
                switch check {
                case .checkCancellation:
                    do {
                        try Task.checkCancellation()
                    } catch {
                        context.trace.record(.verbatim("CancellationError"), lane: lane)
                        throw error
                    }
                case .isCancelled:
                    if Task.isCancelled {
                        context.trace.record(Localized("return \(step - 1)", ja: "\(step - 1) を返す"), lane: lane)
                        return step - 1
                    }
                }
                context.trace.span(.verbatim("\(step)"), lane: lane) { spin(microseconds: 300) }
                stepsDone.withLock { $0[number] = step }
                if step == 1 {
                    ready[number - 1].fire()
                    try await go.wait(notLetGo)
                }
            }
            return 50
        }

        context.trace.record(Localized("parent = Task { }", ja: "親タスクを作成"), lane: caller)
        let parent = Task {
            async let third = child(3, .isCancelled)
            let fromGroup = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await child(1, .checkCancellation) }
                group.addTask { try await child(2, .isCancelled) }
                var total = 0
                for try await done in group { total += done }  // child 1's error is rethrown here
                return total
            }
            return try await fromGroup + third
        }
        for signal in ready { try await signal.wait(notStarted) }
        context.trace.record(.verbatim("parent.cancel()"), lane: caller)
        parent.cancel()
        go.fire()
        let result = await parent.result

        let steps = stepsDone.current
        let parentEnded: String
        switch result {
        case .success(let total): parentEnded = "returned \(total)"
        case .failure(let error): parentEnded = error is CancellationError ? "CancellationError" : "\(error)"
        }
        for number in 1...3 { context.note("child \(number) steps", String(steps[number] ?? 0)) }
        context.note("parent ended", parentEnded)
        context.say(Localized(
            """
              child 1 (group, checkCancellation()): \(steps[1] ?? 0) step(s), then threw CancellationError.
              child 2 (group, isCancelled): \(steps[2] ?? 0) step(s), then returned its partial result.
              child 3 (`async let`, isCancelled): \(steps[3] ?? 0) step(s), then returned its partial result.
              parent.result: \(parentEnded == "CancellationError" ? "failure(CancellationError), child 1's error passed up" : parentEnded)
            """,
            ja: """
              子タスク 1（グループ、checkCancellation()）: \(steps[1] ?? 0) ステップ実行し、CancellationError をスローした。
              子タスク 2（グループ、isCancelled）: \(steps[2] ?? 0) ステップ実行し、途中までの結果を返した。
              子タスク 3（`async let`、isCancelled）: \(steps[3] ?? 0) ステップ実行し、途中までの結果を返した。
              parent.result: \(parentEnded == "CancellationError" ? "failure(CancellationError)。子タスク 1 のエラーが親まで伝わった" : parentEnded)
            """))
    }

    // MARK: 2) Once or every item

    private static func checkOnceOrEveryItem(_ context: ScenarioContext) async throws {
        let items = context.knob("items")
        context.say(Localized("2) Check once, before the loop, or before every item (\(items) items, cancelled after item 1):",
                              ja: "2) ループの前に 1 回だけ確かめるか、項目ごとに確かめるか（\(items) 項目、項目 1 の後でキャンセル）:"))
        let go = OneShotSignal()
        defer { go.fire() }

        @Sendable func process(checksEveryItem: Bool, ready: OneShotSignal) async throws -> Int {
            let lane = checksEveryItem ? Localized("checks each", ja: "毎回確認") : Localized("checks once", ja: "1 回だけ確認")
            guard !Task.isCancelled else { return 0 }  // both check here, before the loop
            var done = 0
            for item in 1...items {
                if checksEveryItem && Task.isCancelled {
                    context.trace.record(Localized("stop", ja: "中止"), lane: lane)
                    break
                }
                context.trace.span(.verbatim("\(item)"), lane: lane) { spin(microseconds: 300) }
                done = item
                if item == 1 {
                    ready.fire()
                    try await go.wait(notLetGo)
                }
            }
            return done
        }

        let onceReady = OneShotSignal(), eachReady = OneShotSignal()
        let once = Task { try await process(checksEveryItem: false, ready: onceReady) }
        let each = Task { try await process(checksEveryItem: true, ready: eachReady) }
        try await onceReady.wait(notStarted)
        try await eachReady.wait(notStarted)
        context.trace.record(.verbatim("cancel()"), lane: caller)
        once.cancel()
        each.cancel()
        go.fire()
        let onceDone = try await once.value, eachDone = try await each.value
        context.note("checks once items", String(onceDone))
        context.note("checks each items", String(eachDone))
        context.say(Localized(
            """
              checks once: \(onceDone) of \(items) items, \(onceDone - 1) of them after cancel().
              checks each: \(eachDone) of \(items) items, \(eachDone - 1) after cancel().
            """,
            ja: """
              1 回だけ確認: \(items) 項目中 \(onceDone) 項目を処理、そのうち cancel() の後に \(onceDone - 1) 項目。
              毎回確認: \(items) 項目中 \(eachDone) 項目を処理、cancel() の後は \(eachDone - 1) 項目。
            """))
    }

    // MARK: 3) withTaskCancellationHandler

    private static func cancellationHandler(_ context: ScenarioContext) async throws {
        context.say(Localized("3) withTaskCancellationHandler: `onCancel` stops a request the `operation` is waiting for.",
                              ja: "3) withTaskCancellationHandler: `operation` が待っているリクエストを `onCancel` が止める"))
        let operation = Localized("task", ja: "タスク")  // the task whose operation awaits the request
        let requestLabel = Localized("request", ja: "リクエスト")
        let waiting = OneShotSignal()
        let request = StoppableRequest()
        let handlerThread = Locked<UInt?>(nil)

        // The operation awaits the request: suspended, it cannot look at Task.isCancelled, so
        // only the handler can end the wait. (Spinning on a flag here instead would hold one of
        // the cooperative pool's threads, which the caller may need to call cancel() at all.)
        let task = Task {
            await withTaskCancellationHandler {
                context.trace.begin(requestLabel, lane: operation)
                let reply = await withCheckedContinuation { continuation in
                    request.start(answerAfter: 10) { continuation.resume(returning: $0) }
                    waiting.fire()
                }
                context.trace.end(requestLabel, lane: operation)
                context.trace.record(Localized("\(reply), isCancelled=\(Task.isCancelled)",
                                               ja: "\(reply == "stopped" ? "止められた" : "応答あり")、isCancelled=\(Task.isCancelled)"), lane: operation)
            } onCancel: {
                handlerThread.withLock { $0 = ThreadIdentity.current }
                context.trace.record(.verbatim("onCancel"), lane: caller)
                request.stop()
            }
        }
        try await waiting.wait(notStarted)
        context.trace.record(.verbatim("cancel()"), lane: caller)
        let cancellerThread = ThreadIdentity.current
        task.cancel()
        context.trace.record(Localized("cancel() returns", ja: "cancel() から戻る"), lane: caller)
        await task.value

        let events = context.trace.events
        func sequence(_ label: String, _ kind: Trace.Kind) -> Int { events.last { $0.label == label && $0.kind == kind }?.sequence ?? -1 }
        let onCancel = sequence("onCancel", .point)
        let sameThread = handlerThread.current == cancellerThread
        let insideCancel = sequence("cancel()", .point) < onCancel && onCancel < sequence("cancel() returns", .point)
        let whileRunning = sequence("request", .begin) < onCancel && onCancel < sequence("request", .end)
        context.note("handler on canceller's thread", String(sameThread))
        context.note("handler inside cancel()", String(insideCancel))
        context.note("handler while operation ran", String(whileRunning))
        context.note("request outcome", request.outcome)

        // Already cancelled when it reaches the handler: onCancel first, then the operation.
        let letGo = OneShotSignal()
        defer { letGo.fire() }
        let late = Task { () -> [String] in
            try? await letGo.wait(notLetGo)
            let order = Locked<[String]>([])
            await withTaskCancellationHandler {
                order.withLock { $0.append("operation") }
            } onCancel: {
                order.withLock { $0.append("onCancel") }
            }
            return order.current
        }
        late.cancel()
        letGo.fire()
        let order = await late.value
        context.note("already cancelled order", order.joined(separator: ", "))
        context.say(Localized(
            """
              onCancel ran inside cancel() (between the call and its return): \(insideCancel); on the thread that called cancel(): \(sameThread); while the operation was still waiting for its request: \(whileRunning). The request was \(request.outcome).
              In a task cancelled before it got there: \(order.map { "`\($0)`" }.joined(separator: ", then ")).
            """,
            ja: """
              onCancel は cancel() の中で（呼び出してから戻るまでの間に）実行された: \(insideCancel)。cancel() を呼んだスレッドで: \(sameThread)。`operation` がまだリクエストを待っている間に: \(whileRunning)。リクエストの結果: \(request.outcome == "stopped" ? "止められた" : "応答した")。
              そこに着く前にキャンセルされていたタスクでは: \(order.map { "`\($0)`" }.joined(separator: " の次に "))。
            """))
    }

    // MARK: 4) Task.sleep

    private static func cancelSleep(_ context: ScenarioContext) async throws {
        context.say(Localized("4) Cancel a task in Task.sleep(for: .seconds(5)):", ja: "4) Task.sleep(for: .seconds(5)) 中のタスクをキャンセル:"))
        let sleeper = Localized("sleeper", ja: "スリープ中")
        let asleep = OneShotSignal()
        let task = Task { () -> (error: String, at: UInt64) in
            context.trace.record(.verbatim("Task.sleep"), lane: sleeper)
            asleep.fire()
            do {
                try await Task.sleep(for: .seconds(5))
                return ("none", MonotonicClock.now())
            } catch {
                let at = MonotonicClock.now()
                context.trace.record(.verbatim("\(type(of: error))"), lane: sleeper)
                return ("\(type(of: error))", at)
            }
        }
        try await asleep.wait(notStarted)
        context.trace.record(.verbatim("cancel()"), lane: caller)
        let cancelledAt = MonotonicClock.now()
        task.cancel()
        let (error, thrownAt) = await task.value
        let took = thrownAt > cancelledAt ? thrownAt - cancelledAt : 0
        context.note("sleep error", error)
        context.note("sleep ended ms after cancel", String(Double(took) / 1_000_000))
        context.say(Localized(
            "  The sleep ended \(formatDuration(nanoseconds: took)) after cancel(), throwing \(error), not after 5 s.",
            ja: "  スリープは cancel() の \(formatDuration(nanoseconds: took)) 後に \(error) をスローして終わった。5 秒後ではない。"))
    }
}
