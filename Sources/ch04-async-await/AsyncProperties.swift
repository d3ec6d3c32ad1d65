import ExerciseKit
import WorkbookCore

/// A photo on the chapter's fake server, read through effectful properties: every read asks
/// the server, so it may suspend and may throw.
///
/// Before Swift 5.5 a property could do neither, and this was a pair of methods with completion
/// handlers (`loadPicture(completion:)`) or a blocking getter. `get async throws` keeps the
/// property syntax and puts the cost in plain sight at every use: `try await photo.thumbnail`.
struct RemotePhoto: Sendable {
    let id: String
    let server: ThumbnailServer

    /// The decoded picture: asks the server (suspends) and fails for a missing id or bytes that
    /// are not an image (throws).
    var picture: Picture {
        get async throws {
            let (data, statusCode) = try await server.data(for: id)
            guard statusCode == 200 else { throw ThumbnailError.badID }
            guard let picture = Picture(data: data) else { throw ThumbnailError.badImage }
            return picture
        }
    }

    /// Two effectful reads in one expression: `picture` (`get async throws`), then
    /// `Picture.thumbnail` (`get async`). One `try await` covers both.
    var thumbnail: Thumbnail {
        get async throws {
            guard let thumbnail = try await picture.thumbnail else { throw ThumbnailError.badImage }
            return thumbnail
        }
    }
}

/// Anything that has a thumbnail. The requirement `{ get async throws }` allows a conformer to
/// suspend and throw; it does not oblige it to: a stored `let` satisfies it too (`CachedPhoto`).
/// Callers through the protocol write `try await` either way.
protocol HasThumbnail: Sendable {
    var thumbnail: Thumbnail { get async throws }
}

extension RemotePhoto: HasThumbnail {}

/// A thumbnail already at hand: its property is a plain stored `let`.
struct CachedPhoto: HasThumbnail {
    let thumbnail: Thumbnail
}

