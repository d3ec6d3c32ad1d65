import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 07-actors/SharedTokenStore under the explorer, on a fresh server and app per
/// schedule. Tabs refresh and send as the case says — some at once, from a `Task {}`, a
/// `Task.detached` and a child task —; the check notes, for each request, how many refreshes had
/// finished when it was sent, and the server notes the token each request came with.
///
/// 1. Tab 1 refreshes; then tab 2 sends.
/// 2. Tab 2 sends while tab 1 refreshes; then tab 2 sends again.
/// 3. Tab 1 refreshes; tab 3, made after that, sends.
/// 4. Tab 1 refreshes, then tab 2; then three tabs send at once.
public enum SharedTokenStoreCheck {
    public static let freshToken = Property(
        id: "stale-token",
        name: Localized("every tab sends the newest token", ja: "どのタブも最新のトークンを送る"),
        rule: Localized("No request goes out with a token older than the newest refresh that had finished when it was sent — whichever tab refreshed, and whenever the sending tab's client was made.",
                        ja: "送った時点で終わっていた最新のリフレッシュより古いトークンで、リクエストを送らない。どのタブがリフレッシュしたか、送るタブのクライアントがいつ作られたかによらない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [freshToken, Property.finishes, Property.freshState]

    static let budget: Explorer.Budget = {
        var budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.05)
        budget.guaranteedBound = 1
        return budget
    }()
    static let ok = "ok"

    /// What the check knows of one request: the tab, the path, and how many refreshes had
    /// finished when it was sent.
    struct Sent: Sendable {
        let tab: Int
        let path: String
        let refreshesDone: Int
    }

    typealias Body = @Sendable (any TokenAppProtocol, Refreshes) async -> [Sent]

    /// Counts finished refreshes (the check's own bookkeeping, invisible to ThreadSanitizer).
    final class Refreshes: Sendable {
        private let count = QuietLocked(0)
        var done: Int { count.current }
        func refresh(_ client: any APIClientProtocol, tab: Int) async {
            await client.refreshToken()
            count.withLock { $0 += 1 }
            checkpoint(Localized("tab \(tab): refresh done", ja: "タブ \(tab): リフレッシュ完了"))
        }
        func send(_ client: any APIClientProtocol, tab: Int, _ path: String) async -> Sent {
            let sent = Sent(tab: tab, path: path, refreshesDone: done)
            _ = await client.send(path)
            return sent
        }
    }

    static let cases: [(call: Localized, body: Body)] = [
        (Localized("tab 1 refreshes its token; then tab 2 sends /feed", ja: "タブ 1 がトークンをリフレッシュし、その後タブ 2 が /feed を送る"), { app, refreshes in
            let (one, two) = (app.makeClient(tab: 1), app.makeClient(tab: 2))
            await refreshes.refresh(one, tab: 1)
            return [await refreshes.send(two, tab: 2, "/feed")]
        }),
        (Localized("tab 2 sends /feed from a `Task {}` while tab 1 refreshes; then tab 2 sends /inbox", ja: "タブ 1 がリフレッシュしている間に、タブ 2 が `Task {}` から /feed を送る。その後タブ 2 が /inbox を送る"), { app, refreshes in
            let (one, two) = (app.makeClient(tab: 1), app.makeClient(tab: 2))
            nameNextTasks(BilingualLabel.join("tab 2 (Task {})", "タブ 2（Task {}）"))
            let feed = Task { await refreshes.send(two, tab: 2, "/feed") }
            await refreshes.refresh(one, tab: 1)
            let first = await feed.value
            return [first, await refreshes.send(two, tab: 2, "/inbox")]
        }),
        (Localized("tab 1 refreshes; tab 3, opened after that, sends /feed", ja: "タブ 1 がリフレッシュし、その後に開いたタブ 3 が /feed を送る"), { app, refreshes in
            await refreshes.refresh(app.makeClient(tab: 1), tab: 1)
            let three = app.makeClient(tab: 3)
            return [await refreshes.send(three, tab: 3, "/feed")]
        }),
        (Localized("tab 1 refreshes, then tab 2; then tabs 1, 2 and 3 send at once — from a `Task {}`, a `Task.detached` and a child task",
                   ja: "タブ 1、続いてタブ 2 がリフレッシュする。その後タブ 1、2、3 が同時に送る（`Task {}`、`Task.detached`、子タスクから）"), { app, refreshes in
            let clients = [app.makeClient(tab: 1), app.makeClient(tab: 2), app.makeClient(tab: 3)]
            await refreshes.refresh(clients[0], tab: 1)
            await refreshes.refresh(clients[1], tab: 2)
            nameNextTasks(BilingualLabel.join("tab 1 (Task {})", "タブ 1（Task {}）"), BilingualLabel.join("tab 2 (Task.detached)", "タブ 2（Task.detached）"))
            let first = Task { await refreshes.send(clients[0], tab: 1, "/feed") }
            let second = Task.detached { await refreshes.send(clients[1], tab: 2, "/feed") }
            nameNextTasks(BilingualLabel.join("tab 3 (child task)", "タブ 3（子タスク）"))
            async let third = refreshes.send(clients[2], tab: 3, "/feed")
            return [await first.value, await second.value, await third]
        }),
    ]

    public static func run(_ make: @escaping @Sendable (AuthServer) -> any TokenAppProtocol) -> CheckResult {
        for (call, body) in cases {
            let failure = checkExplored(freshToken, title: call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) {
                let server = AuthServer()
                let sent = await body(make(server), Refreshes())
                return judge(sent, server)
            }
            if let failure { return .failed(failure) }
        }
        return .passed(properties)
    }

    /// Each request the server received against what the check sent: the token must be the
    /// server's own, and at least as new as the refreshes finished before it was sent.
    static func judge(_ sent: [Sent], _ server: AuthServer) -> String {
        for request in server.requests {
            guard let mine = sent.first(where: { $0.tab == request.tab && $0.path == request.path }) else { continue }
            if !server.issued(request.token) {
                return brokenOutcome(freshToken, Localized(
                    "tab \(request.tab) sent \(request.path) with \(request.token) from another server: a store that outlived the app it was made for",
                    ja: "タブ \(request.tab) が、別のサーバーのトークン v\(request.token.version) で \(request.path) を送った。作られたアプリより長生きしたストアのトークン"))
            }
            if request.token.version < mine.refreshesDone {
                return brokenOutcome(freshToken, Localized(
                    "tab \(request.tab) sent \(request.path) with \(request.token), after the refresh to v\(mine.refreshesDone) had finished",
                    ja: "タブ \(request.tab) が \(request.path) をトークン v\(request.token.version) で送った。v\(mine.refreshesDone) へのリフレッシュはもう終わっていた"))
            }
        }
        return ok
    }

    static let leftWaiting = Localized(
        "A request or a refresh never returned: something in the store or the client waits for what never comes — a continuation nobody resumes, a refresh that waits for itself. `send` reads the store and sends; `refreshToken` awaits the server and stores the token.",
        ja: "リクエストかリフレッシュが戻りませんでした。ストアかクライアントの中で、決して来ないものを待っています（誰も再開しない継続、自分自身を待つリフレッシュ）。`send` はストアを読んで送り、`refreshToken` はサーバーを await してトークンを保存します。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case freshToken.id:
                Localized("An actor protects its own state, and only its own: two `TokenStore`s are two tokens. Make the store once, in the app (`init`), and hand the same instance to every client `makeClient` makes — not a new one per tab, and not a `static let shared` one that outlives the app.",
                          ja: "アクターが守るのは自分の状態だけです。`TokenStore` が 2 つあれば、トークンも 2 つです。ストアはアプリの中で（`init` で）1 回だけ作り、`makeClient` が作るすべてのクライアントに同じインスタンスを渡しましょう。タブごとに新しく作るのでも、アプリより長生きする `static let shared` でもありません。")
            default:
                nil
            }
        }
    }
}
