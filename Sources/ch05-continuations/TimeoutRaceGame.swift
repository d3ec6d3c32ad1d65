import WorkbookCore
import WorkbookExplorer

/// A legacy request for the timeout race: its reply takes 20 ms; unless it was cancelled by
/// then, it marks itself finished and calls the handler on the library's callback queue.
final class RacingRequest: Sendable {
    private let state = Locked((cancelled: false, finished: false))

    var isCancelled: Bool { state.current.cancelled }
    var isFinished: Bool { state.current.finished }
    func cancel() { state.withLock { $0.cancelled = true } }

    func start(clock: ExplorerClock, callbacks: LegacyCallbackQueue, completion: @escaping @Sendable (String) -> Void) {
        Task {
            try? await clock.sleep(for: .milliseconds(20))  // the network
            guard !isCancelled else {
                checkpoint(Localized("request: cancelled → no callback", ja: "リクエスト: キャンセル済み → コールバックなし"))
                return
            }
            checkpoint(Localized("request: the reply arrived → to the callback queue", ja: "リクエスト: 応答が届いた → コールバックキューへ"))
            await callbacks.run {
                self.state.withLock { $0.finished = true }
                completion("photo")
            }
        }
    }
}

/// The legacy library's serial callback queue, as an actor: handing it a callback is a hop, so
/// under the explorer it is a step of its own, which a schedule may delay.
actor LegacyCallbackQueue {
    func run(_ work: @Sendable () -> Void) { work() }
}

/// Resumes a continuation at most once: the first `resume` takes it, later ones find nothing
/// and return false. The fix for two paths that may both try to finish one call.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let slot: Locked<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { slot = Locked(continuation) }

    @discardableResult
    func resume(returning value: Value) -> Bool {
        let continuation = slot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        continuation?.resume(returning: value)
        return continuation != nil
    }
}

extension Chapter05 {
    /// How the timeout race resumes its continuation.
    enum RaceResume: Sendable {
        /// The checked continuation, straight: a second resume traps (in a child process only).
        case real
        /// The game's stand-in for that: the first resume goes through, a second is counted
        /// where the real one would trap, so the game can show the schedule and go on.
        case counted
        /// The fix: `ResumeOnce`, so whichever path comes second finds nothing to resume.
        case guarded
    }

