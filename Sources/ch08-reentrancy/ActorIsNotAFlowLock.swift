import WorkbookCore
import WorkbookExplorer

/// The refresh before actors, in the callback style of the RxSwift era: every access to the token
/// is under a lock, and a caller refreshes only if the token the server rejected is still the
/// current one. Each access is exclusive; the flow — check, refresh, store — is not: between the
/// check and the callback that stores, a second caller passes the same check.
final class CallbackAuthClient: Sendable {
    private let server: AuthServer
    private let current = Locked(Token(version: 1))

    init(server: AuthServer) { self.server = server }

    func refreshToken(rejected: Token, completion: @escaping @Sendable (Token?) -> Void) {
        let stillCurrent = current.withLock { $0 == rejected }
        guard stillCurrent else { return completion(current.current) }
        Task {                                              // stands for the network library's callback
            let fresh = try? await server.refresh()
            if let fresh { current.withLock { $0 = fresh } }
            completion(fresh)
        }
    }
}

/// The same flow as an actor, without a refresh in flight: no data race, and the same hole. The
/// `await` shows where it is — a second caller runs there and passes the same guard.
actor RefreshingActor {
    private let server: AuthServer
    private var current = Token(version: 1)

    init(server: AuthServer) { self.server = server }

    func refreshToken(rejected: Token) async throws -> Token {
        guard current == rejected else { return current }   // someone refreshed already
        let fresh = try await server.refresh()              // suspends: the guard above goes stale
        current = fresh
        return fresh
    }
}

/// With the refresh in flight as state, the flow is one refresh per rejected token.
actor RefreshingActorInFlight {
    private let server: AuthServer
    private var current = Token(version: 1)
    private var refreshing: Task<Token, Error>?

    init(server: AuthServer) { self.server = server }

    func refreshToken(rejected: Token) async throws -> Token {
        if let refreshing { return try await refreshing.value }
        guard current == rejected else { return current }
        let task = Task {
            defer { refreshing = nil }
            let fresh = try await server.refresh()
            current = fresh
            return fresh
        }
        refreshing = task
        return try await task.value
    }
}

extension Chapter08 {
    /// Requests A and B were both rejected with v1. A asks for a refresh at 0 ms; B at 10 ms, when
    /// the server answers A. Returns `refreshes=… A=… B=…`.
    static func twoRejected(server: AuthServer, refresh: @escaping @Sendable (_ caller: String, _ rejected: Token) async throws -> Token?) async throws -> String {
        let clock = ExplorerClock()
        nameNextTasks("A", "B", refreshTaskName, refreshTaskName)
        async let a: Token? = {
            checkpoint(Localized("A: 401 with v1, refresh", ja: "A: v1 で 401、リフレッシュ"))
            return try await refresh("A", Token(version: 1))
        }()
        async let b: Token? = {
            try await clock.sleep(for: .milliseconds(10))
            checkpoint(Localized("B: 401 with v1, refresh", ja: "B: v1 で 401、リフレッシュ"))
            return try await refresh("B", Token(version: 1))
        }()
        let (first, second) = try await (a, b)
        return "refreshes=\(server.refreshes) A=\(first.map(\.description) ?? "nil") B=\(second.map(\.description) ?? "nil")"
    }

    @Sendable static func actorWithoutInFlight() async throws -> String {
        let server = AuthServer()
        let manager = RefreshingActor(server: server)
        return try await twoRejected(server: server) { try await manager.refreshToken(rejected: $1) }
    }

    /// One refresh per rejected token; a second refresh retires the token the first one handed out.
    static func classifyRefreshes(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "refreshes=1 A=v2 B=v2" ? .acceptable : .forbidden
    }

