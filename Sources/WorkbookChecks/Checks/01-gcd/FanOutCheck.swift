import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 01-gcd/FanOut against `FakeClient`, which decides when and where replies
/// come back, so every run sees the same interleaving:
/// - replies are held until the limit is reached, then answered newest first, one at a time,
///   each on a different thread of the fake's own (not the GCD pool) — out of order every run;
/// - the fake gives TSan only the request→reply edge, so results stored without a lock are a
///   data race in every run;
/// - the last reply waits for a load-adaptive window, so a completion one reply early is seen;
/// - reply values are random per run and known only to the check, so results must be fetched.
/// Four cases: 20 ids with K=4 and failures, K=1, no ids, K larger than N. When the completion
/// never comes, the report says what the fake saw (started, delivered, returned, a callback
/// still running) and whether the GCD pool is starved.
public enum FanOutCheck {
    public static let withinLimit = Property(
        id: "too-many-in-flight",
        name: Localized("at most maxInFlight fetches in flight", ja: "同時に進行中の取得は maxInFlight 件まで"),
        rule: Localized("Never more fetches started and not yet called back than maxInFlight.",
                        ja: "開始済みでまだコールバックされていない取得が maxInFlight 件を超えない。"))
    public static let usesConcurrency = Property(
        id: "no-concurrency",
        name: Localized("fetches run side by side", ja: "取得は並行して進む"),
        rule: Localized("With maxInFlight ≥ 2, more than one fetch is in flight at some point.",
                        ja: "maxInFlight ≥ 2 なら、ある時点で 2 件以上の取得が進行中になる。"))
    public static let eachFetchedOnce = Property(
        id: "fetch-count",
        name: Localized("each id fetched once", ja: "各 id を 1 回だけ取得する"),
        rule: Localized("client.fetch is called exactly once per id.", ja: "client.fetch は id ごとにちょうど 1 回呼ばれる。"))
    public static let completionAfterAll = Property(
        id: "completion-early",
        name: Localized("completion after every reply", ja: "すべての応答の後に completion"),
        rule: Localized("completion is called only after every fetch has called back.",
                        ja: "completion はすべての取得がコールバックした後にだけ呼ばれる。"))
    public static let completionOnce = Property(
        id: "completion-count",
        name: Localized("completion called exactly once", ja: "completion はちょうど 1 回"),
        rule: Localized("completion is called once, never twice.", ja: "completion は 1 回だけ呼ばれ、2 回目はない。"))
    public static let resultsInOrder = Property(
        id: "wrong-order",
        name: Localized("results in the order of ids", ja: "結果は ids の順"),
        rule: Localized("results[i] is the reply for ids[i], failures included.",
                        ja: "results[i] は ids[i] への応答（失敗も含む）。"))
    public static let properties = [withinLimit, usesConcurrency, eachFetchedOnce, completionAfterAll, completionOnce, resultsInOrder, Property.finishes]

    /// Needs a pause right after a callback's release (`checkLastRepliesTogether`).
    public static let platformProbes = [
        PlatformProbe("last-replies-together", Localized(
            "the last two replies together: \"was it the last?\" decided in a second locked step",
            ja: "最後の 2 つの応答が同時に届く:「最後か」を 2 つ目のロック区間で判定する"), needs: [.releasePoints]),
    ]

    struct Case: Sendable {
        let ids: [Int]
        let maxInFlight: Int
        let failing: Set<Int>
    }

    static let cases = [
        Case(ids: Array(0..<20), maxInFlight: 4, failing: [3, 8, 13]),
        Case(ids: [5, 1, 4, 2, 3, 0, 6], maxInFlight: 1, failing: [2]),
        Case(ids: [], maxInFlight: 3, failing: []),
        Case(ids: [10, 11, 12, 13, 14], maxInFlight: 8, failing: [14]),
    ]

    public static func run(_ make: @escaping @Sendable () -> any FanOutProtocol, options: CheckOptions = .init()) -> CheckResult {
        for testCase in cases {
            if let failure = check(testCase, make(), options: options) { return .failed(failure) }
        }
        if let failure = checkLastRepliesTogether(make, options: options) { return .failed(failure) }
        return .passed(properties)
    }

    /// Three ids, all in flight at once; the last two replies come back together.
    static let togetherCase = Case(ids: [0, 1, 2], maxInFlight: 3, failing: [1])

