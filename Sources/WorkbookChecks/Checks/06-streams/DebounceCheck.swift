import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 06-streams/Debounce under the explorer, on a fresh view model, search service
/// and screen per schedule, in virtual time (a plain `Task.sleep` is virtual there too). The
/// check types queries into the field on the main actor at set moments, waits until nothing is
/// left to run, and reads one log of what was typed, searched and shown, each with its moment.
///
/// Interval 300 ms, searches take 20 ms: a burst of typing; a pause longer than the interval; a
/// query typed exactly as the interval ends (both orders); while a search runs; exactly as a
/// search returns (both orders).
public enum DebounceCheck {
    public static let waitsForPause = Property(
        id: "not-debounced",
        name: Localized("a query is searched only after the pause", ja: "検索するのは入力が止まった後だけ"),
        rule: Localized("A query is searched once the field has stayed unchanged for the whole interval since it was typed — not sooner, and once.",
                        ja: "クエリを検索するのは、入力されてからフィールドが間隔いっぱい変わらなかったときで、それより早くはなく、1 回だけ。"))
    public static let noStaleSearch = Property(
        id: "stale-search",
        name: Localized("a newer query cancels the older one's search", ja: "新しいクエリは古いクエリの検索を取り消す"),
        rule: Localized("Once a newer query is typed, the older query is not searched any more: a pending search never runs, and a running one is cancelled.",
                        ja: "新しいクエリが入力されたら、古いクエリはもう検索しない。待っている検索は実行せず、走っている検索はキャンセルする。"))
    public static let noStaleResult = Property(
        id: "stale-result",
        name: Localized("no stale result is shown", ja: "古い結果を表示しない"),
        rule: Localized("The screen never shows the results of a query after a newer one has been typed — not even results that arrive at that very moment.",
                        ja: "新しいクエリが入力された後に、古いクエリの結果を画面に表示しない。ちょうどその瞬間に届いた結果でも表示しない。"))
    public static let lastQueryShown = Property(
        id: "last-query-dropped",
        name: Localized("the last query is searched and shown", ja: "最後のクエリは検索して表示する"),
        rule: Localized("When the typing stops, the last query typed is searched and its results are shown.",
                        ja: "入力が止まったら、最後に入力したクエリを検索して、その結果を表示する。"))
    /// Where clock readings are real, a deadline computed from `ContinuousClock.now` a few steps
    /// before its sleep is read back from the real clock: a replay may set its timer a little
    /// differently, so "each schedule starts from fresh state" is not checked there
    /// (`excusesRealClockTimers`).
    public static let platformProbes = [
        PlatformProbe("fresh-state-with-clock-readings",
                      Localized("each schedule starting from fresh state (a replay must run the same steps; real clock readings let its timers differ)",
                                ja: "各スケジュールが新しい状態から始まること（リプレイは同じステップを実行する必要がある。実時間の時計の読み取りではタイマーがずれうる）"),
                      needs: [.clockReadings]),
    ]

    public static let properties = [waitsForPause, noStaleSearch, noStaleResult, lastQueryShown, Property.finishes, Property.freshState]

