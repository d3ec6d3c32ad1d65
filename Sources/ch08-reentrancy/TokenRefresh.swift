import WorkbookCore
import WorkbookExplorer

/// The story's actor, as it shipped. The write path joins a refresh in flight; the read path
/// does not look at it — while `refreshToken()` is suspended at the network, `token()` runs on
/// the actor and returns the token the refresh is about to replace.
actor AuthManager {
    private let server: AuthServer
    private var current: Token? = Token(version: 1)
    private var refreshTask: Task<Token?, Never>?

    init(server: AuthServer) { self.server = server }

    func token() async -> Token? {
        current                                                   // the old token, if a refresh is in flight
    }

    func refreshToken() async -> Token? {
        if let refreshTask { return await refreshTask.value }     // the write path joined the refresh
        let task = Task { try? await server.refresh() }
        refreshTask = task
        guard let fresh = await task.value else { return nil }    // suspends: other calls run meanwhile
        current = fresh
        refreshTask = nil
        return fresh
    }
}

/// The slides' fix: readers join the refresh in flight too. What it leaves open is in the
/// types: a failure is `nil` for every waiter, and the early `return nil` skips
/// `refreshTask = nil`, so every later call joins the failed task and never asks again.
actor AuthManagerSlidesFix {
    private let server: AuthServer
    private var current: Token? = Token(version: 1)
    private var refreshTask: Task<Token?, Never>?

    init(server: AuthServer) { self.server = server }

    func token() async -> Token? {
        if let refreshTask { return await refreshTask.value }     // the fix: the read joins the refresh
        return current
    }

    func refreshToken() async -> Token? {
        if let refreshTask { return await refreshTask.value }
        let task = Task { try? await server.refresh() }
        refreshTask = task
        guard let fresh = await task.value else { return nil }    // a failure leaves refreshTask set
        current = fresh
        refreshTask = nil
        return fresh
    }
}

/// The whole pattern. The task is stored before the first `await`, so every caller that comes
/// while it runs finds it; it stores the token and clears itself in one synchronous stretch on
/// the actor; a failure is thrown to every waiter and clears the task, so the next call asks
/// again; and it is an unstructured task, so one caller's cancellation does not reach it.
actor AuthManagerComplete {
    private let server: AuthServer
    private var current = Token(version: 1)
    private var refreshing: Task<Token, Error>?

    init(server: AuthServer) { self.server = server }

    func token() async throws -> Token {
        if let refreshing { return try await refreshing.value }
        return current
    }

    func refreshToken() async throws -> Token {
        if let refreshing { return try await refreshing.value }  // a second refresh joins the first
        let task = Task {
            defer { refreshing = nil }                            // on success and on failure
            let fresh = try await server.refresh()
            current = fresh                                       // no await between these two
            return fresh
        }
        refreshing = task                                         // before the first await
        return try await task.value
    }
}

extension Chapter08 {
    static let refresherName = taskName("refresher", "リフレッシュ役")
    static let readerName = taskName("reader", "読み手")
    static let refreshTaskName = taskName("refresh task", "リフレッシュのタスク")

    /// The refresher calls `refreshToken()` at 0 ms; the reader calls `token()` at 10 ms, when
    /// the server answers: both are due together. Returns `reader=v…`.
    static func readDuringRefresh(refresh: @escaping @Sendable () async throws -> Token?,
                                  read: @escaping @Sendable () async throws -> Token?) async throws -> String {
        let clock = ExplorerClock()
        nameNextTasks(refresherName, readerName, refreshTaskName)
        async let refreshed: Token? = {
            checkpoint(Localized("refresher: refreshToken()", ja: "リフレッシュ役: refreshToken()"))
            let token = try await refresh()
            checkpoint(got("refresher", "リフレッシュ役", token))
            return token
        }()
        async let read: Token? = {
            try await clock.sleep(for: .milliseconds(10))
            checkpoint(Localized("reader: token()", ja: "読み手: token()"))
            let token = try await read()
            checkpoint(got("reader", "読み手", token))
            return token
        }()
        _ = try await refreshed
        return "reader=\(try await read.map(\.description) ?? "nil")"
    }

    /// `reader: got v1`.
    static func got(_ en: String, _ ja: String, _ token: Token?) -> Localized {
        let shown = token.map(\.description) ?? "nil"
        return Localized("\(en): got \(shown)", ja: "\(ja): \(shown) を得た")
    }

    /// Game 1 and part 1: the actor as it shipped.
    @Sendable static func tokenAsItHappened() async throws -> String {
        let manager = AuthManager(server: AuthServer())
        return try await readDuringRefresh(refresh: { await manager.refreshToken() }, read: { await manager.token() })
    }

    /// The reader asked while a refresh was in flight (it began at 0 ms): only the new token will do.
    static func classifyReader(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "reader=v2" ? .acceptable : .forbidden
    }