    /// The last two replies together, every way that matters: the first callback is paused right
    /// after its 1st release (an unlock, a semaphore signal, the end of a `sync`, a `leave`), then
    /// its 2nd, …, and each time the second callback runs whole in that pause. A callback that
    /// records its reply in one step and decides "that was the last one" in another completes
    /// twice (or never) in one of these runs, every time. Where releases cannot be seen (Apple
    /// platforms), this step is skipped.
    static func checkLastRepliesTogether(_ make: @escaping @Sendable () -> any FanOutProtocol, options: CheckOptions) -> CheckFailure? {
        guard ReleasePoint.isAvailable else { return nil }
        for release in 1...16 {
            let paused = Locked<Bool?>(nil)
            if let failure = check(togetherCase, make(), options: options, overlapLastTwo: release, overlapPaused: paused) {
                let nth = Localized.ordinal(release)
                return CheckFailure(failure.property, observed: Localized(
                    "The last two replies came back together: the check paused the first callback right after its \(nth.en) release (an unlock, a semaphore signal, the end of a sync, a leave) and ran the second callback whole, then let the first go on. \(failure.observed.en) Decide \"was this the last reply?\" in the same locked step that records the reply, or leave a DispatchGroup and complete from notify.",
                    ja: "最後の 2 つの応答が同時に返ってきました。チェックは 1 つ目のコールバックを \(nth.ja)の解放（アンロック、セマフォの signal、sync の終わり、leave）の直後で止め、2 つ目のコールバックを最後まで実行してから、1 つ目を再開しました。\(failure.observed.ja)「これが最後の応答か」は応答を記録するのと同じロックの中で決めるか、DispatchGroup を leave して notify から完了させましょう。"),
                    events: failure.events)
            }
            if paused.current != true { break }
        }
        return nil
    }

    /// The replies of one run: values nobody can guess, made fresh every time, so an answer can
    /// only return them by fetching them.
    static func makeReplies(_ testCase: Case) -> [Int: Result<String, FetchError>] {
        var replies: [Int: Result<String, FetchError>] = [:]
        for id in testCase.ids {
            let tag = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
            replies[id] = testCase.failing.contains(id) ? .failure(.notFound(id)) : .success("item-\(id)-\(tag)")
        }
        return replies
    }

    /// One call of the answer's completion, with what the fake had done by then.
    struct CompletionCall: Sendable {
        let results: [Result<String, FetchError>]
        let delivered: Int
        let returned: Int
    }