    static let interval = 300
    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.05)
    /// A query typed exactly as something else happens: every schedule with one preemption runs,
    /// however loaded the machine (a result shown as the next query cancels its task, or a
    /// cancel a hop late, needs one).
    static let racesBudget = Explorer.Budget.guaranteeing(preemptions: 1)
    static let ok = "ok"

    struct Case {
        /// (moment in ms, the field's text)
        let typing: [(at: Int, query: String)]
        let call: Localized
        var budget = DebounceCheck.budget
    }

    static let cases: [Case] = [
        Case(typing: [(0, "s"), (100, "sw"), (200, "swi")],
             call: Localized("\"s\" at 0 ms, \"sw\" at 100, \"swi\" at 200 (a burst)", ja: "0 ms に \"s\"、100 ms に \"sw\"、200 ms に \"swi\"（続けて入力）")),
        Case(typing: [(0, "s"), (400, "sw")],
             call: Localized("\"s\" at 0 ms, a pause, \"sw\" at 400", ja: "0 ms に \"s\"、間をおいて 400 ms に \"sw\"")),
        Case(typing: [(0, "s"), (300, "sw")],
             call: Localized("\"s\" at 0 ms, \"sw\" at 300, exactly as the interval ends", ja: "0 ms に \"s\"、ちょうど間隔が終わる 300 ms に \"sw\""),
             budget: racesBudget),
        Case(typing: [(0, "s"), (310, "sw")],
             call: Localized("\"s\" at 0 ms, \"sw\" at 310, while \"s\" is being searched", ja: "0 ms に \"s\"、\"s\" の検索中の 310 ms に \"sw\"")),
        Case(typing: [(0, "sw"), (310, "swi"), (400, "sw")],
             call: Localized("\"sw\" at 0 ms, \"swi\" at 310 while \"sw\" is being searched, then back to \"sw\" at 400",
                             ja: "0 ms に \"sw\"、\"sw\" の検索中の 310 ms に \"swi\"、400 ms にまた \"sw\" に戻る")),
        Case(typing: [(0, "s"), (320, "sw")],
             call: Localized("\"s\" at 0 ms, \"sw\" at 320, exactly as the search for \"s\" returns", ja: "0 ms に \"s\"、\"s\" の検索が戻るちょうど 320 ms に \"sw\""),
             budget: racesBudget),
    ]

    public typealias Make = @MainActor @Sendable (SearchService, SearchScreen, Duration) -> any DebounceProtocol

    public static func run(_ make: @escaping Make) -> CheckResult {
        for item in cases {
            if let failure = check(make, item) { return .failed(failure) }
        }
        return .passed(properties)
    }

    static func check(_ make: @escaping Make, _ item: Case) -> CheckFailure? {
        checkExplored(lastQueryShown, title: item.call, broken: brokenProperty(in: properties), deadlock: .finishes,
                      observed: { observed(item.call, $0) }, budget: item.budget,
                      classify: { $0 == ok ? .acceptable : .forbidden }, excusesRealClockTimers: true) {
            let service = SearchService()
            await type(item, make, service)
            return judge(service.log.events)
        }
    }

    /// Types the case's queries into a fresh view model, on the main actor, at their moments,
    /// then waits until nothing is left to run — holding the view model all along, as the
    /// screen that owns it does (a `[weak self]` task must find it there).
    @MainActor
    static func type(_ item: Case, _ make: Make, _ service: SearchService) async {
        let model = make(service, SearchScreen(loggingTo: service), .milliseconds(interval))
        defer { withExtendedLifetime(model) {} }
        var now = 0
        for (at, query) in item.typing {
            if at > now { try? await ExplorerClock().sleep(for: .milliseconds(at - now)) }
            now = at
            service.log.add(.typed(query))
            checkpoint(Localized("field ← \"\(query)\"", ja: "フィールド ← \"\(query)\""))
            model.queryChanged(query)
        }
        await untilQuiet()
    }

    /// Walks the log: each search against what was typed before it, each result shown against
    /// the latest query, and the last query at the end.
    static func judge(_ log: [(event: SearchLog.Event, at: Int)]) -> String {
        var latest: (query: String, at: Int)?
        var typedAt: [String: Int] = [:]
        var searched: Set<String> = []
        var staleStarts: [String: Int] = [:]
        var shownLast: String?
        for (event, at) in log {
            switch event {
            case let .typed(query):
                latest = (query, at)
                typedAt[query] = at
            case let .searchStarted(query):
                guard let typed = latest, typed.query == query else {
                    // Started in a task cancelled that very moment (its wait had just ended): the
                    // search must end at once, cancelled, having done nothing. Before the wait
                    // ended, nothing excuses it.
                    if let own = typedAt[query], at - own < interval - 1 {
                        return brokenOutcome(noStaleSearch, Localized(
                            "\"\(query)\" was searched at \(at) ms — before its \(interval) ms wait was over, and after \"\(latest?.query ?? "?")\" was typed: a cancelled wait must not go on to search",
                            ja: "\(at) ms に \"\(query)\" を検索した。\(interval) ms の待機が終わる前で、しかも \"\(latest?.query ?? "?")\" が入力された後だった。キャンセルされた待機の後で検索してはいけない"))
                    }
                    staleStarts[query] = at
                    continue
                }
                // 1 ms of slack: where clock readings are real (Apple platforms), a deadline made
                // from `ContinuousClock.now` a few steps before its sleep is read back to within it.
                if at - typed.at < interval - 1 {
                    return brokenOutcome(waitsForPause, Localized(
                        "\"\(query)\" was searched at \(at) ms, \(at - typed.at) ms after it was typed: the field must stay unchanged for \(interval) ms first",
                        ja: "\(at) ms に \"\(query)\" を検索した。入力から \(at - typed.at) ms しかたっていない。先に \(interval) ms のあいだフィールドが変わらない必要がある"))
                }
                if !searched.insert("\(query)@\(typed.at)").inserted {
                    return brokenOutcome(waitsForPause, Localized("\"\(query)\" was searched twice for one pause (again at \(at) ms)",
                                                                  ja: "1 回の入力の停止に対して、\"\(query)\" を 2 回検索した（2 回目は \(at) ms）"))
                }
            case let .searchEnded(query, cancelled):
                if let started = staleStarts.removeValue(forKey: query), !cancelled || at > started {
                    return brokenOutcome(noStaleSearch, Localized(
                        "\"\(query)\" was searched at \(started) ms, though \"\(latest?.query ?? "?")\" had been typed before (the search \(cancelled ? "was cancelled only at \(at) ms" : "ran to its end"))",
                        ja: "\(started) ms に \"\(query)\" を検索した。その前に \"\(latest?.query ?? "?")\" が入力されていたのに（検索は\(cancelled ? " \(at) ms になってようやくキャンセルされた" : "最後まで走った")）"))
                }
                // A search that had finished by the moment a newer query came may log its end
                // just after it; one that ran on past that moment was not cancelled.
                if !cancelled, let typed = latest, typed.query != query, typed.at < at {
                    return brokenOutcome(noStaleSearch, Localized(
                        "the search for \"\(query)\" ran on to its end at \(at) ms, though \"\(typed.query)\" was typed at \(typed.at) ms: it should have been cancelled then",
                        ja: "\(typed.at) ms に \"\(typed.query)\" が入力されたのに、\"\(query)\" の検索は \(at) ms の終わりまで走り続けた。そこでキャンセルすべきだった"))
                }
            case let .shown(query):
                if let typed = latest, typed.query != query {
                    return brokenOutcome(noStaleResult, Localized(
                        "the screen showed the results of \"\(query)\" at \(at) ms, after \"\(typed.query)\" was typed at \(typed.at) ms",
                        ja: "\(typed.at) ms に \"\(typed.query)\" が入力された後の \(at) ms に、画面が \"\(query)\" の結果を表示した"))
                }
                shownLast = query
            }
        }
        if let last = latest, shownLast != last.query {
            let what = searched.contains { $0.hasPrefix("\(last.query)@") }
                ? Localized("it was searched but its results never shown", ja: "検索はしたが、結果を表示しなかった")
                : Localized("it was never searched", ja: "一度も検索しなかった")
            return brokenOutcome(lastQueryShown, Localized("the last query \"\(last.query)\" (typed at \(last.at) ms): \(what.en)",
                                                           ja: "最後のクエリ \"\(last.query)\"（\(last.at) ms に入力）: \(what.ja)"))
        }
        return ok
    }

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case waitsForPause.id:
                Localized("Each change starts a wait of the whole interval (`try await Task.sleep(for: interval)`), and only a wait that ends untouched searches.",
                          ja: "変更のたびに間隔いっぱいの待機（`try await Task.sleep(for: interval)`）を始め、邪魔されずに終わった待機だけが検索します。")
            case noStaleSearch.id:
                Localized("Keep the pending task (`var pending: Task<Void, Never>?`) and cancel it when the next query comes: its sleep throws, and a running search, cancelled with the task, throws `CancellationError`.",
                          ja: "待っているタスク（`var pending: Task<Void, Never>?`）を保持し、次のクエリが来たらキャンセルしましょう。スリープがスローし、走っている検索もタスクと一緒にキャンセルされて `CancellationError` をスローします。")
            case noStaleResult.id:
                Localized("A search may return just as the next query cancels its task: the results are there, and nothing threw. Before showing them, look again: `guard !Task.isCancelled else { return }` (or `try Task.checkCancellation()`).",
                          ja: "次のクエリがタスクをキャンセルするちょうどそのときに、検索が戻ることがあります。結果はそろっていて、何もスローしていません。表示する前にもう一度確かめましょう: `guard !Task.isCancelled else { return }`（または `try Task.checkCancellation()`）。")
            case lastQueryShown.id:
                Localized("Nothing was left to run when the check looked: either the query was skipped because a wait was already pending (that is throttling, and it drops the last query), or the task meant to search it is still waiting — for a continuation only a later keystroke would resume, or for a Dispatch timer (`asyncAfter`), which runs outside the check's virtual clock, so the schedule ended without it. Every change must cancel the pending task and start one that waits with `try await Task.sleep(for: interval)`, then searches and shows.",
                          ja: "チェックが確かめた時点で、実行できるものは何も残っていませんでした。待機中だったためにクエリを読み飛ばした（それはスロットリングで、最後のクエリを落とします）か、検索するはずのタスクがまだ待っています。後のキー入力でしか再開されない継続や、`DispatchQueue` のタイマー（`asyncAfter`）を待っている場合です。このタイマーはチェックの仮想時計の外で動くので、スケジュールはそれを待たずに終わりました。変更のたびに待っているタスクをキャンセルし、`try await Task.sleep(for: interval)` で待ってから検索して表示するタスクを新しく始めましょう。")
            default:
                nil
            }
        }
    }
}
