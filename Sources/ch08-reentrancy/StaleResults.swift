import WorkbookCore
import WorkbookExplorer

/// The fake search and feed API of scenario 6, in virtual time: a search for a short query takes
/// longer (10 ms for "sw", 5 ms for "swift"), a feed load 10 ms; it counts the loads.
final class SearchAPI: Sendable {
    private let clock = ExplorerClock()
    private let loadCount = Locked(0)

    func search(_ query: String) async -> String {
        try? await clock.sleep(for: .milliseconds(query.count < 5 ? 10 : 5))
        checkpoint(Localized("server: results for \"\(query)\"", ja: "サーバー: \"\(query)\" の結果"))
        return query
    }

    func loadFeed() async -> Int {
        let number = loadCount.withLock { $0 += 1; return $0 }
        checkpoint(Localized("server: load \(number) begins", ja: "サーバー: 読み込み \(number) 開始"))
        try? await clock.sleep(for: .milliseconds(10))
        return number
    }

    var loads: Int { loadCount.current }
}

/// The racy way: each keystroke's search awaits the API and writes whatever comes back. An older
/// query's answer that arrives last overwrites the newer one.
@MainActor final class SearchViewModel {
    private let api: SearchAPI
    private(set) var query = ""
    private(set) var resultsFor = ""

    nonisolated init(api: SearchAPI) { self.api = api }

    func search(_ text: String) async {
        query = text
        let found = await api.search(text)                // the query may change meanwhile
        resultsFor = found
    }
}

/// The safe way: the search in flight is kept; a new query cancels it, and results are shown
/// only if they still answer the latest query — checked after the `await`, where they are used.
@MainActor final class LatestSearchViewModel {
    private let api: SearchAPI
    private(set) var query = ""
    private(set) var resultsFor = ""
    private var searching: Task<Void, Never>?

    nonisolated init(api: SearchAPI) { self.api = api }

    func search(_ text: String) async {
        query = text
        searching?.cancel()
        let task = Task {
            let found = await api.search(text)
            guard text == query, !Task.isCancelled else { return }   // drop an older query's results
            resultsFor = found
        }
        searching = task
        await task.value
    }
}

/// The racy way: every tap loads, and each load sets `isLoading` back to false when it ends —
/// while the other may still be running.
@MainActor final class FeedViewModel {
    private let api: SearchAPI
    private(set) var isLoading = false
    private(set) var items = 0

    nonisolated init(api: SearchAPI) { self.api = api }

    func reload() async {
        isLoading = true
        items = await api.loadFeed()
        isLoading = false
    }
}

/// The safe way: a tap while a load is in flight joins it.
@MainActor final class JoiningFeedViewModel {
    private let api: SearchAPI
    private(set) var isLoading = false
    private(set) var items = 0
    private var loading: Task<Void, Never>?

    nonisolated init(api: SearchAPI) { self.api = api }

    func reload() async {
        if let loading { return await loading.value }
        let task = Task {
            defer { loading = nil; isLoading = false }
            isLoading = true
            items = await api.loadFeed()
        }
        loading = task
        await task.value
    }
}

extension Chapter08 {
    /// The user types "sw" at 0 ms and "swift" at 5 ms; both answers are due at 10 ms.
    /// Returns `query=… results=…`.
    static func typing(latest: Bool) async -> String {
        let api = SearchAPI(), clock = ExplorerClock()
        let search: @Sendable (String) async -> Void
        let state: @Sendable () async -> (String, String)
        if latest {
            let model = LatestSearchViewModel(api: api)
            search = { await model.search($0) }
            state = { await (model.query, model.resultsFor) }
        } else {
            let model = SearchViewModel(api: api)
            search = { await model.search($0) }
            state = { await (model.query, model.resultsFor) }
        }
        nameNextTasks(taskName("\"sw\"", "\"sw\""), taskName("\"swift\"", "\"swift\""))
        async let first: Void = {
            checkpoint(Localized("types \"sw\"", ja: "\"sw\" と入力"))
            await search("sw")
        }()
        async let second: Void = {
            try? await clock.sleep(for: .milliseconds(5))
            checkpoint(Localized("types \"swift\"", ja: "\"swift\" と入力"))
            await search("swift")
        }()
        _ = await (first, second)
        let (query, results) = await state()
        return "query=\(query) results=\(results)"
    }

    @Sendable static func staleSearch() async throws -> String { await typing(latest: false) }

    static func classifySearch(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "query=swift results=swift" ? .acceptable : .forbidden
    }