    /// Two refreshers and a reader on the complete fix. Returns `refreshes=… A=… B=… reader=…`.
    @Sendable static func completeUnderLoad() async throws -> String {
        let server = AuthServer()
        let manager = AuthManagerComplete(server: server)
        let clock = ExplorerClock()
        nameNextTasks("A", "B", readerName, refreshTaskName)
        async let a = manager.refreshToken()
        async let b = manager.refreshToken()
        async let read: Token = {
            try await clock.sleep(for: .milliseconds(10))
            return try await manager.token()
        }()
        let (first, second, third) = try await (a, b, read)
        return "refreshes=\(server.refreshes) A=\(first) B=\(second) reader=\(third)"
    }

    static func classifyUnderLoad(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "refreshes=1 A=v2 B=v2 reader=v2" ? .acceptable : .forbidden
    }

    /// Part 3: the server fails the first refresh. A and B refresh at once; later C asks again.
    /// Returns `A=… B=… C=… refreshes=…`.
    static func failedRefresh(complete: Bool) async throws -> String {
        let server = AuthServer(failing: 1)
        let clock = ExplorerClock()
        @Sendable func describe(_ result: Result<Token?, any Error>) -> String {
            switch result {
            case let .success(token): token.map(\.description) ?? "nil"
            case let .failure(error): error is RefreshError ? "error" : "\(error)"
            }
        }
        let call: @Sendable () async throws -> Token?
        if complete {
            let manager = AuthManagerComplete(server: server)
            call = { try await manager.refreshToken() }
        } else {
            let manager = AuthManagerSlidesFix(server: server)
            call = { await manager.refreshToken() }
        }
        nameNextTasks("A", "B", refreshTaskName)
        async let a = result(of: call)
        async let b = result(of: call)
        let (first, second) = await (a, b)
        try await clock.sleep(for: .milliseconds(50))
        let third = await result(of: call)
        return "A=\(describe(first)) B=\(describe(second)) C=\(describe(third)) refreshes=\(server.refreshes)"
    }

    /// Part 4: A and B refresh at once on the complete fix; A's task is cancelled at 5 ms.
    /// Returns `A=… B=… server=…`.
    @Sendable static func cancelledCaller() async throws -> String {
        let server = AuthServer()
        let manager = AuthManagerComplete(server: server)
        let clock = ExplorerClock()
        nameNextTasks("A", "B", refreshTaskName)
        let a = Task { try await manager.refreshToken() }
        let b = Task { try await manager.refreshToken() }
        try await clock.sleep(for: .milliseconds(5))
        a.cancel()
        checkpoint(Localized("A's task cancelled", ja: "A のタスクをキャンセル"))
        let first = await a.result, second = await b.result
        func describe(_ result: Result<Token, any Error>) -> String {
            switch result {
            case let .success(token): token.description
            case let .failure(error): error is CancellationError ? "CancellationError" : "\(error)"
            }
        }
        return "A=\(describe(first)) B=\(describe(second)) server=\(server.endings.joined(separator: ","))"
    }

