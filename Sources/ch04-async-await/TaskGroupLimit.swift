import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// A gate meant to let at most `limit` downloads run at once, by checking a count first.
///
/// The wrong way: `while await gate.count() >= limit { sleep }` and then `await gate.enter()` —
/// two actor calls with an `await` between them, so two tasks can both see room for one and both
/// go in. Each call is safe; the check-then-act across them is not. The right way is to let one
/// parent add the children, as a task group's sliding window does (`downloadWithSlidingWindow`):
/// the limit then holds by construction.
actor NaiveGate {
    private(set) var inFlight = 0
    private(set) var peak = 0

    func count() -> Int { inFlight }

    func enter() {
        inFlight += 1
        peak = max(peak, inFlight)
    }

    func leave() { inFlight -= 1 }
}

extension Chapter04 {
    /// How long photo `index` takes to download in scenario 6: 15 to 39 ms, mixed.
    static func limitLatency(_ index: Int) -> Int { 15 + (index * 7) % 25 }

    /// The sliding window: at most `limit` children in flight — add `limit`, then one more each
    /// time one finishes. Each result is stored at its index. `download` gets the photo's index.
    ///
    /// The naive way adds every child at once (`for index in … { group.addTask { … } }`): all of
    /// them run together, however many there are.
    static func downloadWithSlidingWindow<Value: Sendable>(
        count: Int, limit: Int, _ download: @escaping @Sendable (Int) async throws -> Value
    ) async throws -> [Value] {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            var results = [Value?](repeating: nil, count: count)
            var next = 0
            while next < min(limit, count) {
                let index = next
                group.addTask { (index, try await download(index)) }
                next += 1
            }
            for try await (index, value) in group {
                results[index] = value
                if next < count {
                    let upcoming = next
                    group.addTask { (upcoming, try await download(upcoming)) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }

    /// Three downloads A, B, C behind a `NaiveGate` of limit 2. Returns `peak=N limit=2`.
    @Sendable static func naiveLimitedDownloads() async throws -> String {
        let gate = NaiveGate(), clock = ExplorerClock(), limit = 2
        nameNextTasks("A", "B", "C")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in ["A", "B", "C"] {
                group.addTask {
                    nameTask(name)
                    while true {
                        let seen = await gate.count()
                        checkpoint("\(name): count() → \(seen)")
                        if seen < limit { break }
                        try await clock.sleep(for: .milliseconds(5))  // try again later
                    }
                    await gate.enter()
                    checkpoint("\(name): enter()")
                    try await clock.sleep(for: .milliseconds(20))  // the download
                    await gate.leave()
                    checkpoint("\(name): leave()")
                }
            }
            try await group.waitForAll()
        }
        return "peak=\(await gate.peak) limit=\(limit)"
    }

    /// The same three downloads through the sliding window of limit 2. Returns `peak=N limit=2`.
    @Sendable static func windowedDownloads() async throws -> String {
        let inFlight = InFlight(), clock = ExplorerClock(), names = ["A", "B", "C"]
        nameNextTasks("A", "B")  // the third child is added later, when one of these ends
        _ = try await downloadWithSlidingWindow(count: names.count, limit: 2) { index in
            nameTask(names[index])
            inFlight.enter()
            checkpoint("\(names[index]): inFlight.enter()")
            try await clock.sleep(for: .milliseconds(20))
            inFlight.leave()
            return names[index]
        }
        return "peak=\(inFlight.peak) limit=2"
    }

    static func classifyLimit(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.hasPrefix("peak=1 ") || outcome.hasPrefix("peak=2 ") ? .acceptable : .forbidden
    }

    static let naiveLimitExplanation = Localized(
        """
        The tasks asked count() before any of them called enter(): each saw room, and three downloads ran at once. \
        Checking and entering are two actor calls with an `await` between them, and another task can run at every `await`. \
        Let one parent add the children instead — the task group's sliding window — and the limit holds by construction.
        """,
        ja: """
        どのタスクも、誰かが enter() を呼ぶ前に count() を尋ねました。どれも空きがあると見て、ダウンロードが 3 つ同時に動きました。\
        確認（`count()`）と `enter()` は別々の 2 回のアクター呼び出しで、その間に `await` があり、`await` のたびに別のタスクが動き得ます。\
        代わりに親 1 つだけが子を追加するようにすれば（タスクグループのスライディングウィンドウ）、上限は構造上必ず守られます。
        """)

    /// Scenario 6: a sliding window keeps at most K children in flight; cancelAll; a failing child.
    static let taskGroupLimit = Scenario(
        slug: "task-group-limit",
        title: Localized("At most K at once, cancelAll, and a child that fails", ja: "同時に K 個まで、cancelAll、失敗する子"),
        narration: Localized(
            """
            1) `photos` downloads (15 to 39 ms each) through a task group that keeps at most `limit` in flight: it adds `limit` children, \
            then one more each time one finishes (a sliding window). The timeline draws each download on the slot it took, \
            so no lane ever holds two at once; the scenario also measures the peak. Adding every child at once instead lets all of them run together. \
            2) `cancelAll()` after the first two results: the children still running are cancelled, and their `Task.sleep` throws `CancellationError`. \
            A group stays cancelled: `addTaskUnlessCancelled` adds nothing, and a child added with `addTask` starts already cancelled. \
            3) `withThrowingTaskGroup`, four children: p2 throws `.offline` after 10 ms. The error reaches the parent through `for try await`; \
            leaving the group's body by throwing cancels the other children, and the group waits for every one of them to end before it rethrows. \
            p1 and p3 stop at once (their sleeps are cancelled); p4 waits 30 ms that cancellation cannot shorten and then throws `.badID`, \
            which nobody sees: a group rethrows the first error only. \
            4) The explorer runs a naive limit — each task asks an actor's `count()`, then calls `enter()` — and the sliding window, \
            three downloads with a limit of two: it finds a schedule where the naive one has three in flight, and none where the window has. \
            Cancellation is only a flag that code must check, and a check holds only until the next `await`: `play 2` is a game about that.
            """,
            ja: """
            1) `photos` 個のダウンロード（それぞれ 15〜39 ms）を、進行中を最大 `limit` 個に保つタスクグループで行います。最初に子を `limit` 個追加し、\
            1 つ終わるたびに 1 つ追加します（スライディングウィンドウ）。タイムラインでは各ダウンロードを取った枠のレーンに描くので、\
            1 つのレーンに 2 つが同時に載ることはありません。最大の同時実行数も測ります。最初に全部追加すると、全部が同時に動きます。\
            2) 結果が 2 つ届いたところで `cancelAll()`。まだ動いている子はキャンセルされ、その `Task.sleep` は `CancellationError` をスローします。\
            グループはキャンセルされたままです。`addTaskUnlessCancelled` は何も追加せず、`addTask` で追加した子は最初からキャンセルされた状態で始まります。\
            3) `withThrowingTaskGroup` で子を 4 つ。p2 は 10 ms 後に `.offline` をスローします。エラーは `for try await` を通って親に届きます。\
            グループの本体をエラーで抜けると他の子はキャンセルされ、グループはすべての子が終わるのを待ってから、そのエラーを再スローします。\
            p1 と p3 はすぐに止まります（スリープがキャンセルされる）。p4 はキャンセルでは短くならない 30 ms を待ってから `.badID` をスローしますが、\
            誰にも届きません。グループが再スローするのは最初のエラーだけです。\
            4) エクスプローラが、素朴な上限（各タスクがアクターの `count()` を尋ねてから `enter()` を呼ぶ）とスライディングウィンドウを、上限 2 で 3 つのダウンロードについて探索します。\
            素朴な方には 3 つが同時に進行中になるスケジュールが見つかり、ウィンドウにはありません。\
            キャンセルはコードが確かめるべきフラグにすぎず、確認が有効なのは次の `await` までです。`play 2` はそれを体験するゲームです。
            """),
        knobs: [
            .init("photos", default: 10, range: 1...40, help: Localized("downloads in parts 1 and 2", ja: "パート 1 と 2 のダウンロード数")),
            .init("limit", default: 3, range: 1...10, help: Localized("most downloads in flight at once, in part 1", ja: "パート 1 で同時に進行中にできるダウンロードの最大数")),
        ]
    ) { context in
        try await slidingWindow(context)
        await cancelAllPart(context)
        await failingChild(context)
        await exploreLimits(context)
    }

    /// Part 1: the sliding window, drawn slot by slot, and the peak measured; then all at once.
    private static func slidingWindow(_ context: ScenarioContext) async throws {
        let photos = context.knob("photos"), limit = context.knob("limit")
        let inFlight = InFlight()
        let freeSlots = Locked(Array((1...limit).reversed()))
        let start = MonotonicClock.now()
        let results = try await downloadWithSlidingWindow(count: photos, limit: limit) { index in
            // A slot is always free: at most `limit` children run (the lane shows which one).
            let slot = freeSlots.withLock { $0.popLast() } ?? limit + 1
            let lane = Localized("slot \(slot)", ja: "枠 \(slot)"), label = Localized.verbatim("p\(index + 1)")
            inFlight.enter()
            context.trace.begin(label, lane: lane)
            try await Task.sleep(for: .milliseconds(limitLatency(index)))  // simulated latency
            context.trace.end(label, lane: lane)
            inFlight.leave()
            freeSlots.withLock { $0.append(slot) }
            return "p\(index + 1)"
        }
        let windowTime = MonotonicClock.now() &- start
        let inOrder = results == (1...photos).map { "p\($0)" }

        let allAtOnce = InFlight()
        let allStart = MonotonicClock.now()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<photos {
                group.addTask {
                    allAtOnce.enter()
                    try? await Task.sleep(for: .milliseconds(limitLatency(index)))
                    allAtOnce.leave()
                }
            }
        }
        let allTime = MonotonicClock.now() &- allStart
        context.note("window peak", String(inFlight.peak))
        context.note("window results in order", String(inOrder))
        context.note("all at once peak", String(allAtOnce.peak))
        context.say(Localized(
            """
            1) Sliding window, limit \(limit): \(photos) downloads in \(formatDuration(nanoseconds: windowTime)), at most \(inFlight.peak) in flight at once; \
            results stored by index, \(inOrder ? "in input order" : "NOT in input order").
               All added at once: \(formatDuration(nanoseconds: allTime)), \(allAtOnce.peak) in flight at the peak.
            """,
            ja: """
            1) スライディングウィンドウ（上限 \(limit)）: \(photos) 個のダウンロードに \(formatDuration(nanoseconds: windowTime))、同時に進行中は最大 \(inFlight.peak) 個。\
            結果はインデックスで格納し、\(inOrder ? "入力の順" : "入力の順ではありません")。
               全部を一度に追加: \(formatDuration(nanoseconds: allTime))、同時に進行中は最大 \(allAtOnce.peak) 個。
            """))
    }

    /// How one child of part 2 ended.
    private enum ChildEnd: Sendable, Equatable {
        case finished, cancelled
        /// The child `addTask` added after `cancelAll()`: whether it saw itself cancelled.
        case addedAfterCancelAll(startedCancelled: Bool)
    }

    /// What part 2's group saw.
    struct CancelAllSummary: Sendable, Equatable, CustomStringConvertible {
        var finished = 0, cancelled = 0
        var addTaskUnlessCancelledRefused = false, addTaskChildStartedCancelled = false

        var description: String {
            "finished=\(finished) cancelled=\(cancelled) refused=\(addTaskUnlessCancelledRefused) lateChildCancelled=\(addTaskChildStartedCancelled)"
        }
    }

    /// Part 2's group: `photos` downloads on `clock`; after the first two results, `cancelAll()`,
    /// then one `addTaskUnlessCancelled` and one `addTask`. `onCancelAll` runs right after `cancelAll()`.
    static func cancelAfterTwoResults(photos: Int, clock: ExplorerClock = ExplorerClock(),
                                      onCancelAll: () -> Void = {}) async -> CancelAllSummary {
        var summary = CancelAllSummary()
        await withTaskGroup(of: ChildEnd.self) { group in
            for index in 0..<photos {
                group.addTask {
                    do {
                        try await clock.sleep(for: .milliseconds(limitLatency(index)))  // simulated latency
                        return .finished
                    } catch {
                        return .cancelled
                    }
                }
            }
            var results = 0
            for await end in group {
                switch end {
                case .finished: summary.finished += 1
                case .cancelled: summary.cancelled += 1
                case let .addedAfterCancelAll(startedCancelled): summary.addTaskChildStartedCancelled = startedCancelled
                }
                results += 1
                if results == min(2, photos) {
                    group.cancelAll()
                    onCancelAll()
                    summary.addTaskUnlessCancelledRefused = !group.addTaskUnlessCancelled { .finished }
                    group.addTask { .addedAfterCancelAll(startedCancelled: Task.isCancelled) }
                }
            }
        }
        return summary
    }

    /// Part 2: `cancelAll()` after the first two results.
    private static func cancelAllPart(_ context: ScenarioContext) async {
        let photos = context.knob("photos")
        let parent = Localized("parent", ja: "親タスク")
        let summary = await cancelAfterTwoResults(photos: photos) { context.trace.record(.verbatim("cancelAll()"), lane: parent) }
        let (finished, cancelled) = (summary.finished, summary.cancelled)
        let (refused, lateChildStartedCancelled) = (summary.addTaskUnlessCancelledRefused, summary.addTaskChildStartedCancelled)
        context.note("cancelAll", summary.description)
        context.note("finished", String(finished))
        context.note("cancelled", String(cancelled))
        context.note("addTaskUnlessCancelled refused", String(refused))
        context.note("addTask child started cancelled", String(lateChildStartedCancelled))
        context.say(Localized(
            """
            2) cancelAll() after \(min(2, photos)) results: \(finished) download(s) finished, \(cancelled) ended with CancellationError. \
            Afterwards addTaskUnlessCancelled \(refused ? "returned false and added nothing" : "added a child"), \
            and the child of addTask saw Task.isCancelled == \(lateChildStartedCancelled).
            """,
            ja: """
            2) 結果 \(min(2, photos)) つの後に cancelAll(): ダウンロード \(finished) 個が終わり、\(cancelled) 個が CancellationError で終わりました。\
            その後の addTaskUnlessCancelled は\(refused ? " false を返し、何も追加しませんでした" : "子を追加しました")。\
            addTask で追加した子から見た Task.isCancelled は \(lateChildStartedCancelled) でした。
            """))
    }

    /// One child of part 3: what it does, and how and when it ended.
    struct FailingGroupChild: Sendable {
        let id: String
        let does: Localized
        var started: UInt64 = 0
        var ended: UInt64 = 0
        var ending = ""
    }

    /// What part 3's group did: how each child ended, what the body's `for try await` threw,
    /// what the group rethrew, and the order of the endings (`p2`, …, `rethrown`).
    final class FailingGroupRecord: Sendable {
        let children = Locked<[String: FailingGroupChild]>([:])
        let parentSaw = Locked<(error: String, at: UInt64)>(("", 0))
        let rethrown = Locked<(error: String, at: UInt64)>(("nil", 0))
        let order = Locked<[String]>([])

        /// `rethrown=.offline p1=CancellationError … last=rethrown`: what a test compares.
        var summary: String {
            let endings = children.current.values.sorted { $0.id < $1.id }.map { "\($0.id)=\($0.ending)" }
            return (["rethrown=\(rethrown.current.error)"] + endings + ["last=\(order.current.last ?? "")"]).joined(separator: " ")
        }
    }

    /// Part 3's group: four children on `clock`; p2 fails after 10 ms with `.offline`, p1 and p3
    /// sleep (40 and 60 ms) and are cancelled, p4 waits 30 ms that cancellation cannot shorten
    /// and then throws `.badID`. Returns `record.summary`.
    static func failingGroup(_ record: FailingGroupRecord, clock: ExplorerClock = ExplorerClock()) async -> String {
        /// Runs a child's body, noting when and how it ended; rethrows its error to the group.
        @Sendable func child(_ id: String, _ does: Localized, _ body: @Sendable () async throws -> Void) async throws {
            nameTask(id)
            var entry = FailingGroupChild(id: id, does: does, started: MonotonicClock.now())
            defer {
                entry.ended = MonotonicClock.now()
                record.children.withLock { [entry] in $0[id] = entry }
                record.order.withLock { $0.append(id) }
            }
            do {
                try await body()
                entry.ending = "()"
            } catch {
                entry.ending = errorName(error)
                throw error
            }
        }
        nameNextTasks("p1", "p2", "p3", "p4")
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await child("p1", .verbatim("sleep(40 ms)")) { try await clock.sleep(for: .milliseconds(40)) }
                }
                group.addTask {
                    try await child("p2", Localized("10 ms, then throws .offline", ja: "10 ms 後に .offline をスローする")) {
                        try await clock.sleep(for: .milliseconds(10))
                        throw ServerError.offline
                    }
                }
                group.addTask {
                    try await child("p3", .verbatim("sleep(60 ms)")) { try await clock.sleep(for: .milliseconds(60)) }
                }
                group.addTask {
                    try await child("p4", Localized("30 ms, ignores cancel, throws .badID", ja: "キャンセルを無視し 30 ms 後 .badID")) {
                        await waitIgnoringCancellation(milliseconds: 30, clock: clock)
                        throw ThumbnailError.badID
                    }
                }
                do {
                    for try await _ in group {}
                } catch {
                    record.parentSaw.withLock { $0 = (errorName(error), MonotonicClock.now()) }
                    throw error  // leaving the body by throwing: the group cancels the rest and waits for them
                }
            }
        } catch {
            record.rethrown.withLock { $0 = (errorName(error), MonotonicClock.now()) }
            record.order.withLock { $0.append("rethrown") }
        }
        return record.summary
    }

    /// Part 3: a failing child in a throwing group.
    private static func failingChild(_ context: ScenarioContext) async {
        let record = FailingGroupRecord()
        let start = MonotonicClock.now()
        let summary = await failingGroup(record)
        let rethrown = record.rethrown.current.error, rethrownAt = record.rethrown.current.at
        let saw = record.parentSaw.current
        context.note("failing group", summary)
        let ended = record.children.current.values.sorted { $0.id < $1.id }
        let lastChildEnded = ended.map(\.ended).max() ?? 0
        context.note("rethrown", rethrown)
        context.note("rethrown after every child ended", String(record.order.current.last == "rethrown"))
        for entry in ended { context.note("\(entry.id) ended", entry.ending) }

        // Drawn now that every ending is known: a bar per child labelled with how it ended.
        let parent = Localized("parent", ja: "親タスク")
        var drawn: [DrawnEvent] = []
        for entry in ended {
            drawn.append(DrawnEvent(time: entry.started, lane: .verbatim(entry.id), label: .verbatim(entry.ending), kind: .begin))
            drawn.append(DrawnEvent(time: entry.ended, lane: .verbatim(entry.id), label: .verbatim(entry.ending), kind: .end))
        }
        drawn.append(DrawnEvent(time: saw.at, lane: parent, label: .verbatim("next() → \(saw.error)"), kind: .point))
        drawn.append(DrawnEvent(time: rethrownAt, lane: parent, label: Localized("rethrown: \(rethrown)", ja: "再スロー: \(rethrown)"), kind: .point))
        draw(drawn, on: context.trace)

        context.say(Localized("3) withThrowingTaskGroup, four children; p2 fails:", ja: "3) withThrowingTaskGroup で子を 4 つ。p2 が失敗する:"))
        let widths = [6, 38, 10]
        context.show(tableRow([Localized("child", ja: "子"), Localized("does", ja: "すること"), Localized("ended at", ja: "終了"),
                               Localized("how", ja: "終わり方")].map(context.text), widths: widths))
        for entry in ended {
            let discarded = entry.ending != rethrown && entry.ending != "CancellationError" && entry.ending != "()"
            let how = entry.ending + (discarded ? context.text(Localized(" (dropped)", ja: "（捨てられた）")) : "")
            context.show(tableRow([entry.id, context.text(entry.does), "\(milliseconds(since: start, to: entry.ended)) ms", how], widths: widths))
        }
        context.say(Localized(
            """
              The parent's `for try await` threw \(saw.error) at \(milliseconds(since: start, to: saw.at)) ms; the group rethrew \(rethrown) at \(milliseconds(since: start, to: rethrownAt)) ms, \
            after its last child had ended (\(milliseconds(since: start, to: lastChildEnded)) ms).
            """,
            ja: """
              親の `for try await` は \(milliseconds(since: start, to: saw.at)) ms に \(saw.error) をスローしました。グループが \(rethrown) を再スローしたのは \(milliseconds(since: start, to: rethrownAt)) ms で、\
            最後の子が終わった（\(milliseconds(since: start, to: lastChildEnded)) ms）後でした。
            """))
    }

    /// Part 4: the naive limit and the sliding window under the explorer.
    private static func exploreLimits(_ context: ScenarioContext) async {
        let seed = context.seed
        @Sendable func checked(_ body: @escaping Explorer.Body) -> Explorer.Body {
            {
                let outcome = try await body()
                if classifyLimit(outcome) == .forbidden { throw InvariantViolation(outcome) }
                return outcome
            }
        }
        let naive = await Explorer.explore(.exhaustive(maxPreemptions: 2), checked(naiveLimitedDownloads))
        let window = await onDedicatedThread {
            Explorer.explore(.random(seed: seed), budget: .init(maxSchedules: 300, maxSeconds: 5), checked(windowedDownloads))
        }
        context.note("naive limit broken", String(naive.failure != nil))
        context.note("window schedules", String(window.schedulesRun))
        context.note("window limit broken", String(window.failure != nil))
        context.say(Localized("4) The explorer, three downloads, limit 2:", ja: "4) エクスプローラ、ダウンロード 3 つ、上限 2:"))
        if let failure = naive.failure {
            let when = failure.deviations == 0
                ? Localized("the very first schedule, the default order with no preemption,", ja: "最初のスケジュール、つまりプリエンプションのない既定の順番で")
                : Localized("a schedule with \(failure.deviations) preemption(s)", ja: "プリエンプション \(failure.deviations) 回のスケジュールで")
            context.say(Localized(
                "  Check, then enter: \(when.en) ran three at once (\(failure.outcomeText(.en))). The checkpoints it passed:",
                ja: "  確認してから入る: \(when.ja)、3 つが同時に動きました（\(failure.outcomeText(.ja))）。通過したチェックポイント:"))
            context.say(.verbatim("    " + failure.steps.flatMap(\.checkpoints).joined(separator: " · ")))
            context.say(naiveLimitExplanation)
        } else {
            context.say(Localized("  Check, then enter: no schedule within 2 preemptions broke the limit.", ja: "  確認してから入る: プリエンプション 2 回以内では上限を破るスケジュールはありませんでした。"))
        }
        context.say(window.failure == nil
            ? Localized("  Sliding window: \(window.schedulesRun) random schedules (seed \(seed)), never more than 2 in flight.",
                        ja: "  スライディングウィンドウ: ランダムなスケジュール \(window.schedulesRun) 個（シード \(seed)）で、進行中が 2 を超えたことはありません。")
            : Localized("  Sliding window: a schedule broke the limit: \(window.failure?.outcomeText(.en) ?? "")",
                        ja: "  スライディングウィンドウ: 上限を破るスケジュールがありました: \(window.failure?.outcomeText(.ja) ?? "")"))
    }
}
