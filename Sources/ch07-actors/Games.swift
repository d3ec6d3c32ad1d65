import WorkbookCore
import WorkbookExplorer

extension Chapter07 {
    // MARK: Game 1: the slides' counter

    static let slidesCounterGame = Game(
        slug: "slides-counter",
        title: Localized("The slides' counter: can you make both calls return 2?", ja: "スライドのカウンタ: 両方の呼び出しに 2 を返させられるか？"),
        narration: Localized(
            """
            Tasks A and B each call the counter's `increment()` once: `count += 1; return count`, played step by step as the processor runs it — load, store, load again. \
            You choose who runs at each step. A counter should give one caller 1 and the other 2. Can you make both return 2, as the slides warned? (And both 1?)
            """,
            ja: """
            タスク A と B が、カウンタの `increment()` をそれぞれ 1 回呼びます。`count += 1; return count` を、プロセッサが実行する形（読む、書く、もう一度読む）で 1 ステップずつ進めます。\
            各ステップで誰を動かすかをあなたが選びます。カウンタなら、片方に 1、もう片方に 2 を返すはずです。スライドが警告したとおり、両方に 2 を返させられますか？（両方に 1 は？）
            """),
        explanation: Localized(
            """
            `count += 1` and `return count` are separate accesses to shared memory, and nothing keeps another caller out between them. When B's increment lands between A's store and A's final load, \
            A reads B's result and both return 2. When both load 0 before either stores, both store 1 and return 1 (the lost update). An actor makes the whole method one job (play 2); a serial queue does too, as a promise (scenario 2).
            """,
            ja: """
            `count += 1` と `return count` は共有メモリへの別々のアクセスで、その間に他の呼び出し元が入るのを防ぐものはありません。B のインクリメントが A の書き込みと A の最後の読み取りの間に入ると、\
            A は B の結果を読み、両方が 2 を返します。どちらかが書く前に両方が 0 を読むと、両方が 1 を書いて 1 を返します（更新の消失）。アクターはメソッド全体を 1 つのジョブにします（play 2）。シリアルキューもそうしますが、それは約束です（シナリオ 2）。
            """),
        classify: classifyCounterPair,
        body: slidesCounterStepped)

    // MARK: Game 2: the same counter in an actor

    static let actorCounterGame = Game(
        slug: "actor-counter",
        title: Localized("The counter in an actor: can you still make both calls return 2?", ja: "アクターの中のカウンタ: それでも両方に 2 を返させられるか？"),
        narration: Localized(
            """
            The same two calls, A and B, to `increment()` of an actor. You choose who runs at each step, as in play 1. \
            Try to make both return 2, or both 1.
            """,
            ja: """
            同じ 2 つの呼び出し A と B を、今度はアクターの `increment()` に対して行います。play 1 と同じく、各ステップで誰を動かすかを選びます。\
            両方に 2、または両方に 1 を返させてみてください。
            """),
        explanation: Localized(
            "No order does it: the actor runs `count += 1; return count` as one job, and the only steps you can choose between are whole calls. The checks the compiler makes (no access without `await` from outside) keep it that way.",
            ja: "どんな順序でもできません。アクターは `count += 1; return count` を 1 つのジョブとして実行し、あなたが選べるのは呼び出しの単位だけです。コンパイラの検査（外からは `await` なしにアクセスできない）がそれを保ちます。"),
        classify: classifyCounterPair,
        body: actorCounterCalls)

    // MARK: Game 3: a token store per tab

    /// Tab 1 refreshes the token (30 ms); the user switches to tab 2 at 30 ms, which sends a
    /// request with its own store's token. Returns `refreshFirst=yes|no token=v…`.
    @Sendable static func tabsWithOwnStores() async throws -> String {
        let server = AuthServer()
        let clock = ExplorerClock()
        let tab1 = TabClient(tab: "1", store: TokenStore(), server: server)
        let tab2 = TabClient(tab: "2", store: TokenStore(), server: server)
        let refreshDone = Locked(false)
        nameNextTasks(BilingualLabel.join("tab 1", "タブ 1"), BilingualLabel.join("tab 2", "タブ 2"))
        async let refresh: Void = {
            checkpoint(Localized("tab 1: refresh (30 ms)", ja: "タブ 1: リフレッシュ（30 ms）"))
            try await tab1.refreshToken()
            refreshDone.withLock { $0 = true }
            checkpoint(Localized("tab 1: refresh done, its store has v2", ja: "タブ 1: リフレッシュ完了、自分のストアは v2"))
        }()
        async let request: (Bool, Int, String) = {
            try await clock.sleep(for: .milliseconds(30))   // the user switches tabs
            let afterRefresh = refreshDone.current
            checkpoint(Localized("tab 2: request starts\(afterRefresh ? " (refresh done)" : "")", ja: "タブ 2: リクエスト開始\(afterRefresh ? "（リフレッシュ完了後）" : "")"))
            let (token, status) = try await tab2.request("/timeline")
            checkpoint(Localized("tab 2: sent v\(token) → \(status)", ja: "タブ 2: v\(token) を送信 → \(status)"))
            return (afterRefresh, token, status)
        }()
        try await refresh
        let (afterRefresh, token, _) = try await request
        return "refreshFirst=\(afterRefresh ? "yes" : "no") token=v\(token)"
    }

    /// A request may use an old token only if it started before the refresh finished.
    static func classifyTabs(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "refreshFirst=yes token=v1" ? .forbidden : .acceptable
    }

    static let tokenPerTabGame = Game(
        slug: "token-store-per-tab",
        title: Localized("A token store per tab: can tab 2 send a token the refresh has retired?", ja: "タブごとのトークンストア: リフレッシュで無効になったトークンをタブ 2 に送らせられるか？"),
        narration: Localized(
            """
            Each tab's API client has its own `TokenStore` actor, as in the slides. Tab 1 refreshes the token (30 ms); at 30 ms the user switches to tab 2, which sends a request. \
            Both are due together: you pick the order. A request that starts after a refresh has finished must not use the token that refresh retired. Can you make tab 2 do it?
            """,
            ja: """
            スライドと同じく、各タブの API クライアントが自分の `TokenStore` アクターを持っています。タブ 1 がトークンをリフレッシュし（30 ms）、30 ms にユーザーがタブ 2 に切り替え、タブ 2 がリクエストを送ります。\
            2 つは同時に満了するので、順序をあなたが選びます。リフレッシュが終わった後に始まったリクエストは、そのリフレッシュが無効にしたトークンを使ってはいけません。タブ 2 にそれをさせられますか？
            """),
        explanation: Localized(
            """
            Tab 1's refresh finished before tab 2's request started, and tab 2 still sent v1: its store never heard of the refresh. Isolation is per instance — two actors, two tokens — \
            so no schedule was needed to break it, only the order a user makes by switching tabs. One store shared by every client fixes it (scenario 6; exercise SharedTokenStore).
            """,
            ja: """
            タブ 1 のリフレッシュはタブ 2 のリクエストが始まる前に終わっていたのに、タブ 2 は v1 を送りました。タブ 2 のストアはリフレッシュを知らないからです。隔離はインスタンスごとで、アクターが 2 つならトークンも 2 つです。\
            壊すのに特別なスケジュールは要らず、ユーザーがタブを切り替える順序だけで十分でした。すべてのクライアントで 1 つのストアを共有すれば直ります（シナリオ 6、演習 SharedTokenStore）。
            """),
        classify: classifyTabs,
        body: tabsWithOwnStores)
}
