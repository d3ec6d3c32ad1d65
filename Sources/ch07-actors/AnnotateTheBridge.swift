import Foundation
import WorkbookCore

/// The fix annotated once, at the bridge: the reply's type is `@MainActor`. Every caller's
/// closure is then isolated to the main actor — checked by the compiler — and the hop onto the
/// main actor is written here, once, not at each call site.
final class MainActorRequestClient: Sendable {
    private let latency: Duration

    init(latency: Duration) {
        self.latency = latency
    }

    func request(_ path: String, reply: @escaping @MainActor @Sendable (String) -> Void) {
        Task {
            let body = await fetch(path)
            await reply(body)                  // the one hop, for every caller
        }
    }

    /// A fake request that takes `latency`.
    func fetch(_ path: String) async -> String {
        try? await Task.sleep(for: latency)
        return "article \(path)"
    }
}

/// Three screens calling the annotated client: none of them says `@MainActor` at the call.
@MainActor final class FeedScreen {
    private(set) var shown: [String] = []
    let client: MainActorRequestClient

    init(client: MainActorRequestClient) {
        self.client = client
    }

    func load(_ path: String, done: @escaping @MainActor @Sendable (String) -> Void) {
        client.request(path) { body in
            self.shown.append(body)               // allowed: the closure is on the main actor
            done(isolationName(#isolation))
        }
    }
}

extension Chapter07 {
    static let forgottenWrapDiagnostic = Diagnostic(
        preamble: """
        final class RequestClient: Sendable {
            func request(_ path: String, reply: @escaping @Sendable (String) -> Void) {
                Task { reply("article") }
            }
        }
        """,
        code: """
        @MainActor final class ArticleViewModel {
            var title = ""
            let client = RequestClient()
            func load() {
                client.request("/articles/1") { body in
                    self.title = body
                }
            }
        }
        """,
        errors: ["main actor-isolated property 'title' can not be mutated from a Sendable closure"],
        notes: ["mutation of this property is only permitted within the actor"],
        reason: Localized(
            "The call site that forgot `Task { @MainActor in … }`. In Swift 6 it does not compile — in the slides' Swift 5 code with RxSwift it did, and crashed after the release. Through a library compiled without these checks it still compiles; scenario 10 shows what stops it then.",
            ja: "`Task { @MainActor in … }` を付け忘れた呼び出し元です。Swift 6 ではコンパイルできません。スライドの Swift 5 と RxSwift のコードではコンパイルでき、リリース後にクラッシュしました。これらの検査なしでコンパイルされたライブラリを通すと、今もコンパイルできてしまいます。そのとき何が止めるかはシナリオ 10 で見ます。"))

    static let annotateTheBridge = Scenario(
        slug: "annotate-the-bridge",
        title: Localized("Annotate the bridge once; what a hop to the main actor costs", ja: "ブリッジに一度だけ注釈を付ける。メインアクターへのホップのコスト"),
        narration: Localized(
            """
            The slides fixed the crash by wrapping each callback in `@MainActor`, judging that a hop per API call costs little. Then a similar `request` elsewhere lacked the wrap, and the phased release crashed. \
            1) The fix where the compiler enforces it: the client's reply type is `@MainActor @Sendable (String) -> Void`, and the client hops once. Three screens call it without saying `@MainActor`; each reply reports its `#isolation`. \
            2) The call site that forgets, in Swift 6: what the compiler says. \
            3) The cost: `hops` round trips onto the main actor and back, beside a fake request of `latency` ms.
            """,
            ja: """
            スライドは、コールバックを 1 つずつ `@MainActor` で包んでクラッシュを直しました。API 呼び出しごとのホップのコストは小さいと判断したのです。その後、別の場所の似た `request` に包み忘れがあり、段階的リリースでクラッシュしました。\
            1) コンパイラが強制する場所での修正: クライアントの応答の型を `@MainActor @Sendable (String) -> Void` にし、クライアントが一度だけホップします。3 つの画面が `@MainActor` と書かずに呼び、各応答が `#isolation` を報告します。\
            2) 包み忘れた呼び出し元を Swift 6 で: コンパイラの言うこと。\
            3) コスト: メインアクターへ行って戻る往復を `hops` 回、`latency` ms の偽のリクエストと並べて測ります。
            """),
        knobs: [
            .init("hops", default: 200, range: 1...100_000, help: Localized("round trips to the main actor to time", ja: "計測するメインアクターへの往復の回数")),
            .init("latency", default: 20, range: 1...2_000, help: Localized("ms the fake request takes", ja: "偽のリクエストにかかる時間（ms）")),
        ]
    ) { context in
        let latency = context.knob("latency")
        let client = MainActorRequestClient(latency: .milliseconds(latency))
        let lane = Localized("main actor", ja: "メインアクター")

        // 1) Three screens, three replies.
        var replies: [String] = []
        for path in ["/feed", "/profile", "/settings"] {
            let screen = await FeedScreen(client: client)
            let isolation = await withCheckedContinuation { continuation in
                Task { @MainActor in screen.load(path) { continuation.resume(returning: $0) } }
            }
            replies.append(isolation)
            context.trace.record(.verbatim("\(path): \(isolation)"), lane: lane)
        }
        context.note("bridge reply isolations", replies.joined(separator: ","))
        context.say(Localized(
            "1) Replies to /feed, /profile, /settings: `#isolation` \(replies.joined(separator: ", ")). Not one call site says `@MainActor`; the reply's type does, and a closure that is not on the main actor cannot be passed.",
            ja: "1) /feed、/profile、/settings への応答: `#isolation` は \(replies.joined(separator: "、"))。どの呼び出し元も `@MainActor` と書いていません。応答の型が言っていて、メインアクター上にないクロージャは渡せません。"))

        // 2) The forgotten wrap.
        context.say(Localized("2) A call site that forgot the wrap, with a client whose reply is a plain `@Sendable` closure:",
                              ja: "2) 包み忘れた呼び出し元。応答が普通の `@Sendable` クロージャのクライアントで:"))
        context.show(forgottenWrapDiagnostic)

        // 3) The cost of a hop, beside a request.
        let hops = context.knob("hops")
        let times = await Task.detached { () -> [Double] in
            var times: [Double] = []
            for _ in 0..<hops {
                let start = MonotonicClock.now()
                await MainActor.run { }
                times.append(microseconds(from: start, to: MonotonicClock.now()))
            }
            return times
        }.value
        let requestStart = MonotonicClock.now()
        _ = await client.fetch("/feed")
        let request = microseconds(from: requestStart, to: MonotonicClock.now())
        let hop = median(times)
        context.note("hop median us", String(format: "%.1f", hop))
        context.note("request us", String(format: "%.0f", request))
        context.note("hop below request", String(hop < request))
        context.trace.record(Localized("hop: \(formatMicros(hop))", ja: "ホップ: \(formatMicros(hop))"), lane: Localized("cost", ja: "コスト"))
        context.trace.record(Localized("request: \(formatMicros(request))", ja: "リクエスト: \(formatMicros(request))"), lane: Localized("cost", ja: "コスト"))
        context.say(Localized(
            "3) A round trip onto the main actor and back (`await MainActor.run {}` from a detached task): median \(formatMicros(hop)) over \(hops). The fake request: \(formatMicros(request)). One hop per request is \(String(format: "%.2f", hop / request * 100)) % of it here; what costs is main-actor work that should not be there, not the hop.",
            ja: "3) メインアクターへ行って戻る往復（`Task.detached` のタスクからの `await MainActor.run {}`）: \(hops) 回の中央値 \(formatMicros(hop))。偽のリクエスト: \(formatMicros(request))。ここではリクエストごとに 1 回のホップは、その \(String(format: "%.2f", hop / request * 100)) % です。高くつくのは、メインアクターにあるべきでない処理のほうで、ホップではありません。"))
    }
}
