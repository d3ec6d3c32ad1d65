import Foundation
import WorkbookCore
import WorkbookExplorer

/// A fake auth server in virtual time. Tokens are versions: a refresh issues the next one and
/// retires every older one, as servers that rotate tokens do.
actor AuthServer {
    private let clock = ExplorerClock()
    private(set) var current = 1

    func refresh() async throws -> Int {
        try await clock.sleep(for: .milliseconds(30))
        current += 1
        return current
    }

    func request(_ path: String, token: Int) async throws -> String {
        try await clock.sleep(for: .milliseconds(10))
        return token == current ? "200" : "401"
    }
}

/// The slides' token store: an actor. Isolation is per instance — two stores are two
/// independent states, and serialize nothing between them.
actor TokenStore {
    private(set) var token = 1

    func refresh(on server: AuthServer) async throws {
        token = try await server.refresh()
    }
}

/// An API client for one tab. Whether tabs share a store is the caller's choice.
final class TabClient: Sendable {
    let tab: String
    let store: TokenStore
    let server: AuthServer

    init(tab: String, store: TokenStore, server: AuthServer) {
        self.tab = tab
        self.store = store
        self.server = server
    }

    /// Returns the token sent and the server's answer.
    func request(_ path: String) async throws -> (token: Int, status: String) {
        let token = await store.token
        return (token, try await server.request(path, token: token))
    }

    func refreshToken() async throws {
        try await store.refresh(on: server)
    }
}

/// A global actor: one isolation domain for every declaration marked with it, across types.
@globalActor actor AuthActor {
    static let shared = AuthActor()
}

/// A store isolated to the global actor. Each instance still has its own `token`: the global
/// actor serializes access, it does not merge state.
@AuthActor final class SessionStore {
    var token = 1

    func refresh(on server: AuthServer) async throws {
        token = try await server.refresh()
    }
}

/// A client on the same global actor: it reads the store's token without `await` — one domain.
@AuthActor final class SessionClient {
    let tab: String
    let store: SessionStore
    let server: AuthServer

    init(tab: String, store: SessionStore, server: AuthServer) {
        self.tab = tab
        self.store = store
        self.server = server
    }

    func request(_ path: String) async throws -> (token: Int, status: String, isolation: String) {
        let token = store.token           // synchronous: the store is on this client's actor
        let isolation = isolationName(#isolation)
        return (token, try await server.request(path, token: token), isolation)
    }
}

/// Events on the explorer's virtual clock, drawn once a run is over.
final class VirtualEvents: Sendable {
    private let clock = ExplorerClock()
    private let entries = Locked<[DrawnEvent]>([])

    func point(_ label: Localized, lane: Localized) {
        let offset = clock.now.offset.components
        let time = UInt64(max(0, offset.seconds)) * 1_000_000_000 + UInt64(max(0, offset.attoseconds)) / 1_000_000_000
        entries.withLock { $0.append(DrawnEvent(time: time, lane: lane, label: label, kind: .point)) }
    }

    var events: [DrawnEvent] { entries.current }
}

/// Runs `body` once under the explorer with the default choices: a deterministic run in
/// virtual time, on a thread of its own.
func inVirtualTime(_ body: @escaping Explorer.Body) async -> ScheduleReport {
    await onDedicatedThread {
        Explorer.play(budget: .init(maxSchedules: 1, maxSeconds: 10, foreignWaitSeconds: 0), choose: { $0.defaultChoice }, body)
    }
}

extension Chapter07 {
    /// Tab 1 refreshes the token, then tab 2 sends a request. `shared`: one store for both tabs.
    /// Returns `stores=… token=… status=…` for tab 2's request.
    static func twoTabs(sharedStore: Bool, log: VirtualEvents) async throws -> String {
        let server = AuthServer()
        let first = TokenStore()
        let second = sharedStore ? first : TokenStore()
        let tab1 = TabClient(tab: "1", store: first, server: server)
        let tab2 = TabClient(tab: "2", store: second, server: server)
        let lane1 = Localized("tab 1", ja: "タブ 1"), lane2 = Localized("tab 2", ja: "タブ 2")
        log.point(Localized("refresh", ja: "リフレッシュ"), lane: lane1)
        try await tab1.refreshToken()
        log.point(.verbatim("v\(await first.token)"), lane: lane1)
        let (token, status) = try await tab2.request("/timeline")
        log.point(.verbatim("v\(token) → \(status)"), lane: lane2)
        let stores = Set([ObjectIdentifier(first), ObjectIdentifier(second)]).count
        return "stores=\(stores) token=v\(token) status=\(status)"
    }