    static func check(_ testCase: Case, _ fanOut: any FanOutProtocol, options: CheckOptions,
                      overlapLastTwo: Int? = nil, overlapPaused: Locked<Bool?>? = nil) -> CheckFailure? {
        let trace = Trace()
        let replies = makeReplies(testCase)
        let calls = Locked<[CompletionCall]>([])
        // Before the last reply, give a completion that comes one reply early time to show.
        let earlyCompletionWindow: @Sendable () -> Void = { if calls.current.isEmpty { waitForQueuesRound() } }
        let client = FakeClient(trace: trace, limit: testCase.maxInFlight, expectedFetches: testCase.ids.count, replies: replies,
                                beforeLastReply: overlapLastTwo == nil ? earlyCompletionWindow : nil,
                                overlapLastTwo: overlapLastTwo)
        defer {
            client.stop()
            overlapPaused?.withLock { $0 = client.statistics.overlapPaused }
        }
        let completionCalled = DispatchSemaphore(value: 0)
        let call = "fetchAll(\(testCase.ids), maxInFlight: \(testCase.maxInFlight))"
        let callText = Localized.verbatim(call)
        let callerLane = Localized("caller", ja: "呼び出し元")

        Thread.detachNewThread {
            trace.record(Localized("fetchAll(…) called", ja: "fetchAll(…) を呼ぶ"), lane: callerLane)
            fanOut.fetchAll(testCase.ids, maxInFlight: testCase.maxInFlight, using: client) { results in
                // The check's bookkeeping runs on the answer's thread: keep it out of TSan's sight.
                RaceDetector.quietly {
                    let stats = client.statistics
                    trace.record(Localized("completion(\(results.count) results)", ja: "completion(結果 \(results.count) 件)"), lane: "completion")
                    calls.withLock { $0.append(CompletionCall(results: results, delivered: stats.delivered, returned: stats.returned)) }
                    completionCalled.signal()
                }
            }
            trace.record(Localized("fetchAll(…) returned", ja: "fetchAll(…) が戻る"), lane: callerLane)
        }
        let cameBack = completionCalled.wait(timeout: .now() + options.deadlockSeconds) == .success
        let stats = client.statistics
        if let overLimit = stats.overLimitAt {
            return CheckFailure(
                withinLimit,
                observed: Localized(
                    "\(callText.en): \(stats.mostInFlight) fetches were in flight at once (see the overlapping bars, one lane per id). Take a semaphore permit before each fetch and give it back in its callback.",
                    ja: "\(callText.ja): 同時に \(stats.mostInFlight) 件の取得が進行中でした（id ごとのレーンで重なったバーを見てください）。各取得の前にセマフォの許可を取り、コールバックで返しましょう。"),
                events: traceWindow(trace.events, around: overLimit))
        }
        guard cameBack else { return stalled(call, testCase, client: client, options: options) }
        // Let every reply finish its callback, then give a stray second completion its chance.
        _ = client.waitUntilSettled(seconds: options.deadlockSeconds)
        waitForQueuesRound()
        let recorded = calls.current
        let first = recorded[0]
        let started = client.statistics.started

        if first.delivered < started.count || first.delivered < testCase.ids.count {
            let total = max(started.count, testCase.ids.count)
            return CheckFailure(
                completionAfterAll,
                observed: Localized(
                    "\(call): completion was called when only \(first.delivered) of the \(total) replies had been delivered (the fake held the last reply back until then). Call it from group.notify, after every fetch has left the group.",
                    ja: "\(call): \(total) 件中 \(first.delivered) 件の応答しか届いていない時点で completion が呼ばれました（フェイクは最後の応答をそこまで保留していました）。すべての取得がグループを leave した後、group.notify から呼びましょう。"),
                events: trace.events)
        }
        if started.count != testCase.ids.count || started.sorted() != testCase.ids.sorted() {
            return CheckFailure(
                eachFetchedOnce,
                observed: Localized(
                    "\(call): client.fetch was called for \(started) — each id exactly once was expected.",
                    ja: "\(call): client.fetch が \(started) に対して呼ばれました。各 id ちょうど 1 回のはずです。"),
                events: trace.events)
        }
        if recorded.count > 1 {
            return CheckFailure(
                completionOnce,
                observed: Localized(
                    "\(call): completion was called \(recorded.count) times. Call it once, from group.notify.",
                    ja: "\(call): completion が \(recorded.count) 回呼ばれました。group.notify から 1 回だけ呼びましょう。"),
                events: trace.events)
        }
        if testCase.maxInFlight >= 2, testCase.ids.count >= 2, stats.mostInFlight < 2 {
            return CheckFailure(
                usesConcurrency,
                observed: Localized(
                    "\(call): never more than one fetch was in flight, although \(testCase.maxInFlight) were allowed: the fetches ran one after another. Start the next fetch without waiting for the previous reply; only the semaphore should make you wait.",
                    ja: "\(call): \(testCase.maxInFlight) 件まで許されているのに、同時に進行中の取得は 1 件だけでした。取得が 1 件ずつ順に実行されています。前の応答を待たずに次の取得を始め、待つのはセマフォだけにしましょう。"),
                events: trace.events)
        }
        let expected = testCase.ids.map { replies[$0]! }
        if first.results != expected {
            return CheckFailure(resultsInOrder, observed: wrongResults(call, got: first.results, expected: expected, ids: testCase.ids,
                                                                       deliveredOrder: client.statistics.deliveredIDs),
                                events: trace.events)
        }
        return nil
    }

    /// What the results got wrong, from what was seen: missing, extra, or out of place.
    static func wrongResults(_ call: String, got: [Result<String, FetchError>], expected: [Result<String, FetchError>],
                             ids: [Int], deliveredOrder: [Int]) -> Localized {
        let shown = got.map(describe).joined(separator: ", ")
        let wanted = expected.map(describe).joined(separator: ", ")
        let arrival = deliveredOrder.map(String.init).joined(separator: ", ")
        let gotSet = got.map(describe), expectedSet = expected.map(describe)
        let missing = expectedSet.filter { !gotSet.contains($0) }
        let unknown = gotSet.filter { !expectedSet.contains($0) }
        if !unknown.isEmpty {
            return Localized(
                "\(call): completion got [\(shown)], but the client's replies were [\(wanted)]. \(unknown.joined(separator: ", ")) never came from the client: the replies change every run, so pass on exactly what each fetch's callback received.",
                ja: "\(call): completion が受け取ったのは [\(shown)] ですが、クライアントの応答は [\(wanted)] でした。\(unknown.joined(separator: ", ")) はクライアントから来ていません。応答は実行ごとに変わるので、各取得のコールバックが受け取った値をそのまま渡しましょう。")
        }
        if got.count != expected.count || !missing.isEmpty {
            return Localized(
                "\(call): completion got \(got.count) results [\(shown)] for \(expected.count) ids; expected [\(wanted)]. Missing: \(missing.isEmpty ? "none" : missing.joined(separator: ", ")). Every result must be stored before its fetch leaves the group, so notify sees them all.",
                ja: "\(call): \(expected.count) 件の id に対し completion が受け取った結果は \(got.count) 件 [\(shown)]、期待値は [\(wanted)] です。欠けている結果: \(missing.isEmpty ? "なし" : missing.joined(separator: ", "))。notify がすべてを見られるよう、各結果はその取得がグループを leave する前に格納しましょう。")
        }
        return Localized(
            "\(call): completion got [\(shown)] but expected [\(wanted)]. The replies arrived in the order of ids \(arrival): store each result at its id's index instead of appending.",
            ja: "\(call): completion が受け取ったのは [\(shown)]、期待値は [\(wanted)] です。応答は id \(arrival) の順に届きました。追加（append）ではなく、id の位置に結果を格納しましょう。")
    }

