import WorkbookCore
import WorkbookExplorer

/// Waits `milliseconds` and does not stop when the caller is cancelled: the wait runs in a
/// detached task, which is no child of the caller, so the caller's cancellation does not reach
/// it — the way an older callback API, awaited through a continuation, ignores cancellation.
/// On an `ExplorerClock`: real time in the chapter, virtual time under the explorer.
func waitIgnoringCancellation(milliseconds: Int, clock: ExplorerClock = ExplorerClock()) async {
    await Task.detached { try? await clock.sleep(for: .milliseconds(milliseconds)) }.value
}

extension Chapter04 {
    /// One simulated download: `milliseconds` of waiting (a `Task.sleep`, so a cancelled download
    /// stops at once), drawn as a bar on the photo's lane.
    private static func download(_ id: String, milliseconds: Int, _ context: ScenarioContext) async throws -> String {
        let label = Localized.verbatim("download(\(id))"), lane = Localized.verbatim(id)
        context.trace.begin(label, lane: lane)
        defer { context.trace.end(label, lane: lane) }
        try await Task.sleep(for: .milliseconds(milliseconds))
        return "data(\(id))"
    }

    /// Scenario 4: `async let` children run at the same time, and never outlive their scope.
    static let asyncLet = Scenario(
        slug: "async-let",
        title: Localized("async let: children that run at once and never outlive their scope", ja: "`async let`: 同時に動き、スコープの外まで生き残らない子タスク"),
        narration: Localized(
            """
            1) Two downloads of `milliseconds` ms each, first awaited one after the other (`let a = try await download(…)` twice), \
            then started together with `async let a = download(…)` and awaited once (`try await [a, b]`). \
            Each `async let` starts a child task at once; the parent goes on until it needs the value. \
            The timeline shows the bars end to end, then overlapping: the second way takes about half the time. \
            2) A scope starts three children with `async let _ = …` and leaves without awaiting any of them. Structured concurrency does not let them \
            outlive the scope: at its end the runtime cancels each child not yet awaited, and waits for it. \
            The sleeper's 500 ms sleep throws `CancellationError` as soon as it is cancelled; the poller checks `Task.isCancelled` between its 2 ms steps and stops; \
            the third child awaits 40 ms that cancellation cannot shorten (a wait in a detached task, which is no child of it: \
            cancellation does not reach it, as it does not reach an old callback API), and the scope waits for it to the end. \
            The scope runs twice: 2a declares the child that ignores cancellation last, 2b first. Watch when the other two stop. \
            On the timeline each child's bar is labelled with its part; the lane "parent at }" shows the parent waiting at the closing brace. \
            Leaving a scope costs as long as its children take to notice; and a child's error is dropped if nobody awaits it. \
            3) The compiler does not make you await an `async let`, but it keeps it inside its scope: no escaping closure may capture it, \
            and reading it needs `await`. Its messages, from Swift 6.3.1, close the scenario.
            """,
            ja: """
            1) `milliseconds` ms かかるダウンロードを 2 つ、まず 1 つずつ順番に await し（`let a = try await download(…)` を 2 回）、\
            次に `async let a = download(…)` で同時に始めて、1 回でまとめて await します（`try await [a, b]`）。\
            `async let` はその場で子タスクを始め、親は値が必要になるまで先へ進みます。\
            タイムラインでは、最初はバーが一列に並び、次は重なります。2 つ目のやり方は約半分の時間で終わります。\
            2) あるスコープが `async let _ = …` で子タスクを 3 つ始め、どれも await せずにスコープを抜けます。構造化並行処理では、子はスコープの外まで生き残れません。\
            スコープの終わりで、ランタイムはまだ await されていない子をキャンセルし、終わるのを待ちます。\
            スリープする子の 500 ms のスリープはキャンセルされるとすぐに `CancellationError` をスローします。確かめる子は 2 ms のステップの合間に `Task.isCancelled` を確かめて止まります。\
            3 つ目の子は、キャンセルでは短くならない 40 ms を待ちます（`Task.detached` で作ったタスクの中での待ち。子タスクではないのでキャンセルが届きません。古いコールバック API に届かないのと同じです）。\
            スコープはそれが終わるまで待ちます。\
            スコープは 2 回実行します。2a ではキャンセルを無視する子を最後に、2b では最初に宣言します。他の 2 つがいつ止まるかに注目してください。\
            タイムラインでは各バーにパートの名前を付けています。「} で待つ親」のレーンは、親が閉じ括弧で待っている間を示します。\
            スコープを抜けるには子が気づくまでの時間がかかります。また、誰も await しなければ子のエラーは捨てられます。\
            3) コンパイラは `async let` を await することを強制しませんが、スコープの外には出させません。エスケープするクロージャからはキャプチャできず、\
            値を読むには `await` が必要です。最後に Swift 6.3.1 のメッセージを示します。
            """),
        knobs: [
            .init("milliseconds", default: 40, range: 5...500, help: Localized("how long each download takes, in part 1", ja: "パート 1 の各ダウンロードにかかる時間（ms）")),
        ]
    ) { context in
        try await oneAfterTheOtherThenAtOnce(context)
        await leaveWithoutAwaiting(context)
        context.say(Localized("3) What Swift 6.3.1 says:", ja: "3) Swift 6.3.1 のメッセージ:"))
        context.quote("async let a = download(\"p1\")")
        context.quote("let task = Task { try await a }")
        context.quote("error: capturing 'async let' variables is not supported")
        context.quote("return a")
        context.quote("error: expression is 'async' but is not marked with 'await'")
        context.quote("async let a = download(\"p1\")   // never read")
        context.quote("warning: initialization of immutable value 'a' was never used; consider replacing with assignment to '_' or removing it")
    }