    /// A photo with a 20 ms timeout: the request and the timeout both finish the call, and each
    /// checks the other with a flag — check, then act. Returns `resumes=N value="…"` once every
    /// task is done.
    ///
    /// The wrong way: the timeout asks `request.isFinished` and then resumes; the request was
    /// checked for cancellation and its reply is on its way to the callback queue, not finished
    /// yet — both resume. The right way: one owner of the continuation that whichever path comes
    /// first takes (`ResumeOnce`), so the second finds nothing.
    @Sendable static func photoWithTimeout(_ mode: RaceResume) async -> String {
        let clock = ExplorerClock(), callbacks = LegacyCallbackQueue(), request = RacingRequest()
        let resumes = Locked(0)
        nameTask(Localized("caller", ja: "呼び出し元"))
        nameNextTasks(BilingualLabel.join("request", "リクエスト"), BilingualLabel.join("timeout", "タイムアウト"))
        let value: String = await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let finish: @Sendable (String, Localized) -> Void = { value, who in
                switch mode {
                case .real:
                    resumes.withLock { $0 += 1 }
                    checkpoint(Localized("\(who.en) → resume(returning: \"\(value)\")", ja: "\(who.ja) → resume(returning: \"\(value)\")"))
                    continuation.resume(returning: value)
                case .counted:
                    let count = resumes.withLock { $0 += 1; return $0 }
                    if count == 1 {
                        checkpoint(Localized("\(who.en) → resume(returning: \"\(value)\")", ja: "\(who.ja) → resume(returning: \"\(value)\")"))
                        continuation.resume(returning: value)
                    } else {
                        checkpoint(Localized("\(who.en) → resume(returning: \"\(value)\") — the second resume: a checked continuation traps here",
                                             ja: "\(who.ja) → resume(returning: \"\(value)\") — 2 回目の再開。チェック付きの継続ならここでトラップする"))
                    }
                case .guarded:
                    if once.resume(returning: value) {
                        resumes.withLock { $0 += 1 }
                        checkpoint(Localized("\(who.en) → resume(returning: \"\(value)\")", ja: "\(who.ja) → resume(returning: \"\(value)\")"))
                    } else {
                        checkpoint(Localized("\(who.en) → already resumed: nothing to do", ja: "\(who.ja) → 再開済み: 何もしない"))
                    }
                }
            }
            checkpoint(Localized("caller: starts the request and a 20 ms timeout", ja: "呼び出し元: リクエストと 20 ms のタイムアウトを始める"))
            request.start(clock: clock, callbacks: callbacks) { photo in
                finish(photo, Localized("callback", ja: "コールバック"))
            }
            Task {
                try? await clock.sleep(for: .milliseconds(20))
                guard !request.isFinished else {
                    checkpoint(Localized("timeout: the request has finished → nothing to do", ja: "タイムアウト: リクエストは完了済み → 何もしない"))
                    return
                }
                request.cancel()
                finish("timed out", Localized("timeout: not finished → request.cancel()", ja: "タイムアウト: 未完了 → request.cancel()"))
            }
        }
        checkpoint(Localized("caller: goes on with \"\(value)\"", ja: "呼び出し元: \"\(value)\" で続行"))
        await untilQuiet()  // let the other path finish too, so a second resume is counted
        return "resumes=\(resumes.current) value=\"\(value)\""
    }

    /// One resume is what the rules allow; two is a trap with a checked continuation.
    static func classifyResumes(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.hasPrefix("resumes=1 ") ? .acceptable : .forbidden
    }

    static let timeoutRaceExplanation = Localized(
        """
        Both paths finish the call, and each looks at the other through a flag first: check, then act. \
        The request was checked for cancellation and its reply was on its way to the callback queue — not finished yet — when the timeout asked `isFinished`, \
        so the timeout resumed, and then the callback resumed the same continuation again. \
        A checked continuation traps on that second resume (scenario 3 shows it, in a child process); here the game counted it instead. \
        The fix: one owner. Keep the continuation in one place that the first path takes under a lock (`ResumeOnce`); the second finds nothing and does nothing.
        """,
        ja: """
        2 つの経路がどちらも呼び出しを完了させ、それぞれ先にフラグで相手の様子を見ます。確認してから行動する、という形です。\
        リクエストがキャンセルの確認を済ませ、応答がコールバックキューへ向かっている途中（まだ完了していない）にタイムアウトが `isFinished` を見たので、\
        タイムアウトが再開し、その後でコールバックが同じ継続をもう一度再開しました。\
        チェック付きの継続はこの 2 回目の再開でトラップします（シナリオ 3 が子プロセスで見せます）。このゲームでは代わりに数えました。\
        対策は持ち主を 1 つにすることです。継続を 1 か所に置き、最初に来た経路がロックの下でそれを取り出します（`ResumeOnce`）。2 番目の経路は何も見つけず、何もしません。
        """)

    /// Game 1: a timeout racing a callback; find the schedule where both resume.
    static let timeoutRaceGame = Game(
        slug: "timeout-race",
        title: Localized("A timeout races the callback: can both resume?", ja: "タイムアウトとコールバックの競合: 両方が再開できるか？"),
        narration: Localized(
            """
            A caller awaits a photo with a 20 ms timeout, bridged with `withCheckedContinuation`. The request's reply takes 20 ms: \
            unless the request was cancelled by then, it goes to the library's callback queue (an actor), which marks the request finished and calls the handler, which resumes. \
            The timeout task sleeps 20 ms; if the request has not finished, it cancels the request and resumes with "timed out". \
            Both timers are due at 20 ms, and you pick which fires first, and who runs next. \
            A continuation must be resumed exactly once. Can you make both paths resume it? \
            (The game counts a second resume where a checked continuation would trap.)
            """,
            ja: """
            呼び出し元が 20 ms のタイムアウト付きで写真を待ちます。`withCheckedContinuation` でつないであります。リクエストの応答には 20 ms かかります。\
            その時点でキャンセルされていなければ、応答はライブラリのコールバックキュー（アクター）へ渡り、キューがリクエストを完了済みにしてハンドラを呼び、ハンドラが再開します。\
            タイムアウトのタスクは 20 ms スリープし、リクエストが完了していなければ、リクエストをキャンセルして "timed out" で再開します。\
            2 つのタイマーはどちらも 20 ms で満了します。どちらを先に発火させるか、次に誰を動かすかをあなたが選びます。\
            継続はちょうど 1 回だけ再開しなければなりません。両方の経路に再開させることはできますか？\
            （チェック付きの継続ならトラップするところを、このゲームでは 2 回目の再開として数えます。）
            """),
        explanation: timeoutRaceExplanation,
        classify: classifyResumes,
        body: { await photoWithTimeout(.counted) })
}