    /// The same with stores isolated to a global actor: one per tab, or one shared.
    static func twoTabsOnGlobalActor(sharedStore: Bool, log: VirtualEvents) async throws -> String {
        let server = AuthServer()
        let (tab1, tab2, stores) = await makeSessionClients(sharedStore: sharedStore, server: server)
        let lane1 = Localized("tab 1", ja: "タブ 1"), lane2 = Localized("tab 2", ja: "タブ 2")
        log.point(Localized("refresh", ja: "リフレッシュ"), lane: lane1)
        try await tab1.store.refresh(on: server)
        log.point(.verbatim("v\(await tab1.store.token)"), lane: lane1)
        let (token, status, isolation) = try await tab2.request("/timeline")
        log.point(.verbatim("v\(token) → \(status)"), lane: lane2)
        log.point(.verbatim("#isolation: \(isolation)"), lane: lane2)
        return "stores=\(stores) token=v\(token) status=\(status)"
    }

    @AuthActor private static func makeSessionClients(sharedStore: Bool, server: AuthServer) -> (SessionClient, SessionClient, Int) {
        let first = SessionStore()
        let second = sharedStore ? first : SessionStore()
        let stores = Set([ObjectIdentifier(first), ObjectIdentifier(second)]).count
        return (SessionClient(tab: "1", store: first, server: server), SessionClient(tab: "2", store: second, server: server), stores)
    }