    /// Part 1: two downloads awaited one by one, then with `async let`.
    private static func oneAfterTheOtherThenAtOnce(_ context: ScenarioContext) async throws {
        let latency = context.knob("milliseconds")

        let sequentialStart = MonotonicClock.now()
        let first = try await download("p1", milliseconds: latency, context)
        let second = try await download("p2", milliseconds: latency, context)
        let sequential = MonotonicClock.now() &- sequentialStart
        _ = (first, second)

        let concurrentStart = MonotonicClock.now()
        async let a = download("p1", milliseconds: latency, context)
        async let b = download("p2", milliseconds: latency, context)
        _ = try await [a, b]
        let concurrent = MonotonicClock.now() &- concurrentStart

        let overlap = context.trace.peakOverlap { $0.hasPrefix("download(") }
        context.note("sequential ms", String(sequential / 1_000_000))
        context.note("async let ms", String(concurrent / 1_000_000))
        context.note("downloads at once", String(overlap))
        context.say(Localized(
            """
            1) Awaited one after the other: \(formatDuration(nanoseconds: sequential)). With async let: \(formatDuration(nanoseconds: concurrent)), \
            with \(overlap) downloads running at once.
            """,
            ja: """
            1) 1 つずつ順番に await: \(formatDuration(nanoseconds: sequential))。`async let`: \(formatDuration(nanoseconds: concurrent))、\
            同時に動いたダウンロードは \(overlap) 個。
            """))
    }

    /// The three children of one scope in part 2, what they saw, and when and in which order
    /// they ended. Without a context (under the explorer) it records nothing on a trace.
    final class ScopeRun: Sendable {
        struct Seen: Sendable {
            var sleeperThrew = "nil", pollerSteps = 0, pollerSawCancel = false, ignorerFinished = false, ignorerSawCancel = false
            var sleeperEnded: UInt64 = 0, pollerEnded: UInt64 = 0, ignorerEnded: UInt64 = 0
            /// When the parent reached the end of the scope.
            var parentAtEnd: UInt64 = 0
            /// The children in the order they ended: `ignorer,poller,sleeper`.
            var endOrder: [String] = []
        }
        let seen = Locked(Seen())
        private let context: ScenarioContext?
        private let clock = ExplorerClock()
        /// "2a" or "2b": the label of every bar this scope draws (the lanes say whose bar it is).
        let part: String

