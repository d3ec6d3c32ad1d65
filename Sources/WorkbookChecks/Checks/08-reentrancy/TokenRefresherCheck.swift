import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 08-reentrancy/TokenRefresher under the explorer, on a fresh server and
/// refresher per schedule, in virtual time (the server answers a refresh 10 ms after it began).
/// Callers come from a `Task {}`, a `Task.detached` and child tasks; each notes, when it asks,
/// which token it is owed: the newest one issued, or the one of a refresh in flight.
///
/// 1. The story: A's request was rejected and A refreshes; B asks for a token 5 ms later, C as
///    the refresh ends.
/// 2. The token has expired; three callers ask at once.
/// 3. Two requests rejected at once: two callers refresh.
/// 4. The refresh fails while A and B wait on it; C, whose request was rejected later, refreshes.
/// 5. A refreshes; B and C ask 2 ms later; A's caller is cancelled at 5 ms.
public enum TokenRefresherCheck {
    public static let oneRefresh = Property(
        id: "one-refresh",
        name: Localized("callers join the refresh in flight", ja: "呼び出し元は実行中のリフレッシュに加わる"),
        rule: Localized("A caller that asks while a refresh is in flight joins it: the server never sees two refreshes at once, and `token()` refreshes only a token that has expired.",
                        ja: "リフレッシュの実行中に尋ねた呼び出し元は、それに加わる。サーバーが同時に 2 つのリフレッシュを受けることはなく、`token()` がリフレッシュするのは期限切れのトークンだけ。"))
    public static let freshToken = Property(
        id: "stale-token",
        name: Localized("no caller gets an old token", ja: "古いトークンを受け取る呼び出し元はない"),
        rule: Localized("No caller gets a token older than a refresh that was in flight, or done, when it asked.",
                        ja: "尋ねた時点で実行中の、または終わっていたリフレッシュより古いトークンを、呼び出し元は受け取らない。"))
    public static let failureShared = Property(
        id: "failure-not-shared",
        name: Localized("a failure reaches every waiter, and the next call retries", ja: "失敗は待っている全員に届き、次の呼び出しは再試行する"),
        rule: Localized("A failed refresh reaches every caller waiting on it, as its error; the next `refreshToken()` asks the server again.",
                        ja: "失敗したリフレッシュは、それを待っているすべての呼び出し元にそのエラーとして届く。次の `refreshToken()` はサーバーにもう一度頼む。"))
    public static let cancelStaysLocal = Property(
        id: "cancel-spreads",
        name: Localized("one caller's cancel reaches no other caller", ja: "1 つの呼び出し元のキャンセルはほかの呼び出し元に及ばない"),
        rule: Localized("When one caller is cancelled, the shared refresh goes on and the other callers get its token; the cancelled caller may get it too, or stop with `CancellationError`.",
                        ja: "1 つの呼び出し元がキャンセルされても、共有のリフレッシュは続き、ほかの呼び出し元はそのトークンを受け取る。キャンセルされた呼び出し元もそれを受け取るか、`CancellationError` で止まってよい。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [oneRefresh, freshToken, failureShared, cancelStaysLocal, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget.guaranteeing(preemptions: 2)
    static let ok = "ok"

    public typealias Make = @Sendable (TokenServer) -> any TokenRefresherProtocol

    /// Which of the refresher's two doors a caller takes.
    enum Door: Sendable {
        case token, refresh
        var call: String { self == .token ? "token()" : "refreshToken()" }
    }

    /// What one caller asked and got.
    struct Answer: Sendable {
        let caller: String
        let door: Door
        let askedAt: Int
        /// The version the caller is owed: the newest issued when it asked, one more while a
        /// refresh was in flight.
        let owed: Int
        let refreshInFlight: Bool
        let result: Result<AuthToken, any Error>

        var version: Int? { try? result.get().version }
        var error: (any Error)? { if case let .failure(error) = result { error } else { nil } }
        var got: Localized {
            switch result {
            case let .success(token): Localized("token v\(token.version)", ja: "トークン v\(token.version)")
            case let .failure(error): .verbatim(errorName(error))
            }
        }
    }

    /// Asks the refresher through `door` at `at` ms of virtual time, noting what is owed then.
    static func ask(_ caller: String, _ door: Door, at: Int, _ refresher: any TokenRefresherProtocol, _ server: TokenServer) async -> Answer {
        await arrive(at: at)
        let inFlight = server.endings.contains { $0 == nil }
        let owed = server.newestIssued + (inFlight ? 1 : 0)
        checkpoint("\(caller): \(door.call)")
        let result = await outcome { door == .token ? try await refresher.token() : try await refresher.refreshToken() }
        let answer = Answer(caller: caller, door: door, askedAt: at, owed: owed, refreshInFlight: inFlight, result: result)
        checkpoint(Localized("\(caller): got \(answer.got.en)", ja: "\(caller): \(answer.got.ja) を受け取った"))
        return answer
    }

    struct Case: Sendable {
        let call: Localized
        let replies: [TokenServer.Reply]
        let firstTokenExpired: Bool
        /// Refreshes a right answer makes, when the case fixes it.
        let refreshes: Int?
        let body: @Sendable (any TokenRefresherProtocol, TokenServer) async -> [Answer]
    }

    static let cases: [Case] = [
        Case(call: Localized("A's request was rejected, so A calls refreshToken(); B calls token() 5 ms later, and C at 10 ms, as the refresh ends (the story)",
                             ja: "A のリクエストが拒否されたので A が refreshToken() を呼ぶ。5 ms 後に B が、リフレッシュが終わる 10 ms に C が token() を呼ぶ（事例）"),
             replies: [], firstTokenExpired: false, refreshes: 1) { refresher, server in
            nameNextTasks(BilingualLabel.join("A (Task {})", "A（Task {}）"))
            let a = Task { await ask("A", .refresh, at: 0, refresher, server) }
            nameNextTasks("B", "C")
            async let b = ask("B", .token, at: 5, refresher, server)
            async let c = ask("C", .token, at: 10, refresher, server)
            return [await a.value, await b, await c]
        },
        Case(call: Localized("the token has expired; A, B and C call token() at once — from a Task {}, a Task.detached and a child task",
                             ja: "トークンの期限が切れている。A、B、C が同時に token() を呼ぶ（Task {}、Task.detached、子タスクから）"),
             replies: [], firstTokenExpired: true, refreshes: 1) { refresher, server in
            nameNextTasks(BilingualLabel.join("A (Task {})", "A（Task {}）"), BilingualLabel.join("B (Task.detached)", "B（Task.detached）"))
            let a = Task { await ask("A", .token, at: 0, refresher, server) }
            let b = Task.detached { await ask("B", .token, at: 0, refresher, server) }
            nameNextTasks("C")
            async let c = ask("C", .token, at: 0, refresher, server)
            return [await a.value, await b.value, await c]
        },
        Case(call: Localized("two requests rejected at once: A and B call refreshToken()",
                             ja: "2 つのリクエストが同時に拒否された。A と B が refreshToken() を呼ぶ"),
             replies: [], firstTokenExpired: false, refreshes: nil) { refresher, server in
            nameNextTasks("A", "B")
            async let a = ask("A", .refresh, at: 0, refresher, server)
            async let b = ask("B", .refresh, at: 0, refresher, server)
            return [await a, await b]
        },
        Case(call: Localized("the refresh fails: A calls refreshToken(), B calls token() 5 ms later; at 20 ms C's request is rejected and C calls refreshToken()",
                             ja: "リフレッシュが失敗する。A が refreshToken() を、5 ms 後に B が token() を呼ぶ。20 ms に C のリクエストが拒否され、C が refreshToken() を呼ぶ"),
             replies: [.failure, .token], firstTokenExpired: false, refreshes: 2) { refresher, server in
            nameNextTasks("A", "B", "C")
            async let a = ask("A", .refresh, at: 0, refresher, server)
            async let b = ask("B", .token, at: 5, refresher, server)
            async let c = ask("C", .refresh, at: 20, refresher, server)
            return [await a, await b, await c]
        },
        Case(call: Localized("A calls refreshToken() from a Task {}; B and C call token() 2 ms later; A's task is cancelled at 5 ms",
                             ja: "A が Task {} から refreshToken() を呼ぶ。2 ms 後に B と C が token() を呼ぶ。5 ms に A のタスクがキャンセルされる"),
             replies: [], firstTokenExpired: false, refreshes: 1) { refresher, server in
            nameNextTasks(BilingualLabel.join("A (Task {})", "A（Task {}）"))
            let a = Task { await ask("A", .refresh, at: 0, refresher, server) }
            nameNextTasks("B", "C")
            async let b = ask("B", .token, at: 2, refresher, server)
            async let c = ask("C", .token, at: 2, refresher, server)
            try? await ExplorerClock().sleep(for: .milliseconds(5))
            checkpoint(Localized("A's task is cancelled", ja: "A のタスクがキャンセルされる"))
            a.cancel()
            return [await a.value, await b, await c]
        },
    ]

    public static func run(_ make: @escaping Make) -> CheckResult {
        for item in cases {
            let failure = checkExplored(oneRefresh, title: item.call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(item.call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) {
                let server = TokenServer(replies: item.replies, firstTokenExpired: item.firstTokenExpired)
                let answers = await item.body(make(server), server)
                await untilQuiet()  // a refresh nobody awaits any more still ends before the judging
                return judge(item, answers, server)
            }
            if let failure { return .failed(failure) }
        }
        return .passed(properties)
    }

    static func judge(_ item: Case, _ answers: [Answer], _ server: TokenServer) -> String {
        if server.mostAtOnce > 1 {
            return brokenOutcome(oneRefresh, Localized(
                "the server had \(server.mostAtOnce) refreshes in flight at once (\(server.refreshes) in all)",
                ja: "サーバーは同時に \(server.mostAtOnce) 個のリフレッシュを受けた（全部で \(server.refreshes) 個）"))
        }
        for answer in answers {
            guard let version = answer.version, version < answer.owed else { continue }
            let when = answer.refreshInFlight
                ? Localized("while a refresh was in flight", ja: "リフレッシュの実行中に")
                : Localized("after the refresh to v\(answer.owed) was done", ja: "v\(answer.owed) へのリフレッシュが終わった後に")
            return brokenOutcome(freshToken, Localized(
                "\(answer.caller) called \(answer.door.call) at \(answer.askedAt) ms, \(when.en), and got token v\(version)",
                ja: "\(answer.caller) は \(answer.askedAt) ms に\(when.ja) \(answer.door.call) を呼び、トークン v\(version) を受け取った"))
        }
        if item.replies.first == .failure {
            // Those that asked while the failing refresh was in flight get its error.
            for answer in answers where answer.askedAt < 10 && !(answer.error is TokenServerError) {
                return brokenOutcome(failureShared, Localized(
                    "\(answer.caller) waited on the refresh that failed, and got \(answer.got.en), not its error",
                    ja: "\(answer.caller) は失敗したリフレッシュを待っていたが、そのエラーではなく \(answer.got.ja) を受け取った"))
            }
            if let retry = answers.first(where: { $0.askedAt >= 10 }), retry.version == nil {
                let asked = server.refreshes < 2 ? Localized("without asking the server again", ja: "サーバーにもう一度頼まずに")
                    : Localized("although the server was asked again", ja: "サーバーにもう一度頼んだのに")
                return brokenOutcome(failureShared, Localized(
                    "\(retry.caller) called refreshToken() at \(retry.askedAt) ms, after the failure, and got \(retry.got.en) \(asked.en)",
                    ja: "\(retry.caller) は失敗の後の \(retry.askedAt) ms に refreshToken() を呼び、\(asked.ja)\(retry.got.ja) を受け取った"))
            }
        }
        if server.endings.contains(.cancelled) {
            let others = answers.filter { $0.caller != "A" }.map { "\($0.caller) got \($0.got.en)" }.joined(separator: ", ")
            let othersJa = answers.filter { $0.caller != "A" }.map { "\($0.caller) は \($0.got.ja)" }.joined(separator: "、")
            return brokenOutcome(cancelStaysLocal, Localized(
                "cancelling A's task cancelled the shared refresh: \(others)",
                ja: "A のタスクのキャンセルが共有のリフレッシュをキャンセルした: \(othersJa)"))
        }
        for answer in answers where answer.caller != "A" && answer.error is CancellationError {
            return brokenOutcome(cancelStaysLocal, Localized(
                "\(answer.caller) was not cancelled, yet got CancellationError",
                ja: "\(answer.caller) はキャンセルされていないのに CancellationError を受け取った"))
        }
        if let expected = item.refreshes, server.refreshes != expected {
            return brokenOutcome(oneRefresh, Localized(
                "the server was asked for \(server.refreshes) refreshes where \(expected) \(expected == 1 ? "was" : "were") needed: `token()` refreshed a token that had not expired",
                ja: "必要なリフレッシュは \(expected) 個なのに、サーバーは \(server.refreshes) 個頼まれた。`token()` が期限切れでないトークンをリフレッシュした"))
        }
        return ok
    }

    static let leftWaiting = Localized(
        "A call never came back: a caller waits for a refresh nobody finishes — a continuation that only another caller resumes, or a task that waits for itself.",
        ja: "呼び出しが戻りませんでした。呼び出し元が、誰も終わらせないリフレッシュを待っています（ほかの呼び出し元しか再開しない継続、自分自身を待つタスク）。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case oneRefresh.id:
                Localized("Each caller that finds no refresh stored starts its own: keep the refresh in flight (a `Task`) in the actor, stored before the first `await`, and have every caller — `token()` too — await that one.",
                          ja: "保存されたリフレッシュを見つけられなかった呼び出し元が、それぞれ自分のリフレッシュを始めています。実行中のリフレッシュ（`Task`）をアクターに持たせ、最初の `await` より前に保存し、すべての呼び出し元（`token()` も）にその 1 つを待たせましょう。")
            case freshToken.id:
                Localized("An actor lets other calls in while a method waits at an `await`: the token was read while the refresh was still running, or after the refresh task was cleared but before its token was stored. Join the refresh in flight on every path, and store the token and clear the task with no `await` between them.",
                          ja: "アクターは、メソッドが `await` で待っている間にほかの呼び出しを入れます。トークンは、リフレッシュがまだ動いている間に、またはリフレッシュのタスクを消した後・トークンを保存する前に読まれました。すべての経路で実行中のリフレッシュに加わり、トークンの保存とタスクの消去は間に `await` を挟まずに行いましょう。")
            case failureShared.id:
                Localized("Give every waiter the refresh's own result — its token or its error — and clear the stored task when it ends either way, so that the next call starts afresh.",
                          ja: "待っている全員に、リフレッシュ自身の結果（トークンかエラー）を渡しましょう。そして成功でも失敗でも、終わったら保存したタスクを消し、次の呼び出しが新しく始められるようにします。")
            case cancelStaysLocal.id:
                Localized("The refresh belongs to no caller: make it an unstructured `Task`, and let a caller's cancellation stop only its own wait — `await task.value` does not cancel the task, and nothing should call `task.cancel()` for one caller.",
                          ja: "リフレッシュはどの呼び出し元のものでもありません。非構造化の `Task` にして、呼び出し元のキャンセルはその呼び出し元の待機だけを止めるようにしましょう。`await task.value` はタスクをキャンセルしません。1 つの呼び出し元のために `task.cancel()` を呼ぶものがあってはいけません。")
            default:
                nil
            }
        }
    }
}
