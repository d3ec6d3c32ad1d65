import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 04-async-await/CompletionToAsync under the explorer: every schedule of each
/// case, fewest preemptions first, on a fresh fake server and a fresh answer per schedule.
///
/// 1. One id per reply the server can give (an image, one too small to shrink, bytes that are
///    not an image, 404, offline): `thumbnail(for:)` returns the thumbnail or throws the error
///    the rules name for that reply.
/// 2. The caller cancels while the request is out (the explorer also tries the cancel before the
///    request and after the reply): `CancellationError` reaches it — or the thumbnail, when the
///    cancel came too late to matter.
/// 3. The same ids through `thumbnail(for:completion:)`: the check waits until nothing else can
///    run (`untilQuiet`), then counts the calls of the handler: exactly one, with what the async
///    version gives. A handler never called is a caller left waiting; one called twice is named so.
public enum CompletionToAsyncCheck {
    public static let returnsThumbnail = Property(
        id: "no-thumbnail",
        name: Localized("the thumbnail reaches the caller", ja: "サムネイルが呼び出し元に届く"),
        rule: Localized("For a picture that shrinks, `thumbnail(for:)` returns the server's thumbnail, and the completion handler gets `.success` with it.",
                        ja: "縮小できる画像なら、`thumbnail(for:)` はサーバーのサムネイルを返し、完了ハンドラはそれを `.success` で受け取る。"))
    public static let errorReachesCaller = Property(
        id: "error-lost",
        name: Localized("every error reaches the caller", ja: "すべてのエラーが呼び出し元に届く"),
        rule: Localized("Each failure reaches the caller as the rules name it: the server's own error as it is, `CancellationError` when the call was cancelled before the server replied, `ThumbnailError.badID` for a status code other than 200, `ThumbnailError.badImage` for bytes that are not an image or an image with no thumbnail.",
                        ja: "失敗は決められたとおりのエラーとして呼び出し元に届く。サーバー自身のエラーはそのまま、サーバーが応答する前にキャンセルされた呼び出しは `CancellationError`、200 以外のステータスコードは `ThumbnailError.badID`、画像でないバイト列やサムネイルを作れない画像は `ThumbnailError.badImage`。"))
    public static let neverLeftWaiting = Property(
        id: "left-waiting",
        name: Localized("no path leaves the caller waiting", ja: "呼び出し元を待たせたままにする経路がない"),
        rule: Localized("On every path `thumbnail(for:)` returns or throws, and `thumbnail(for:completion:)` calls its handler.",
                        ja: "どの経路でも `thumbnail(for:)` は戻るかスローし、`thumbnail(for:completion:)` はハンドラを呼ぶ。"))
    public static let calledOnce = Property(
        id: "called-twice",
        name: Localized("the completion handler is called once", ja: "完了ハンドラは 1 回だけ呼ばれる"),
        rule: Localized("`thumbnail(for:completion:)` calls its handler exactly once per call — never twice.",
                        ja: "`thumbnail(for:completion:)` は 1 回の呼び出しにつきハンドラをちょうど 1 回呼ぶ。2 回呼ばない。"))
    public static let callsIndependent = Property(
        id: "calls-mixed",
        name: Localized("calls at once keep to their own results", ja: "同時の呼び出しはそれぞれ自分の結果を受け取る"),
        rule: Localized("Two calls on one fetcher at once each get their own result, in every interleaving: nothing one call keeps in the fetcher reaches the other.",
                        ja: "1 つのフェッチャーへの 2 つの同時の呼び出しは、どのインターリーブでもそれぞれ自分の結果を受け取る。一方の呼び出しがフェッチャーに残したものが、もう一方に届かない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [returnsThumbnail, errorReachesCaller, neverLeftWaiting, calledOnce, callsIndependent, Property.finishes, Property.freshState]

    /// The ids the check asks for, and how the server answers each.
    static let cases: [(id: String, reply: ThumbnailServer.Reply)] = [
        ("cat", .image), ("icon", .tooSmall), ("scan.pdf", .notAnImage), ("missing", .notFound), ("offline", .offline),
    ]

    static func server() -> ThumbnailServer {
        ThumbnailServer(replies: Dictionary(uniqueKeysWithValues: cases.map { ($0.id, $0.reply) }))
    }

    /// What the rules say the caller gets for a reply.
    static func expected(_ id: String, _ reply: ThumbnailServer.Reply) -> String {
        switch reply {
        case .image: "Thumbnail(\(id))"
        case .tooSmall, .notAnImage: "ThumbnailError.badImage"
        case .notFound: "ThumbnailError.badID"
        case .offline: "ServerError.offline"
        }
    }

    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.25, foreignWaitSeconds: 0.5)

    public static func run(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol) -> CheckResult {
        for (id, reply) in cases {
            if let failure = checkAsync(make, id: id, reply: reply) { return .failed(failure) }
        }
        if let failure = checkTwoAtOnce(make) { return .failed(failure) }
        if let failure = checkCancelled(make) { return .failed(failure) }
        for (id, reply) in cases {
            if let failure = checkCompletion(make, id: id, reply: reply) { return .failed(failure) }
        }
        if let failure = checkTwoHandlersAtOnce(make) { return .failed(failure) }
        return .passed(properties)
    }

    // MARK: The cases

    static func checkAsync(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol,
                           id: String, reply: ThumbnailServer.Reply) -> CheckFailure? {
        let want = expected(id, reply)
        let call = "`try await thumbnail(for: \"\(id)\")`"
        return checkExplored(returnsThumbnail, title: .verbatim(call), broken: { _ in reply == .image ? returnsThumbnail : errorReachesCaller },
                             deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            observed(call: call, reply: reply, want: want, got: outcome)
        }, budget: budget, classify: { $0 == want ? .acceptable : .forbidden }) {
            let fetcher = make(server())
            return await outcomeText { try await fetcher.thumbnail(for: id) }
        }
    }