    static let tokenRefresh = Scenario(
        slug: "token-refresh",
        title: Localized("The token refresh, as it happened: a read during the refresh gets the old token",
                         ja: "トークンのリフレッシュ、実際に起きたこと: リフレッシュ中の読み取りが古いトークンを得る"),
        narration: Localized(
            """
            The slides' first problem. An actor, `AuthManager`, holds the token: `token()` reads it, `refreshToken()` asks the server for a new one and awaits the answer inside the actor. \
            The write path already joined a refresh in flight (a second `refreshToken()` awaited the stored task); the read path did not. \
            A refresher calls `refreshToken()` at 0 ms; the server answers at 10 ms; a reader calls `token()` at 10 ms. \
            1) As it shipped, explored. 2) The slides' fix: `token()` joins the stored task too. \
            3) The complete fix — task stored before the first `await`, cleared in the same stretch that stores the token, errors thrown to every waiter — with two refreshers and a reader. \
            4) A refresh that fails, on the slides' fix and on the complete one. 5) One caller cancelled while the shared refresh runs.
            """,
            ja: """
            スライドの 1 つ目の問題です。アクター `AuthManager` がトークンを持ちます。`token()` はそれを読み、`refreshToken()` はサーバーに新しいトークンを求め、その応答をアクターの中で await します。\
            書き込み側は実行中のリフレッシュにすでに加わっていました（2 回目の `refreshToken()` は保存されたタスクを await した）が、読み取り側はそうしていませんでした。\
            リフレッシュ役が 0 ms に `refreshToken()` を呼び、サーバーは 10 ms に応答し、読み手が 10 ms に `token()` を呼びます。\
            1) 出荷されたときの形を探索。2) スライドの修正: `token()` も保存されたタスクに加わる。\
            3) 完全な修正（最初の `await` の前にタスクを保存し、トークンを保存するのと同じ区間でタスクを消し、エラーを待っている全員にスローする）を、リフレッシュ役 2 つと読み手 1 つで。\
            4) 失敗するリフレッシュを、スライドの修正と完全な修正で。5) 共有のリフレッシュの実行中に、呼び出し元の 1 つがキャンセルされる。
            """),
        prediction: .init(
            question: Localized(
                "The refresher is suspended at `await` inside the actor, waiting for the server. The reader calls token() on the same actor. What happens? A) the reader waits until the refresh is done and gets v2 B) the reader runs at once and gets v1, the token being replaced C) it depends on the schedule: v1 or v2",
                ja: "リフレッシュ役はアクターの中の `await` でサスペンドし、サーバーを待っています。読み手が同じアクターの token() を呼びます。どうなる？ A) 読み手はリフレッシュが終わるまで待ち、v2 を得る B) 読み手はすぐに動き、置き換えられる途中の v1 を得る C) スケジュール次第: v1 か v2"),
            explanation: Localized(
                "C. While the refresher is suspended, the actor is free and token() runs at once: v1. The reader gets v2 only in the schedules where the whole refresh — the server's answer and the store back on the actor — ends before it asks. Nothing in the actor makes the reader wait; only the stored task, joined by the reader, does.",
                ja: "C です。リフレッシュ役がサスペンドしている間アクターは空いていて、token() はすぐに動きます（v1）。読み手が v2 を得るのは、リフレッシュ全体（サーバーの応答と、アクターに戻っての保存）が読み手の問い合わせより前に終わるスケジュールだけです。アクター自体は読み手を待たせません。待たせるのは、読み手が加わる保存されたタスクだけです。"),
            observe: { $0.noted("as it happened letter") ?? "" },
            isPossible: { $0 == "C" })
    ) { context in
        let story = await explore(classify: classifyReader, tokenAsItHappened)
        context.show(story, Localized("1) As it shipped: the reader must get v2", ja: "1) 出荷されたとき: 読み手は v2 を得るべき"), game: 1, key: "as it happened")
        let seen = Set(story.outcomes)
        context.note("as it happened letter", seen == ["reader=v1", "reader=v2"] ? "C" : seen == ["reader=v1"] ? "B" : "A")

        let slidesFix = await explore(classify: classifyReader) {
            let manager = AuthManagerSlidesFix(server: AuthServer())
            return try await readDuringRefresh(refresh: { await manager.refreshToken() }, read: { await manager.token() })
        }
        context.show(slidesFix, Localized("2) The slides' fix: token() joins refreshTask too", ja: "2) スライドの修正: token() も refreshTask に加わる"), key: "slides fix")

        let complete = await explore(classify: classifyUnderLoad, completeUnderLoad)
        context.show(complete, Localized("3) The complete fix: A and B refresh at 0 ms, the reader reads at 10 ms", ja: "3) 完全な修正: A と B が 0 ms にリフレッシュし、読み手が 10 ms に読む"), key: "complete")

        let slidesFailure = await inVirtualTime { try await failedRefresh(complete: false) }.outcomeText
        let completeFailure = await inVirtualTime { try await failedRefresh(complete: true) }.outcomeText
        context.note("slides fix failure", slidesFailure)
        context.note("complete failure", completeFailure)
        context.say(Localized(
            "4) The first refresh fails; A and B were waiting on it; C calls 50 ms later:",
            ja: "4) 最初のリフレッシュが失敗します。A と B はそれを待っていました。C は 50 ms 後に呼びます:"))
        context.show("     " + padded(context.text(Localized("slides' fix", ja: "スライドの修正")), to: 16) + slidesFailure)
        context.show("     " + padded(context.text(Localized("complete fix", ja: "完全な修正")), to: 16) + completeFailure)
        context.say(Localized(
            "   The slides' fix turns the failure into nil for everyone, and its early `return nil` leaves refreshTask set: C joined the failed task and the server never heard from it again. The complete fix threw the error to A and B, cleared the task, and C's call refreshed.",
            ja: "   スライドの修正は失敗を全員にとっての nil に変え、途中の `return nil` が refreshTask を残します。C は失敗したタスクに加わり、サーバーに二度と問い合わせませんでした。完全な修正はエラーを A と B にスローし、タスクを消したので、C の呼び出しはリフレッシュしました。"))
        let trace = Localized("failed refresh", ja: "失敗したリフレッシュ")
        context.trace.record(.verbatim(slidesFailure), lane: trace)
        context.trace.record(.verbatim(completeFailure), lane: trace)

        let cancelled = await inVirtualTime(cancelledCaller).outcomeText
        context.note("cancelled caller", cancelled)
        context.say(Localized(
            """
            5) A and B refresh at once on the complete fix; A's task is cancelled at 5 ms: \(cancelled). \
            The shared refresh went on and B got its token: `await task.value` waits for an unstructured task, it does not cancel it. A got the token as well; A can check `Task.isCancelled` itself if it should stop.
            """,
            ja: """
            5) 完全な修正で A と B が同時にリフレッシュし、5 ms に A のタスクをキャンセルします: \(cancelled)。\
            共有のリフレッシュは続き、B はそのトークンを得ました。`await task.value` は構造化されていないタスクを待つだけで、キャンセルはしません。A もトークンを得ました。止まるべきなら、A が自分で `Task.isCancelled` を確かめます。
            """))
        context.trace.record(.verbatim(cancelled), lane: Localized("cancelled caller", ja: "キャンセルされた呼び出し元"))
    }
}
