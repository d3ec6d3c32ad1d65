import WorkbookCore
import WorkbookExplorer

/// The results on screen: the last `show` wins.
actor SearchScreen {
    private(set) var shown = "nothing"
    func show(_ results: String) { shown = results }
}

/// Turns fetched results into something to show, on an actor of its own: awaiting it is a
/// suspension point that knows nothing of cancellation.
actor ResultDecoder {
    func decode(_ results: String) -> String { results }
}

extension Chapter04 {
    /// Search as you type: the search for "sw" starts and fetches for 20 ms; at 20 ms the user
    /// has typed "swift", so the parent cancels the old search and the new one starts (its
    /// results are cached: no fetch). Returns `shown=…`, what the screen shows at the end.
    ///
    /// The wrong way, in `search`: check `Task.isCancelled` once, after the fetch, then `await`
    /// the decoder, then show. The check was true only when it was made; across the `await` the
    /// task can be cancelled and a newer search can show its results first, and the old one
    /// then overwrites them. The right way checks where it acts, with no `await` in between — in
    /// the actor method that writes (it runs on the caller's task, so it sees its cancellation:
    /// `guard !Task.isCancelled else { return }`) — or tags results with their query and drops
    /// stale ones.
    ///
    /// Apps often keep the old search in an unstructured `Task` and call `cancel()` on it; here
    /// it runs in a task group of its own (`old.cancelAll()`), which cancels it the same way and
    /// keeps every task under the explorer's control.
    @Sendable static func searchAsYouType() async throws -> String {
        let clock = ExplorerClock(), screen = SearchScreen(), decoder = ResultDecoder()

        @Sendable func search(_ query: String, fetchMilliseconds: Int) async throws {
            nameTask(query)
            if fetchMilliseconds > 0 {
                do {
                    try await clock.sleep(for: .milliseconds(fetchMilliseconds))  // the fetch
                } catch {
                    checkpoint("\(query): fetch → CancellationError")
                    throw error
                }
            }
            guard !Task.isCancelled else {
                checkpoint("\(query): isCancelled → true")
                return
            }
            checkpoint("\(query): isCancelled → false")
            let results = await decoder.decode(query)
            checkpoint("\(query): decode(\"\(query)\")")
            await screen.show(results)
            checkpoint("\(query): show(\"\(query)\")")
        }

        /// At 20 ms the user has typed "swift": the new search starts (its results are cached).
        @Sendable func typeOnThenSearch() async throws {
            nameTask("swift")
            try await clock.sleep(for: .milliseconds(20))
            try await search("swift", fetchMilliseconds: 0)
        }
        nameNextTasks("swift", "sw")
        async let newSearch: Void = typeOnThenSearch()
        // The old search runs in a group of its own, so that the parent can cancel it alone.
        try await withThrowingTaskGroup(of: Void.self) { old in
            old.addTask { try await search("sw", fetchMilliseconds: 20) }
            try await clock.sleep(for: .milliseconds(20))  // at 20 ms the old search is out of date
            old.cancelAll()
            checkpoint("old.cancelAll()")
            try? await old.waitForAll()
        }
        try await newSearch
        return "shown=\(await screen.shown)"
    }

    static func classifyShown(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "shown=swift" ? .acceptable : .forbidden
    }

    static let cancelRaceExplanation = Localized(
        """
        The old search checked Task.isCancelled right after its fetch — false at that moment — and went on to await the decoder. \
        It was cancelled while it waited, and nothing looked again: its show("sw") ran after the new search had shown "swift". \
        A cancellation check holds only until the next `await`. Check where you act, with no `await` in between \
        (inside the actor method that writes, which runs on the caller's task), or drop results older than the latest query.
        """,
        ja: """
        古い検索は取得の直後に Task.isCancelled を確かめ（その時点では false）、デコーダを await しに行きました。\
        待っている間にキャンセルされましたが、誰ももう一度確かめなかったので、新しい検索が "swift" を表示した後に show("sw") が動きました。\
        キャンセルの確認が有効なのは次の `await` までです。書き込むその場所で、間に `await` を挟まずに確かめてください\
        （書き込むアクターのメソッドの中で。メソッドは呼び出し元のタスクの上で動きます）。あるいは、最新のクエリより古い結果を捨てます。
        """)

    /// Game 2: cancel the old search, and still see its results.
    static let cancelRaceGame = Game(
        slug: "cancel-race",
        title: Localized("Cancel the old search: can its stale results still win?", ja: "古い検索をキャンセル: 古い結果が画面に残ることはあるか？"),
        narration: Localized(
            """
            Search as you type. The search for "sw" starts and fetches for 20 ms. At 20 ms the user has typed "swift": \
            the parent cancels the old search, and the new one starts; its results are cached, so it does not fetch. \
            Each search checks `Task.isCancelled` after its fetch, then awaits a decoder actor, then shows its results on the screen actor. \
            The screen must end with "swift". Three timers are due at 20 ms — the old fetch, the parent's cancel, the new search — \
            and you pick which fires first. Can you leave "sw" on the screen?
            """,
            ja: """
            入力しながら検索する画面です。"sw" の検索が始まり、20 ms かけて取得します。20 ms の時点でユーザーは "swift" まで入力しています。\
            親は古い検索をキャンセルし、新しい検索が始まります。新しい検索の結果はキャッシュにあるので、取得はしません。\
            どちらの検索も、取得の後に `Task.isCancelled` を確かめ、デコーダのアクターを await し、画面のアクターに結果を表示します。\
            最後に画面に出ているべきなのは "swift" です。20 ms に満了するタイマーは 3 つ（古い取得、親のキャンセル、新しい検索）で、\
            どれを先に発火させるかをあなたが選びます。"sw" を画面に残せますか？
            """),
        explanation: cancelRaceExplanation,
        classify: classifyShown,
        body: searchAsYouType)
}