    static let isolationPerInstance = Scenario(
        slug: "isolation-per-instance",
        title: Localized("Isolation is per instance: one token store per tab, or one for all", ja: "隔離はインスタンスごと: タブごとのトークンストアか、全体で 1 つか"),
        narration: Localized(
            """
            The slides' second problem: an API client per tab, each with its own token-store actor. The server rotates tokens: a refresh issues version n + 1 and retires the older ones. \
            Tab 1 refreshes; then tab 2 sends a request. \
            1) One `TokenStore` actor per tab. 2) One instance shared by both tabs. \
            3) The stores isolated to a global actor, `@AuthActor`, one per tab. 4) One `@AuthActor` store shared, read by `@AuthActor` clients without `await`. \
            Virtual time: the refresh takes 30 ms, a request 10 ms.
            """,
            ja: """
            スライドの 2 つ目の問題です。タブごとに API クライアントがあり、それぞれが自分のトークンストアのアクターを持っていました。サーバはトークンをローテーションします。リフレッシュするとバージョン n + 1 を発行し、古いものを無効にします。\
            タブ 1 がリフレッシュし、その後タブ 2 がリクエストを送ります。\
            1) タブごとに 1 つの `TokenStore` アクター。2) 両方のタブで 1 つのインスタンスを共有。\
            3) ストアをグローバルアクター `@AuthActor` に隔離し、タブごとに 1 つ。4) `@AuthActor` のストアを 1 つ共有し、`@AuthActor` のクライアントが `await` なしで読む。\
            仮想時間: リフレッシュは 30 ms、リクエストは 10 ms です。
            """),
        prediction: .init(
            question: Localized(
                "Part 3: each tab has its own store, but both stores are isolated to one global actor, @AuthActor. Tab 1 refreshes, then tab 2 sends a request. What does the server answer? A) 200: one global actor means one shared token B) 401: each instance still has its own token",
                ja: "パート 3: タブごとにストアがありますが、どちらも 1 つのグローバルアクター @AuthActor に隔離されています。タブ 1 がリフレッシュし、その後タブ 2 がリクエストを送ります。サーバの答えは？ A) 200: グローバルアクターが 1 つならトークンも 1 つ B) 401: インスタンスごとにトークンがある"),
            explanation: Localized(
                "B. A global actor puts every instance in one isolation domain, so their code never runs at the same time — but each instance still has its own stored properties. Shared state needs one instance (a `static let shared`), whichever actor isolates it.",
                ja: "B です。グローバルアクターはすべてのインスタンスを 1 つの隔離ドメインに入れるので、それらのコードが同時に動くことはありません。しかし各インスタンスは自分のプロパティを持ったままです。状態を共有するにはインスタンスを 1 つ（`static let shared`）にします。どのアクターが隔離するかは関係ありません。"),
            observe: { $0.noted("global per tab letter") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        var rows: [(Localized, String)] = []
        let setups: [(Localized, Localized, @Sendable (VirtualEvents) async throws -> String)] = [
            (Localized("1) a TokenStore per tab", ja: "1) タブごとの TokenStore"), Localized("per tab", ja: "タブごと"),
             { @Sendable log in try await twoTabs(sharedStore: false, log: log) }),
            (Localized("2) one TokenStore shared", ja: "2) 共有する 1 つの TokenStore"), Localized("shared", ja: "共有"),
             { @Sendable log in try await twoTabs(sharedStore: true, log: log) }),
            (Localized("3) @AuthActor, a store per tab", ja: "3) @AuthActor、タブごとのストア"), Localized("global per tab", ja: "グローバル・タブごと"),
             { @Sendable log in try await twoTabsOnGlobalActor(sharedStore: false, log: log) }),
            (Localized("4) @AuthActor, one store", ja: "4) @AuthActor、1 つのストア"), Localized("global shared", ja: "グローバル・共有"),
             { @Sendable log in try await twoTabsOnGlobalActor(sharedStore: true, log: log) }),
        ]
        var allEvents: [DrawnEvent] = []
        var offset: UInt64 = 0
        for (index, (title, key, body)) in setups.enumerated() {
            let log = VirtualEvents()
            let report = await inVirtualTime { try await body(log) }
            let outcome = report.outcomeText
            if let isolation = log.events.map(\.label.en).first(where: { $0.hasPrefix("#isolation: ") }) {
                context.note("\(key.en) client isolation", String(isolation.dropFirst("#isolation: ".count)))
            }
            rows.append((title, outcome))
            context.note("\(key.en) outcome", outcome)
            // Each setup on lanes of its own, one after the other.
            let prefix = Localized("\(index + 1) ", ja: "\(index + 1) ")
            for event in log.events {
                allEvents.append(DrawnEvent(time: offset + event.time, lane: Localized(prefix.en + event.lane.en, ja: prefix.ja + event.lane.ja),
                                            label: event.label, kind: event.kind))
            }
            offset += (log.events.map(\.time).max() ?? 0) + 10_000_000
        }
        draw(allEvents, on: context.trace)
        let perTab = context.noted("global per tab outcome") ?? ""
        context.note("global per tab letter", perTab.contains("status=401") ? "B" : perTab.contains("status=200") ? "A" : "?")
        for (title, outcome) in rows {
            context.show("  " + padded(context.text(title), to: 34) + outcome)
        }
        context.say(Localized(
            """
            Tab 2's request after tab 1's refresh: with a store per tab it sent v1, which the refresh had retired (401: the session is lost on a tab switch); \
            with one shared instance it sent v2. A global actor did not change that: two instances on one actor are two tokens. \
            What it did give (4): the client read the store's token synchronously (its `#isolation` was \(context.noted("global shared client isolation") ?? "?")), because both are on @AuthActor. \
            Reach for a global actor when several types must change shared state together without an await between them (the main actor for UI); for one shared type, one instance of a plain actor is enough.
            """,
            ja: """
            タブ 1 のリフレッシュ後のタブ 2 のリクエスト: タブごとのストアでは、リフレッシュで無効になった v1 を送りました（401。タブを切り替えるとセッションが切れる）。\
            1 つのインスタンスを共有すると v2 を送りました。グローバルアクターはこれを変えません。1 つのアクター上の 2 つのインスタンスは、2 つのトークンです。\
            グローバルアクターがもたらしたもの（4）: クライアントはストアのトークンを同期的に読めました（`#isolation` は \(context.noted("global shared client isolation") ?? "?")）。どちらも @AuthActor 上にあるからです。\
            グローバルアクターを使うのは、複数の型が共有状態を、間に await を挟まずに一緒に変える必要があるとき（UI のためのメインアクターなど）です。共有する型が 1 つなら、普通のアクターのインスタンスを 1 つにすれば十分です。
            """))
    }
}