    /// The completion never came: say what the fake saw, and look at the GCD pool.
    static func stalled(_ call: String, _ testCase: Case, client: FakeClient, options: CheckOptions) -> CheckFailure {
        let stats = client.statistics, running = client.callbacksRunning
        let seconds = formatSeconds(options.deadlockSeconds)
        let seen = Localized(
            "\(call): completion was not called within \(seconds.en). \(stats.started.count) of \(testCase.ids.count) fetches were started, \(stats.delivered) replies delivered and \(stats.returned) callbacks returned.",
            ja: "\(call): completion が \(seconds.ja)以内に呼ばれませんでした。\(testCase.ids.count) 件中 \(stats.started.count) 件の取得が開始され、\(stats.delivered) 件の応答が届き、\(stats.returned) 件のコールバックが戻りました。")
        let cause: Localized
        if !running.isEmpty {
            let list = running.map(String.init).joined(separator: ", ")
            cause = Localized(
                "The callback for id \(list) was called and has not returned: it is blocked inside (a wait() for something that only a later reply, or this very thread, would signal).",
                ja: "id \(list) のコールバックが呼ばれたまま戻っていません。中でブロックしています（後の応答か、このスレッド自身しか signal しないものを wait() している）。")
        } else if globalPoolIsStarved() {
            cause = Localized(
                "A block submitted to DispatchQueue.global() just now did not start within 0.5 s: every GCD pool thread is blocked (for example in semaphore.wait() inside global-queue blocks, one per id), and the blocks that would signal them are queued behind them — a starved pool. Linux adds about one pool thread per second. Wait for permits on ONE background thread (a loop), not in one block per id, and never make a reply's bookkeeping wait for a pool thread.",
                ja: "いま DispatchQueue.global() に投入したブロックが 0.5 秒以内に始まりませんでした。GCD プールのスレッドがすべてブロックされていて（たとえば id ごとのグローバルキューのブロックで semaphore.wait() している）、それらを signal するはずのブロックがその後ろで待っています。プールの枯渇です。Linux はプールのスレッドを 1 秒に 1 本ほどしか増やしません。許可の待機は id ごとのブロックではなく 1 本のバックグラウンドスレッド（ループ）で行い、応答の後処理がプールのスレッドを待つことのないようにしましょう。")
        } else if stats.started.count < testCase.ids.count {
            cause = Localized(
                "Nothing is running and no more fetches are being started: the loop that starts them is stuck — a semaphore wait() whose permit is never given back (a signal() missing on some path), or a wait on the thread that should deliver.",
                ja: "実行中のものはなく、新しい取得も始まりません。取得を始めるループが止まっています。どこかの経路で signal() が抜けて許可が返らないセマフォの wait() か、応答を届けるべきスレッドでの wait() です。")
        } else {
            let failures = testCase.failing.sorted().map(String.init).joined(separator: ", ")
            cause = Localized(
                "Every fetch was started and every callback returned, yet completion never came: the group never emptied — a group.enter() without a leave() on some path (ids \(failures.isEmpty ? "—" : failures) failed here), or completion not called on some path.",
                ja: "すべての取得が開始され、すべてのコールバックが戻ったのに、completion が来ません。グループが空になっていません。どこかの経路で leave() のない group.enter()（ここでは id \(failures.isEmpty ? "—" : failures) が失敗しました）か、completion を呼ばない経路があります。")
        }
        return CheckFailure(.finishes, observed: Localized("\(seen.en) \(cause.en)", ja: "\(seen.ja)\(cause.ja)"),
                            events: traceTail(client.trace.events))
    }

    static func describe(_ result: Result<String, FetchError>) -> String {
        switch result {
        case let .success(value): value
        case let .failure(.notFound(id)): "notFound(\(id))"
        }
    }
}