    /// Two calls of one fetcher at once, in every interleaving: state one call leaves in the
    /// fetcher must not reach the other.
    static func checkTwoAtOnce(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol) -> CheckFailure? {
        let call = "`async let a = thumbnail(for: \"cat\"); async let b = thumbnail(for: \"missing\")`"
        let want = "a: Thumbnail(cat), b: ThumbnailError.badID"
        return checkExplored(callsIndependent, title: .verbatim(call), deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            return Localized(
                "Two calls at once on one fetcher (\(call)): the caller should get \(want), and got \(outcome). Something one call keeps in the fetcher reached the other — keep each call's values in local constants.",
                ja: "1 つのフェッチャーで 2 つの呼び出しを同時に行いました（\(call)）。呼び出し元は \(want) を受け取るはずが、\(outcome) を受け取りました。一方の呼び出しがフェッチャーに残したものが、もう一方に届いています。呼び出しごとの値はローカル定数に置きましょう。")
        }, budget: budget, classify: { $0 == want ? .acceptable : .forbidden }) {
            let fetcher = make(server())
            nameNextTasks("a", "b")
            async let a = outcomeText { try await fetcher.thumbnail(for: "cat") }
            async let b = outcomeText { try await fetcher.thumbnail(for: "missing") }
            return "a: \(await a), b: \(await b)"
        }
    }

    static func checkCancelled(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol) -> CheckFailure? {
        let call = "`let task = Task { try await thumbnail(for: \"cat\") }; task.cancel()`"
        // A cancel before the server's reply must end in CancellationError; after it, the
        // thumbnail may still come (or the answer may look once more and stop).
        let acceptable: Set = [beforeReply + "CancellationError", afterReply + "CancellationError", afterReply + "Thumbnail(cat)"]
        return checkExplored(errorReachesCaller, title: .verbatim(call), deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            let got = outcome.hasPrefix(beforeReply) ? outcome.dropFirst(beforeReply.count) : outcome.dropFirst(afterReply.count)
            return Localized(
                "The caller cancelled the task before the server replied to \"cat\" (\(call)) and got \(got). A cancelled call throws `CancellationError` — `data(for:)` throws it for you: let it reach the caller as it is, do not turn it into a `ThumbnailError` or swallow it. Work in a `Task.detached`, or behind a callback, does not see the caller's cancel: look with `try Task.checkCancellation()`.",
                ja: "呼び出し元は、サーバーが \"cat\" に応答する前にタスクをキャンセルし（\(call)）、\(got) を受け取りました。キャンセルされた呼び出しは `CancellationError` をスローします（`data(for:)` がスローしてくれます）。`ThumbnailError` に変えたり握りつぶしたりせず、そのまま呼び出し元に届けましょう。`Task.detached` の中やコールバックの向こうの処理には呼び出し元のキャンセルが届きません。`try Task.checkCancellation()` で確かめましょう。")
        }, budget: budget, classify: { acceptable.contains($0) ? .acceptable : .forbidden }) {
            let server = server()
            let fetcher = make(server)
            nameNextTasks(BilingualLabel.join("request", "リクエスト"))
            let task = Task { try await fetcher.thumbnail(for: "cat") }
            await Task.yield()
            checkpoint("task.cancel()")
            let when = server.answeredIDs.isEmpty ? beforeReply : afterReply
            task.cancel()
            return when + resultText(await task.result)
        }
    }

    /// What the server had answered when the caller cancelled.
    static let beforeReply = "answeredIDs=[] → ", afterReply = "answeredIDs=[\"cat\"] → "

    static func checkCompletion(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol,
                                id: String, reply: ThumbnailServer.Reply) -> CheckFailure? {
        let want = expected(id, reply)
        let call = "`thumbnail(for: \"\(id)\") { result in … }`"
        let once = "calls=1: " + want
        return checkExplored(calledOnce, title: .verbatim(call), broken: { outcome in
            if outcome == never { return neverLeftWaiting }
            if outcome.hasPrefix("calls=1: ") { return reply == .image ? returnsThumbnail : errorReachesCaller }
            return calledOnce
        }, deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            if outcome == never {
                return Localized(
                    "\(call) returned, every task it started finished or stopped for good, and the handler was never called: its caller waits for ever. Call it on every path, errors too.",
                    ja: "\(call) は戻り、それが始めたタスクはすべて終わるか止まったままになりましたが、ハンドラは一度も呼ばれませんでした。呼び出し元は永遠に待ちます。エラーの経路も含め、すべての経路で呼びましょう。")
            }
            if outcome.hasPrefix("calls=1: ") {
                return observed(call: call, reply: reply, want: "`.success(\(want))`/`.failure(\(want))`",
                                got: String(outcome.dropFirst("calls=1: ".count)))
            }
            let count = outcome.dropFirst("calls=".count).prefix { $0 != ":" }
            let results = outcome.drop { $0 != ":" }.dropFirst(2)
            return Localized(
                "\(call): the handler was called \(count) times (\(results)). A caller's handler does its work each time — shows the picture twice, or an error after the picture. Call it exactly once: return right after calling it, or call it in one place with a `Result`.",
                ja: "\(call): ハンドラが \(count) 回呼ばれました（\(results)）。呼び出し元のハンドラは呼ばれるたびに処理をします（画像を 2 回表示する、画像の後にエラーを出す）。ちょうど 1 回だけ呼びましょう。呼んだらすぐ `return` するか、`Result` を使って 1 か所で呼びます。")
        }, budget: budget, classify: { $0 == once ? .acceptable : .forbidden }) {
            let fetcher = make(server())
            let calls = QuietLocked<[String]>([])
            fetcher.thumbnail(for: id) { result in
                checkpoint("completion(…)")
                calls.withLock { $0.append(resultText(result)) }
            }
            checkpoint("thumbnail(for: \"\(id)\") { … } ↩")
            await untilQuiet()
            let seen = calls.current
            return seen.isEmpty ? never : "calls=\(seen.count): " + seen.joined(separator: ", ")
        }
    }

    /// Two completion calls of one fetcher at once: each handler gets its own result, once.
    static func checkTwoHandlersAtOnce(_ make: @escaping @Sendable (ThumbnailServer) -> any CompletionToAsyncProtocol) -> CheckFailure? {
        let call = "`thumbnail(for: \"cat\") { … }; thumbnail(for: \"missing\") { … }`"
        let want = "\"cat\": calls=1: Thumbnail(cat); \"missing\": calls=1: ThumbnailError.badID"
        return checkExplored(callsIndependent, title: .verbatim(call), broken: { outcome in
            outcome.contains("calls=2") || outcome.contains("calls=3") ? calledOnce : nil
        }, deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            return Localized(
                "Two calls at once on one fetcher (\(call)): each handler should be called once with its own result (\(want)); they got: \(outcome). A handler kept in the fetcher is replaced by the next call's — keep each call's handler in its own task.",
                ja: "1 つのフェッチャーで 2 つの呼び出しを同時に行いました（\(call)）。各ハンドラは自分の結果で 1 回ずつ呼ばれるはず（\(want)）ですが、実際は: \(outcome)。フェッチャーに保存したハンドラは次の呼び出しのもので置き換えられます。各呼び出しのハンドラはそれぞれのタスクの中に持ちましょう。")
        }, budget: budget, classify: { $0 == want ? .acceptable : .forbidden }) {
            let fetcher = make(server())
            let calls = QuietLocked<[String: [String]]>([:])
            for id in ["cat", "missing"] {
                fetcher.thumbnail(for: id) { result in
                    checkpoint("completion(…) of \"\(id)\"")
                    calls.withLock { $0[id, default: []].append(resultText(result)) }
                }
            }
            await untilQuiet()
            let seen = calls.current
            return ["cat", "missing"].map { id in
                let results = seen[id] ?? []
                return "\"\(id)\": " + (results.isEmpty ? never : "calls=\(results.count): " + results.joined(separator: ", "))
            }.joined(separator: "; ")
        }
    }

    static let never = "calls=0"

    // MARK: Words

    static func observed(call: String, reply: ThumbnailServer.Reply, want: String, got: String) -> Localized {
        return Localized(
            "\(call): the server answered \(replyText(reply).en); the rules say the caller gets \(want), and it got \(got).",
            ja: "\(call): サーバーは\(replyText(reply).ja)と答えました。ルールでは呼び出し元は \(want) を受け取りますが、受け取ったのは \(got) でした。")
    }

    static let leftWaiting = Localized(
        "A continuation that is not resumed on some path, or a wait for something that never comes.",
        ja: "原因は、ある経路で再開されない継続か、決して来ないものを待つ処理です。")

    static func replyText(_ reply: ThumbnailServer.Reply) -> Localized {
        switch reply {
        case .image: Localized("200 with an image", ja: "200 と画像")
        case .tooSmall: Localized("200 with an image too small to shrink (its `thumbnail` is nil)", ja: "200 と、縮小できないほど小さい画像（`thumbnail` が nil）")
        case .notAnImage: Localized("200 with bytes that are not an image (`Picture(data:)` is nil)", ja: "200 と、画像でないバイト列（`Picture(data:)` が nil）")
        case .notFound: Localized("404", ja: "404")
        case .offline: Localized("nothing: it was offline (`ServerError.offline`)", ja: "何も返さない（オフライン、`ServerError.offline`）")
        }
    }
}