    static let actorIsNotAFlowLock = Scenario(
        slug: "actor-is-not-a-flow-lock",
        title: Localized("An actor alone is not mutual exclusion for a flow", ja: "アクターだけでは、一連の処理の排他にはならない"),
        narration: Localized(
            """
            The slides adopted actors because the RxSwift refresh had a hole in its mutual exclusion. Two requests were rejected with v1 (401). \
            A asks for a refresh at 0 ms; B at 10 ms, as the server answers A. A caller refreshes only if the rejected token is still the current one. Rule: one refresh, and both get v2. \
            1) The callback version: every access to the token under a lock. 2) The same flow in an actor. 3) The actor with the refresh in flight as state. All explored.
            """,
            ja: """
            スライドがアクターを採用したのは、RxSwift でのリフレッシュの排他制御に穴があったからでした。2 つのリクエストが v1 で拒否されました（401）。\
            A は 0 ms に、B はサーバーが A に応答する 10 ms にリフレッシュを求めます。拒否されたトークンがまだ現在のものであるときだけリフレッシュします。規則: リフレッシュは 1 回で、両方が v2 を得る。\
            1) コールバック版: トークンへのアクセスはすべてロックの中。2) 同じ処理をアクターで。3) 実行中のリフレッシュを状態として持つアクター。どれも探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 2: the refresh moved into an actor, with no task in flight. Can the server still be asked twice? A) no: the actor serializes the calls B) yes, as with the callbacks",
                ja: "パート 2: リフレッシュをアクターに移しました。実行中のタスクは持ちません。それでもサーバーに 2 回頼むことはある？ A) ない。アクターが呼び出しを直列にする B) ある。コールバックのときと同じく"),
            explanation: Localized(
                "B. The actor serializes each job, and a job ends at `await`. B's guard runs while A waits for the server, sees v1 still current, and starts a second refresh, which retires A's new token. Only the refresh in flight, stored before the `await`, makes the flow one refresh.",
                ja: "B です。アクターはジョブごとに直列にしますが、ジョブは `await` で終わります。A がサーバーを待つ間に B の guard が動き、v1 がまだ現在のものだと見て 2 回目のリフレッシュを始め、それが A の新しいトークンを無効にします。`await` の前に保存する実行中のリフレッシュだけが、この一連の処理をリフレッシュ 1 回にします。"),
            observe: { ($0.noted("actor forbidden") ?? "0") == "0" ? "A" : "B" },
            isPossible: { $0 == "B" })
    ) { context in
        let callbacks = await explore(classify: classifyRefreshes) {
            let server = AuthServer()
            let client = CallbackAuthClient(server: server)
            return try await twoRejected(server: server) { _, rejected in
                await withCheckedContinuation { done in client.refreshToken(rejected: rejected) { done.resume(returning: $0) } }
            }
        }
        context.show(callbacks, Localized("1) Callbacks, the token under a lock", ja: "1) コールバック、トークンはロックの中"), key: "callbacks")
        let actor = await explore(classify: classifyRefreshes, actorWithoutInFlight)
        context.show(actor, Localized("2) An actor, no refresh in flight", ja: "2) アクター、実行中のリフレッシュなし"), game: 4, key: "actor")
        let inFlight = await explore(classify: classifyRefreshes) {
            let server = AuthServer()
            let manager = RefreshingActorInFlight(server: server)
            return try await twoRejected(server: server) { try await manager.refreshToken(rejected: $1) }
        }
        context.show(inFlight, Localized("3) An actor with the refresh in flight", ja: "3) 実行中のリフレッシュを持つアクター"), key: "in flight")
        let perTab = await explore(classify: classifyRefreshes) {
            let server = AuthServer()
            let tabA = RefreshingActorInFlight(server: server), tabB = RefreshingActorInFlight(server: server)
            return try await twoRejected(server: server) { caller, rejected in
                try await (caller == "A" ? tabA : tabB).refreshToken(rejected: rejected)   // each tab its own instance
            }
        }
        context.show(perTab, Localized("4) The same actor, one instance per tab (A's and B's)", ja: "4) 同じアクターを、タブごとに 1 インスタンス（A 用と B 用）"), key: "per tab")
        context.say(Localized(
            "   The same outcomes for the callbacks and the actor: moving the code into an actor removed the data race, not the hole. What the actor did change is where the hole shows — at the `await`, in one method, instead of between a lock and a callback. And the refresh in flight serializes only the callers of one instance: with an instance per tab there were two refreshes again (chapter 07, scenario 6).",
            ja: "   コールバックとアクターで結果は同じです。コードをアクターに移すとデータ競合はなくなりますが、穴はなくなりません。アクターが変えたのは穴の見え方です。ロックとコールバックの間ではなく、1 つのメソッドの `await` のところに見えます。そして実行中のリフレッシュが直列にするのは、1 つのインスタンスの呼び出し元だけです。タブごとのインスタンスでは、リフレッシュは再び 2 回になりました（第 07 章のシナリオ 6）。"))
    }
}