extension Chapter04 {
    /// Scenario 3: read-only `get async throws` properties, and why there is no async setter.
    static let asyncProperties = Scenario(
        slug: "async-properties",
        title: Localized("Async properties: get async throws, and no async set", ja: "async なプロパティ: `get async throws` はあり、async な `set` はない"),
        narration: Localized(
            """
            A computed property may suspend and throw: `var thumbnail: Thumbnail { get async throws { … } }`. \
            Reading it is then written `try await photo.thumbnail`, so the cost is visible wherever it is used. \
            `Picture.thumbnail` in the exercise's fake is such a property (`get async`), modelled on the `thumbnail` that WWDC21's "Meet async/await in Swift" adds to `UIImage`. \
            1) `RemotePhoto` reads three photos through two effectful properties: `picture` (asks the server, may throw `.badID` or `.badImage`) \
            and `thumbnail`, which reads `picture` and then `Picture.thumbnail`. \
            2) A protocol may require `{ get async throws }`; a conformer with a plain stored `let` satisfies it. \
            Through the protocol both are read with `try await`, but only one of them suspends and asks the server. \
            3) There is no async (or throwing) setter: only read-only computed properties and subscripts may have effects (SE-0310). \
            The proposal leaves setters out on purpose: their interplay with `inout`, `didSet`/`willSet`, property wrappers and key paths is unsolved. \
            Think of `photo.likes += 1` with an async getter and setter: get, suspend, set — another task could run in between and its update would be lost. \
            Write a method instead, `func setCaption(_:) async throws`, where the suspension is plain to see. \
            The compiler's words, from Swift 6.3.1, close the scenario.
            """,
            ja: """
            計算プロパティはサスペンドもエラーのスローもできます: `var thumbnail: Thumbnail { get async throws { … } }`。\
            読むときは `try await photo.thumbnail` と書くので、使う場所のどこでもコストが見えます。\
            演習のフェイクにある `Picture.thumbnail` はこの種類のプロパティ（`get async`）で、WWDC21 の "Meet async/await in Swift" が `UIImage` に追加した `thumbnail` を手本にしています。\
            1) `RemotePhoto` で 3 枚の写真を、2 つの async なプロパティを通して読みます。`picture`（サーバーに問い合わせ、`.badID` や `.badImage` をスローすることがある）と、\
            `picture` を読んでから `Picture.thumbnail` を読む `thumbnail` です。\
            2) プロトコルは `{ get async throws }` を要件にできます。ただの `let` の格納プロパティを持つ型もこの要件を満たします。\
            プロトコル越しにはどちらも `try await` で読みますが、サスペンドしてサーバーに問い合わせるのは片方だけです。\
            3) async な（あるいは `throws` の）セッターはありません。`async`／`throws` を付けられるのは読み取り専用の計算プロパティとサブスクリプトだけです（SE-0310）。\
            プロポーザルはセッターを意図的に対象外にしています。`inout`、`didSet`/`willSet`、プロパティラッパー、キーパスとの関係が解決していないからです。\
            async なゲッターとセッターがあったとして `photo.likes += 1` を考えてみてください。読む、サスペンドする、書く。その間に別のタスクが動けば、そちらの更新が失われます。\
            代わりにメソッド `func setCaption(_:) async throws` を書けば、サスペンドする地点がはっきり見えます。\
            最後に Swift 6.3.1 のコンパイラのメッセージを示します。
            """)
    ) { context in
        let server = ThumbnailServer(replies: ["p1": .image, "p2": .notFound, "p4": .tooSmall])
        context.say(Localized("1) `try await photo.thumbnail`, for three photos:", ja: "1) 3 枚の写真で `try await photo.thumbnail`:"))
        var first: Thumbnail?
        for id in ["p1", "p2", "p4"] {
            let photo = RemotePhoto(id: id, server: server)
            let label = Localized.verbatim("\(id).thumbnail"), lane = Localized.verbatim(id)
            let start = MonotonicClock.now()
            context.trace.begin(label, lane: lane)
            let answer: String
            do {
                let thumbnail = try await photo.thumbnail
                first = first ?? thumbnail
                answer = thumbnail.description
            } catch {
                answer = errorName(error)
            }
            context.trace.end(label, lane: lane)
            context.note(id, answer)
            context.show("  \(id).thumbnail → \(answer)  (\(milliseconds(since: start)) ms)")
        }

        context.say(Localized("2) Through a protocol that requires `{ get async throws }`:", ja: "2) `{ get async throws }` を要件とするプロトコル越しに:"))
        guard let first else { return }
        let shelf: [(name: String, photo: any HasThumbnail)] = [
            ("RemotePhoto", RemotePhoto(id: "p1", server: server)), ("CachedPhoto", CachedPhoto(thumbnail: first)),
        ]
        for (index, entry) in shelf.enumerated() {
            let requestsBefore = server.requests.count
            let label = Localized.verbatim("shelf[\(index)].thumbnail"), lane = Localized.verbatim(entry.name)
            let start = MonotonicClock.now()
            context.trace.begin(label, lane: lane)
            let answer = (try? await entry.photo.thumbnail)?.description ?? "nil"
            context.trace.end(label, lane: lane)
            let requests = server.requests.count - requestsBefore
            context.note("\(entry.name) requests", String(requests))
            context.show("  \(padded(entry.name, to: 12)) shelf[\(index)].thumbnail → \(answer)  (\(milliseconds(since: start)) ms)")
            context.say(requests == 0
                ? Localized("    no request to the server: a stored `let` satisfies `{ get async throws }`, and reading it does not suspend.",
                            ja: "    サーバーへの問い合わせなし: 格納プロパティの `let` も `{ get async throws }` を満たし、読んでもサスペンドしません。")
                : Localized("    \(requests) request(s) to the server: this one suspends until the reply.",
                            ja: "    サーバーへの問い合わせ \(requests) 回: こちらは応答が来るまでサスペンドします。"))
        }

        context.say(Localized("3) What Swift 6.3.1 says to a setter beside an async getter, an async setter, and a key path:",
                              ja: "3) async なゲッターと並べたセッター、async なセッター、キーパスに対する Swift 6.3.1 のメッセージ:"))
        context.quote("var caption: String { get async throws { … }  set { … } }")
        context.quote("error: 'set' accessor is not allowed on property with 'get' accessor that is 'async' or 'throws'")
        context.quote("var caption: String { get async { … }  set async { … } }")
        context.quote("error: 'set' accessor cannot have specifier 'async'")
        context.quote("let path = \\Picture.thumbnail")
        context.quote("error: cannot form key path to property with 'throws' or 'async'")
    }
}
