import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 07-actors/SharedTokenStore under the explorer, on a fresh server and app per
/// schedule. Tabs refresh and send as the case says — some at once, from a `Task {}`, a
/// `Task.detached` and a child task —; the check notes, for each request, the oldest token it
/// may go out with (`Refreshes`), and the server notes the token each request came with.
///
/// 1. Tab 1 refreshes; then tab 2 sends.
/// 2. Tab 2 sends while tab 1 refreshes; then tab 2 sends again.
/// 3. Tab 1 refreshes; tab 3, made after that, sends.
/// 4. Tab 1 refreshes, then tab 2; then three tabs send at once.
/// 5. Tabs 1 and 2 refresh at once; then tab 3 sends.
public enum SharedTokenStoreCheck {
    public static let freshToken = Property(
        id: "stale-token",
        name: Localized("every tab sends the newest token", ja: "どのタブも最新のトークンを送る"),
        rule: Localized("No request goes out with a token older than the newest refresh that had finished when it was sent — whichever tab refreshed, and whenever the sending tab's client was made.",
                        ja: "送った時点で終わっていた最新のリフレッシュより古いトークンで、リクエストを送らない。どのタブがリフレッシュしたか、送るタブのクライアントがいつ作られたかによらない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [freshToken, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget.guaranteeing(preemptions: 1)
    static let ok = "ok"

    /// What the check knows of one request: the tab, the path, and the oldest token version it
    /// may go out with.
    struct Sent: Sendable {
        let tab: Int
        let path: String
        let oldestAllowed: Int
    }

    typealias Body = @Sendable (any TokenAppProtocol, Refreshes) async -> [Sent]

    /// The check's own bookkeeping (invisible to ThreadSanitizer): which refreshes are in flight,
    /// and the oldest token a request may go out with. Each time the last refresh in flight
    /// returns, that rises by one at least — overlapping refreshes may share one trip to the
    /// server — and to the newest token the server has answered with: every answer that came
    /// back went to a refresh that has returned.
    final class Refreshes: Sendable {
        private struct State {
            var inFlight = 0
            var oldestAllowed = 0
        }
        private let state = QuietLocked(State())
        private let server: AuthServer
        init(_ server: AuthServer) { self.server = server }

        func refresh(_ client: any APIClientProtocol, tab: Int) async {
            state.withLock { $0.inFlight += 1 }
            await client.refreshToken()
            let newest = server.newestAnswered
            state.withLock { state in
                state.inFlight -= 1
                if state.inFlight == 0 { state.oldestAllowed = max(state.oldestAllowed + 1, newest) }
            }
            checkpoint(Localized("tab \(tab): refresh done", ja: "タブ \(tab): リフレッシュ完了"))
        }
        func send(_ client: any APIClientProtocol, tab: Int, _ path: String) async -> Sent {
            let sent = Sent(tab: tab, path: path, oldestAllowed: state.current.oldestAllowed)
            _ = await client.send(path)
            return sent
        }
    }

    /// The case where two refreshes overlap: an answer reaches it only when every tab already
    /// shares the store.
    static let overlappingRefreshes = Localized("tabs 1 and 2 refresh at once (tab 2 from a child task); then tab 3 sends /feed",
                                                ja: "タブ 1 と 2 が同時にリフレッシュする（タブ 2 は子タスクから）。その後タブ 3 が /feed を送る")

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
        (overlappingRefreshes, { app, refreshes in
            let clients = [app.makeClient(tab: 1), app.makeClient(tab: 2), app.makeClient(tab: 3)]
            nameNextTasks(BilingualLabel.join("tab 2 (child task)", "タブ 2（子タスク）"))
            async let second: Void = refreshes.refresh(clients[1], tab: 2)
            await refreshes.refresh(clients[0], tab: 1)
            await second
            return [await refreshes.send(clients[2], tab: 3, "/feed")]
        }),
    ]

    public static func run(_ make: @escaping @Sendable (AuthServer) -> any TokenAppProtocol) -> CheckResult {
        for (call, body) in cases {
            let failure = checkExplored(freshToken, title: call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) {
                let server = AuthServer()
                let sent = await body(make(server), Refreshes(server))
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
            if request.token.version < mine.oldestAllowed {
                return brokenOutcome(freshToken, Localized(
                    "tab \(request.tab) sent \(request.path) with \(request.token), after the refresh to v\(mine.oldestAllowed) had finished",
                    ja: "タブ \(request.tab) が \(request.path) をトークン v\(request.token.version) で送った。v\(mine.oldestAllowed) へのリフレッシュはもう終わっていた"))
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
            case freshToken.id where call == overlappingRefreshes:
                Localized("The tabs share the store, but its refresh stores whatever token comes back last. Two refreshes at once both wait for the server, and their answers may come back in either order: keep a token only when it is newer than the one stored (`TokenStore` in the stub does; chapter 08 tells why).",
                          ja: "タブはストアを共有していますが、リフレッシュが最後に戻ってきたトークンをそのまま保存しています。同時の 2 つのリフレッシュはどちらもサーバーを待ち、答えはどちらの順にも戻り得ます。保存中のものより新しいときだけトークンを保存しましょう（スタブの `TokenStore` はそうしています。理由は第 08 章で）。")
            case freshToken.id:
                Localized("An actor protects its own state, and only its own: two `TokenStore`s are two tokens. Make the store once, in the app (`init`), and hand the same instance to every client `makeClient` makes — not a new one per tab, and not a `static let shared` one that outlives the app.",
                          ja: "アクターが守るのは自分の状態だけです。`TokenStore` が 2 つあれば、トークンも 2 つです。ストアはアプリの中で（`init` で）1 回だけ作り、`makeClient` が作るすべてのクライアントに同じインスタンスを渡しましょう。タブごとに新しく作るのでも、アプリより長生きする `static let shared` でもありません。")
            default:
                nil
            }
        }
    }
}