    /// Two taps on reload, at 0 ms and 5 ms. Returns `loads=… isLoading at 14 ms=…`.
    static func doubleTap(joining: Bool) async -> String {
        let api = SearchAPI(), clock = ExplorerClock()
        let reload: @Sendable () async -> Void
        let loading: @Sendable () async -> Bool
        if joining {
            let model = JoiningFeedViewModel(api: api)
            reload = { await model.reload() }
            loading = { await model.isLoading }
        } else {
            let model = FeedViewModel(api: api)
            reload = { await model.reload() }
            loading = { await model.isLoading }
        }
        nameNextTasks(taskName("tap 1", "タップ 1"), taskName("tap 2", "タップ 2"), taskName("watch", "観察"))
        async let first: Void = reload()
        async let second: Void = {
            try? await clock.sleep(for: .milliseconds(5))
            await reload()
        }()
        async let spinner: Bool = {                        // the spinner, 4 ms after the first load ends
            try? await clock.sleep(for: .milliseconds(14))
            return await loading()
        }()
        let (_, _, shownAt14) = await (first, second, spinner)
        return "loads=\(api.loads) isLoading@14ms=\(shownAt14)"
    }

    static func classifyTaps(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.hasPrefix("loads=1 ") ? .acceptable : .forbidden
    }

    static let staleResults = Scenario(
        slug: "stale-results",
        title: Localized("Stale results: the query changes while the view model awaits", ja: "古い結果: ビューモデルが待つ間にクエリが変わる"),
        narration: Localized(
            """
            A `@MainActor` view model awaits the network. The main actor is free meanwhile, and the user goes on. \
            1) Search as you type: "sw" at 0 ms (its answer takes 10 ms), "swift" at 5 ms (5 ms); both answers are due at 10 ms. The screen must end with the results for "swift". \
            2) The same, keeping the search in flight: a new query cancels it, and results are dropped unless they answer the latest query. \
            3) Reload tapped twice, at 0 ms and 5 ms (a load takes 10 ms): how many loads, and does the spinner stay on? 4) The same, a second tap joining the load in flight. All explored.
            """,
            ja: """
            `@MainActor` のビューモデルがネットワークを await します。その間メインアクターは空いていて、ユーザーは操作を続けます。\
            1) 入力しながら検索: 0 ms に "sw"（応答に 10 ms）、5 ms に "swift"（5 ms）。両方の応答が 10 ms に来ます。画面は最後に "swift" の結果を表示していなければなりません。\
            2) 同じことを、実行中の検索を保持して: 新しいクエリがそれをキャンセルし、最新のクエリへの答えでない結果は捨てる。\
            3) 再読み込みを 0 ms と 5 ms に 2 回タップ（読み込みは 10 ms）: 読み込みは何回で、スピナーは表示されたままか？ 4) 同じことを、2 回目のタップが実行中の読み込みに加わって。どれも探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: the view model is @MainActor, and it sets the results after `await api.search(text)`. Can the screen end showing the results for \"sw\" while the query is \"swift\"? A) no: the main actor keeps the searches in order B) yes, when the answer for \"sw\" arrives last",
                ja: "パート 1: ビューモデルは @MainActor で、`await api.search(text)` の後に結果を設定します。クエリが \"swift\" なのに、画面が最後に \"sw\" の結果を表示していることはある？ A) ない。メインアクターが検索を順に保つ B) ある。\"sw\" の応答が最後に届いたとき"),
            explanation: Localized(
                "B. Each search suspends at the network; the main actor runs whichever continuation is ready. When \"sw\"'s answer lands after \"swift\"'s, it overwrites it. The main actor serializes jobs, not flows: keep the search in flight, and drop results older than the latest query.",
                ja: "B です。それぞれの検索はネットワークでサスペンドし、メインアクターは準備のできた継続から実行します。\"sw\" の応答が \"swift\" の後に届くと、それを上書きします。メインアクターが直列にするのはジョブであって、一連の処理ではありません。実行中の検索を保持し、最新のクエリより古い結果を捨てます。"),
            observe: { ($0.noted("stale search forbidden") ?? "0") == "0" ? "A" : "B" },
            isPossible: { $0 == "B" })
    ) { context in
        let stale = await explore(classify: classifySearch, staleSearch)
        context.show(stale, Localized("1) Each keystroke awaits and writes", ja: "1) 入力ごとに await して書き込む"), game: 6, key: "stale search")
        let latest = await explore(classify: classifySearch) { await typing(latest: true) }
        context.show(latest, Localized("2) Keep the search in flight, drop older results", ja: "2) 実行中の検索を保持し、古い結果を捨てる"), key: "latest search")
        let taps = await explore(classify: classifyTaps) { await doubleTap(joining: false) }
        context.show(taps, Localized("3) Reload tapped twice", ja: "3) 再読み込みを 2 回タップ"), key: "double tap")
        let joined = await explore(classify: classifyTaps) { await doubleTap(joining: true) }
        context.show(joined, Localized("4) A second tap joins the load in flight", ja: "4) 2 回目のタップが実行中の読み込みに加わる"), key: "joined tap")
        context.say(Localized(
            "   In part 3 the first load's end set isLoading to false while the second load was still running: the spinner went off too early. `isLoading`, the query, the selected tab — any state the view model read before an `await` may have changed after it.",
            ja: "   パート 3 では、最初の読み込みの終わりが、2 回目の読み込みの実行中に isLoading を false にしました。スピナーが早く消えたのです。`isLoading`、クエリ、選択中のタブなど、ビューモデルが `await` の前に読んだ状態は、`await` の後には変わっているかもしれません。"))
    }
}