        init(_ context: ScenarioContext?, part: String) {
            self.context = context
            self.part = part
        }

        static let sleeperLane = Localized("sleeper", ja: "スリープする子")
        static let pollerLane = Localized("poller", ja: "確かめる子")
        static let ignorerLane = Localized("ignores cancel", ja: "無視する子")
        static let parentLane = Localized("parent at }", ja: "} で待つ親")

        private func begin(_ lane: Localized) { context?.trace.begin(.verbatim(part), lane: lane) }

        private func end(_ lane: Localized, _ child: String, _ update: (inout Seen, UInt64) -> Void) {
            context?.trace.end(.verbatim(part), lane: lane)
            let now = MonotonicClock.now()
            seen.withLock {
                update(&$0, now)
                $0.endOrder.append(child)
            }
        }

        /// Sleeps 500 ms; a cancelled sleep throws `CancellationError` at once.
        func sleeper() async {
            begin(Self.sleeperLane)
            var threw = "nil"
            do {
                try await clock.sleep(for: .milliseconds(500))
            } catch {
                threw = errorName(error)
            }
            end(Self.sleeperLane, "sleeper") { seen, now in
                seen.sleeperThrew = threw
                seen.sleeperEnded = now
            }
        }

        /// Steps of 2 ms (waits that ignore cancellation), checking `Task.isCancelled` before each.
        func poller() async {
            begin(Self.pollerLane)
            var steps = 0, sawCancel = false
            for _ in 1...100 {
                if Task.isCancelled {
                    sawCancel = true
                    break
                }
                await waitIgnoringCancellation(milliseconds: 2, clock: clock)
                steps += 1
            }
            end(Self.pollerLane, "poller") { [steps, sawCancel] seen, now in
                seen.pollerSteps = steps
                seen.pollerSawCancel = sawCancel
                seen.pollerEnded = now
            }
        }

        /// Awaits 40 ms that cancellation does not shorten.
        func ignorer() async {
            begin(Self.ignorerLane)
            await waitIgnoringCancellation(milliseconds: 40, clock: clock)
            let cancelled = Task.isCancelled
            end(Self.ignorerLane, "ignorer") { seen, now in
                seen.ignorerFinished = true
                seen.ignorerSawCancel = cancelled
                seen.ignorerEnded = now
            }
        }

        /// The parent's own work inside the scope; then the scope's last line, where it starts
        /// waiting at `}` (a bar until it has left the scope).
        func parentWork() async {
            try? await clock.sleep(for: .milliseconds(10))
            begin(Self.parentLane)
            let now = MonotonicClock.now()
            seen.withLock { $0.parentAtEnd = now }
        }
    }

    /// The scope of part 2a: three children, none awaited; the one that ignores cancellation is declared last.
    static func scopeIgnorerLast(_ run: ScopeRun) async {
        async let _ = run.sleeper()
        async let _ = run.poller()
        async let _ = run.ignorer()
        await run.parentWork()
    }   // here the runtime cancels and awaits the children that were not awaited

    /// The scope of part 2b: the same three children, the one that ignores cancellation declared first.
    static func scopeIgnorerFirst(_ run: ScopeRun) async {
        async let _ = run.ignorer()
        async let _ = run.poller()
        async let _ = run.sleeper()
        await run.parentWork()
    }

