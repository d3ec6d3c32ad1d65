import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 01-gcd/FanOut against a fake client that holds replies until the limit is
/// reached and then answers newest first, on several threads — so replies arrive out of order
/// every time, not just when timing happens to shuffle them.
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
        return .passed(properties)
    }

    static func check(_ testCase: Case, _ fanOut: any FanOutProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let client = FakeClient(trace: trace, limit: testCase.maxInFlight, expectedFetches: testCase.ids.count, failingIDs: testCase.failing)
        defer { client.stop() }
        let calls = Locked<[(results: [Result<String, FetchError>], deliveredBefore: Int)]>([])
        let completionCalled = DispatchSemaphore(value: 0)
        let call = "fetchAll(\(testCase.ids), maxInFlight: \(testCase.maxInFlight))"
        let callText = Localized.verbatim(call)

        Thread.detachNewThread {
            trace.record("fetchAll(…) called", lane: "caller")
            fanOut.fetchAll(testCase.ids, maxInFlight: testCase.maxInFlight, using: client) { results in
                let delivered = client.statistics.delivered
                trace.record("completion(\(results.count) results)", lane: "completion")
                calls.withLock { $0.append((results, delivered)) }
                completionCalled.signal()
            }
            trace.record("fetchAll(…) returned", lane: "caller")
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
        guard cameBack else {
            let missing = testCase.ids.count - stats.returned
            return CheckFailure(
                .finishes,
                observed: Localized(
                    "\(call): completion was not called within \(formatSeconds(options.deadlockSeconds)). \(stats.started.count) of \(testCase.ids.count) fetches were started and \(stats.returned) called back. Look for a group.enter() without a leave() (\(missing) missing), a semaphore that is never signalled, or a wait() on the thread that should deliver.",
                    ja: "\(call): completion が \(formatSeconds(options.deadlockSeconds)) 以内に呼ばれませんでした。\(testCase.ids.count) 件中 \(stats.started.count) 件の取得が開始され、\(stats.returned) 件がコールバックしました。leave() のない group.enter()（\(missing) 件不足）、signal されないセマフォ、応答を届けるべきスレッドでの wait() を探しましょう。"),
                events: traceTail(trace.events))
        }
        // Let every reply finish its callback, then leave a moment for a stray second completion.
        _ = client.waitUntilSettled(seconds: options.deadlockSeconds)
        _ = completionCalled.wait(timeout: .now() + 0.05)
        let recorded = calls.current
        let first = recorded[0]
        let started = client.statistics.started

        if first.deliveredBefore < started.count {
            return CheckFailure(
                completionAfterAll,
                observed: Localized(
                    "\(call): completion was called when only \(first.deliveredBefore) of the \(started.count) replies had been delivered. Call it from group.notify, after every fetch has left the group.",
                    ja: "\(call): 応答が \(started.count) 件中 \(first.deliveredBefore) 件しか届いていない時点で completion が呼ばれました。すべての取得がグループを leave した後、group.notify から呼びましょう。"),
                events: trace.events)
        }
        if started.count != testCase.ids.count || Set(started) != Set(testCase.ids) {
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
        let expected = testCase.ids.map { FakeClient.reply(for: $0, failingIDs: testCase.failing) }
        if first.results != expected {
            let shown = first.results.map(describe).joined(separator: ", ")
            let wanted = expected.map(describe).joined(separator: ", ")
            return CheckFailure(
                resultsInOrder,
                observed: Localized(
                    "\(call): completion got [\(shown)] but expected [\(wanted)]. Replies arrive out of order (see the trace): store each result at its id's index instead of appending.",
                    ja: "\(call): completion が受け取ったのは [\(shown)]、期待値は [\(wanted)] です。応答は順不同で届きます（トレース参照）。追加（append）ではなく、id の位置に結果を格納しましょう。"),
                events: trace.events)
        }
        return nil
    }

    static func describe(_ result: Result<String, FetchError>) -> String {
        switch result {
        case let .success(value): value
        case let .failure(.notFound(id)): "notFound(\(id))"
        }
    }
}
