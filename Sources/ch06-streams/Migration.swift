import Foundation
import WorkbookCore
import WorkbookExplorer

/// Layer 1 of the three-layer fake: the network API. Its publisher form came first; converting
/// it means an `async` function, plus a bridge so that callers still on publishers keep working.
final class ArticleAPI: Sendable {
    private let calls = Locked(0)
    var requests: Int { calls.current }

    /// Before: a publisher. `Deferred` so that each subscriber makes its own request.
    func articlesPublisher() -> FakePublisher<[String]> {
        .deferred { [self] in
            FakeFuture { promise in
                calls.withLock { $0 += 1 }
                DispatchQueue.global().async { promise(.success(["a3", "a1", "a2"])) }
            }.publisher
        }
    }

    /// After: an `async` function.
    func articles() async throws -> [String] {
        calls.withLock { $0 += 1 }
        try await Task.sleep(for: .milliseconds(2))  // the network
        return ["a3", "a1", "a2"]
    }
}

/// Layer 2: the repository, which sorts. Both forms; `asyncBelow` says which form of the API
/// its publisher form uses.
struct ArticleRepository: Sendable {
    let api: ArticleAPI
    /// The API has been converted: the repository's old publisher form calls it through the bridge.
    let apiIsAsync: Bool

    func articlesPublisher() -> FakePublisher<[String]> {
        let source = apiIsAsync ? FakePublisher.bridging { try await api.articles() } : api.articlesPublisher()
        return source.map { $0.sorted() }
    }

    func articles() async throws -> [String] { try await api.articles().sorted() }
}

/// Layer 3, converted: a view model on the main actor. The input is a method, the output is
/// state it sets — on the main actor by isolation, not by `receive(on:)`.
@MainActor
final class ArticlesViewModel {
    private(set) var articles: [String] = []
    private(set) var failure: String?
    let repository: ArticleRepository

    init(repository: ArticleRepository) { self.repository = repository }

    func load() async {
        do {
            articles = try await repository.articles()
        } catch {
            failure = errorName(error)
        }
    }
}

extension Chapter06 {
    /// One migration step: which layers are `async`, and what an old and a new caller got.
    struct MigrationStep: Sendable {
        let number: Int
        let asyncLayers: Int
        let oldCaller: String
        let newCaller: String
        let requests: Int
    }

    /// A screen still written with `sink`, subscribing to the highest layer that has a publisher.
    static func oldScreen(_ publisher: FakePublisher<[String]>) async throws -> [String] {
        try await publisher.firstValue()
    }

    /// Steps 0–3: nothing converted; the API; the repository too; the view model too.
    static func migrate(_ step: Int, trace: Trace) async throws -> MigrationStep {
        let api = ArticleAPI()
        let repository = ArticleRepository(api: api, apiIsAsync: step >= 1)
        let lane = Localized("step \(step)", ja: "ステップ \(step)")
        // The old screen: still `sink`s on the repository's publisher, bridged or not.
        let sink = Localized("old screen: .sink", ja: "古い画面: .sink")
        trace.begin(sink, lane: lane)
        let old = try await oldScreen(repository.articlesPublisher())
        trace.end(sink, lane: lane)
        var new = "—"
        if step >= 2 {
            // New callers: `try await` the repository, or, from step 3, the view model's `load()`.
            if step >= 3 {
                let model = await ArticlesViewModel(repository: repository)
                await model.load()
                new = await model.articles.joined(separator: ",")
            } else {
                new = try await repository.articles().joined(separator: ",")
            }
            trace.record(Localized("new caller: await", ja: "新しい呼び出し元: await"), lane: lane)
        }
        return MigrationStep(number: step, asyncLayers: step, oldCaller: old.joined(separator: ","), newCaller: new, requests: api.requests)
    }

    static let migration = Scenario(
        slug: "migration",
        title: Localized("Where Combine fits, where async wins, and a bottom-up migration",
                         ja: "`Combine` が合う所、async が勝る所、下の層からの移行"),
        narration: Localized(
            """
            Combine is not deprecated: it still fits bindings between UI and state and pipelines that already work. \
            async/await wins for one-shot requests and for steps that run one after another, which read top to bottom with `try await`. \
            A three-layer fake — API → repository → view model — is converted from the bottom up, one layer per step. \
            At every step a screen not converted yet still subscribes with `sink` to the repository's publisher: \
            when the layer under it has become `async`, the publisher is a bridge (`FakePublisher.bridging { try await … }`) that starts one call per subscriber. \
            Step 0: all publishers. 1: the API is `async`. 2: the repository too (a new caller awaits it). 3: the view model is a `@MainActor` class with `func load() async`.
            """,
            ja: """
            `Combine` は非推奨ではありません。UI と状態の結び付けや、すでに動いているパイプラインには今も合います。\
            async/await が勝るのは、1 回きりのリクエストと、順番に進む手順です。`try await` で上から下へ読めます。\
            3 層のフェイク（API → リポジトリ → ビューモデル）を、1 ステップに 1 層ずつ、下の層から変換します。\
            どのステップでも、まだ変換していない画面は、リポジトリのパブリッシャに `sink` で購読し続けます。\
            下の層が `async` になったら、そのパブリッシャはブリッジ（`FakePublisher.bridging { try await … }`）で、購読者ごとに呼び出しを 1 回始めます。\
            ステップ 0: すべてパブリッシャ。1: API が `async`。2: リポジトリも（新しい呼び出し元はそれを await します）。3: ビューモデルが `func load() async` を持つ `@MainActor` クラスになります。
            """)
    ) { context in
        let widths = [10, 31, 20]                // the last column is not padded
        context.show(tableRow([Localized("step", ja: "ステップ"), Localized("async layers", ja: "async の層"),
                               Localized("old screen (.sink)", ja: "古い画面（.sink）"), Localized("new caller", ja: "新しい呼び出し元")].map(context.text), widths: widths))
        let layerNames = [Localized("none", ja: "なし"), .verbatim("API"), Localized("API, repository", ja: "API、リポジトリ"),
                          Localized("API, repository, view model", ja: "API、リポジトリ、ビューモデル")]
        var oldCallers: [String] = []
        for step in 0...3 {
            let result = try await migrate(step, trace: context.trace)
            oldCallers.append(result.oldCaller)
            context.show(tableRow([String(step), context.text(layerNames[step]), result.oldCaller, result.newCaller], widths: widths))
            context.note("step \(step) old", result.oldCaller)
            context.note("step \(step) new", result.newCaller)
        }
        context.note("old callers all worked", String(oldCallers.allSatisfy { $0 == "a1,a2,a3" }))
        context.say(Localized(
            """
            At every step the old screen still got its articles, sorted by the repository; from step 2 new code awaits the same repository. \
            Convert from the bottom: a converted layer keeps a publisher bridge on top for the callers above it, and the bridge goes when its last caller does.
            """,
            ja: """
            どのステップでも、古い画面はリポジトリが並べ替えた記事を受け取り続けました。ステップ 2 からは、新しいコードが同じリポジトリを await します。\
            下の層から変換します。変換した層は、上の呼び出し元のためにパブリッシャのブリッジを上に残し、最後の呼び出し元がいなくなったらブリッジを外します。
            """))
    }
}