    /// Part 2: scopes that leave three `async let` children unawaited, in two orders of declaration.
    private static func leaveWithoutAwaiting(_ context: ScenarioContext) async {
        for (part, ignorerLast) in [("2a", true), ("2b", false)] {
            let run = ScopeRun(context, part: part)
            let start = MonotonicClock.now()
            if ignorerLast { await scopeIgnorerLast(run) } else { await scopeIgnorerFirst(run) }
            let left = MonotonicClock.now()
            context.trace.end(.verbatim(part), lane: ScopeRun.parentLane)
            let seen = run.seen.current
            let lastChild = max(seen.sleeperEnded, seen.pollerEnded, seen.ignorerEnded)
            context.note("\(part) sleeper threw", seen.sleeperThrew)
            context.note("\(part) poller saw cancel", String(seen.pollerSawCancel))
            context.note("\(part) ignorer finished", String(seen.ignorerFinished))
            context.note("\(part) ignorer saw cancel", String(seen.ignorerSawCancel))
            context.note("\(part) end order", seen.endOrder.joined(separator: ","))
            context.note("\(part) scope left after every child ended", String(lastChild > 0 && lastChild <= left))
            func at(_ time: UInt64) -> String { milliseconds(since: start, to: time) }
            let order = ignorerLast
                ? Localized("declared: sleeper, poller, ignores cancel (last)", ja: "宣言順: スリープする子、確かめる子、無視する子（最後）")
                : Localized("declared: ignores cancel (first), poller, sleeper", ja: "宣言順: 無視する子（最初）、確かめる子、スリープする子")
            context.say(Localized(
                """
                \(part)) \(order.en). The scope reached its end at \(at(seen.parentAtEnd)) ms and left at \(at(left)) ms, after every child had ended:
                  ignores cancel: ended at \(at(seen.ignorerEnded)) ms, \(seen.ignorerFinished ? "ran its 40 ms to the end" : "did not finish"), Task.isCancelled == \(seen.ignorerSawCancel) by then.
                  poller: ended at \(at(seen.pollerEnded)) ms after \(seen.pollerSteps) steps\(seen.pollerSawCancel ? ", when it saw Task.isCancelled == true" : "").
                  sleeper: its 500 ms sleep threw \(seen.sleeperThrew) at \(at(seen.sleeperEnded)) ms.
                """,
                ja: """
                \(part)) \(order.ja)。スコープは \(at(seen.parentAtEnd)) ms で終わりに達し、\(at(left)) ms に抜けました。子がすべて終わった後です:
                  無視する子: \(at(seen.ignorerEnded)) ms に終了。\(seen.ignorerFinished ? "40 ms を最後まで待ちました" : "終わっていません")。そのとき Task.isCancelled == \(seen.ignorerSawCancel)。
                  確かめる子: ステップ \(seen.pollerSteps) 回の後、\(at(seen.pollerEnded)) ms に終了\(seen.pollerSawCancel ? "。Task.isCancelled == true を見て止まりました" : "")。
                  スリープする子: 500 ms のスリープが \(at(seen.sleeperEnded)) ms に \(seen.sleeperThrew) をスローしました。
                """))
        }
        context.say(Localized(
            """
              At the end of a scope the runtime cancels each child not yet awaited and waits for it — here (Swift 6.3.1, Linux) one child at a time, \
            the last declared first, as `defer` blocks run. So in 2a the child that ignores cancellation, declared last, held up the cancellation of the two before it: \
            they ran on for 40 ms. In 2b they were cancelled at once. The order is not documented: do not build on it; await what you need, \
            or use a task group, whose `cancelAll()` cancels every child at once (scenario 6).
            """,
            ja: """
              スコープの終わりで、ランタイムはまだ await されていない子を 1 つずつキャンセルし、終わるのを待ちます。ここ（Swift 6.3.1、Linux）では、\
            `defer` のブロックと同じく、最後に宣言した子から順に 1 つずつでした。そのため 2a では、最後に宣言したキャンセルを無視する子が、先に宣言した 2 つのキャンセルを遅らせ、\
            2 つは 40 ms の間動き続けました。2b ではすぐにキャンセルされました。この順番はドキュメントに書かれていないので、当てにしないでください。必要なものは await するか、\
            タスクグループを使います。タスクグループの `cancelAll()` はすべての子を一度にキャンセルします（シナリオ 6）。
            """))
    }
}
