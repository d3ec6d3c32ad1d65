import Foundation
import WorkbookCore
import WorkbookExplorer

/// A downloaded image: which URL, and which download made it.
struct Image: Sendable, CustomStringConvertible {
    let url: URL
    let download: Int
    var description: String { "#\(download)" }
}

enum DownloadError: Error {
    case offline
}

/// The fake image server of scenario 2, in virtual time: a download takes 10 ms. It can be told
/// to fail its next downloads; it counts downloads and how many ran at once.
final class ImageServer: Sendable {
    private struct State {
        var downloads = 0
        var inFlight = 0
        var mostAtOnce = 0
        var failures = 0
    }

    private let clock = ExplorerClock()
    private let state: Locked<State>

    init(failing: Int = 0) { state = Locked(State(failures: failing)) }

    func download(_ url: URL) async throws -> Image {
        let number = state.withLock { state in
            state.downloads += 1
            state.inFlight += 1
            state.mostAtOnce = max(state.mostAtOnce, state.inFlight)
            return state.downloads
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        let name = url.lastPathComponent
        checkpoint(Localized("server: download \(number) of \(name) begins", ja: "サーバー: \(name) のダウンロード \(number) 開始"))
        try await clock.sleep(for: .milliseconds(10))
        let fails = state.withLock { state -> Bool in
            guard state.failures > 0 else { return false }
            state.failures -= 1
            return true
        }
        if fails {
            checkpoint(Localized("server: download \(number) fails", ja: "サーバー: ダウンロード \(number) は失敗"))
            throw DownloadError.offline
        }
        checkpoint(Localized("server: download \(number) done", ja: "サーバー: ダウンロード \(number) 完了"))
        return Image(url: url, download: number)
    }

    var downloads: Int { state.current.downloads }
    var mostAtOnce: Int { state.current.mostAtOnce }
}

/// The racy way: the cache is checked before the `await` and filled after it. A second request
/// for the same URL that runs while the first is suspended finds nothing and downloads again.
actor ImageCache {
    private let server: ImageServer
    private var images: [URL: Image] = [:]

    init(server: ImageServer) { self.server = server }

    func image(for url: URL) async throws -> Image {
        if let cached = images[url] { return cached }
        let image = try await server.download(url)          // other calls run meanwhile
        images[url] = image
        return image
    }
}

/// The safe way: the download in flight is state too. Stored before the first `await`, it is what
/// a second request for the same URL finds and joins; removed in the stretch that stores the image
/// (or, on failure, as the error is thrown to every waiter), so a later request may try again.
actor DedupingImageCache {
    private let server: ImageServer
    private var images: [URL: Image] = [:]
    private var inFlight: [URL: Task<Image, Error>] = [:]

    init(server: ImageServer) { self.server = server }

    func image(for url: URL) async throws -> Image {
        if let cached = images[url] { return cached }
        if let running = inFlight[url] { return try await running.value }   // join it
        let task = Task { try await server.download(url) }
        inFlight[url] = task                                // before the first await
        defer { inFlight[url] = nil }
        let image = try await task.value
        images[url] = image
        return image
    }
}

extension Chapter08 {
    static let avatar = URL(string: "https://example.com/avatar.png")!
    static let banner = URL(string: "https://example.com/banner.png")!
    static let downloadTaskName = taskName("download task", "ダウンロードのタスク")

    /// Cell A asks for the avatar at 0 ms; cell B asks for it at 10 ms, when A's download ends.
    /// Returns `downloads=… A=#… B=#…`.
    static func twoCells(deduping: Bool) async throws -> String {
        let server = ImageServer(), clock = ExplorerClock()
        let image: @Sendable (URL) async throws -> Image
        if deduping {
            let cache = DedupingImageCache(server: server)
            image = { try await cache.image(for: $0) }
        } else {
            let cache = ImageCache(server: server)
            image = { try await cache.image(for: $0) }
        }
        nameNextTasks(taskName("cell A", "セル A"), taskName("cell B", "セル B"), downloadTaskName, downloadTaskName)
        async let a: Image = {
            checkpoint(Localized("cell A: image(for: avatar)", ja: "セル A: image(for: avatar)"))
            return try await image(avatar)
        }()
        async let b: Image = {
            try await clock.sleep(for: .milliseconds(10))
            checkpoint(Localized("cell B: image(for: avatar)", ja: "セル B: image(for: avatar)"))
            return try await image(avatar)
        }()
        let (first, second) = try await (a, b)
        return "downloads=\(server.downloads) A=\(first) B=\(second)"
    }

    @Sendable static func racyCacheCells() async throws -> String { try await twoCells(deduping: false) }

    static func classifyDownloads(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.hasPrefix("downloads=1 ") ? .acceptable : .forbidden
    }

    /// The deduping cache: the first download of the avatar fails while A and B wait on it; C
    /// asks 50 ms later; D and E ask at once for two different URLs.
    /// Returns `A=… B=… C=… downloads=… then banner+avatar: most at once=…`.
    @Sendable static func dedupingFailureAndKeys() async throws -> String {
        let server = ImageServer(failing: 1), clock = ExplorerClock()
        let cache = DedupingImageCache(server: server)
        @Sendable func describe(_ result: Result<Image, any Error>) -> String {
            switch result {
            case let .success(image): image.description
            case .failure: "error"
            }
        }
        async let a = result { try await cache.image(for: avatar) }
        async let b = result { try await cache.image(for: avatar) }
        let (first, second) = await (a, b)
        try await clock.sleep(for: .milliseconds(50))
        let third = await result { try await cache.image(for: avatar) }
        let before = server.downloads
        let start = clock.now
        async let d = cache.image(for: banner)
        async let e = cache.image(for: URL(string: "https://example.com/header.png")!)
        _ = try await (d, e)
        let took = start.duration(to: clock.now)
        return "A=\(describe(first)) B=\(describe(second)) C=\(describe(third)) downloads=\(before) | banner+header: atOnce=\(server.mostAtOnce) took=\(Int(took / .milliseconds(1)))ms"
    }

    static let imageCache = Scenario(
        slug: "image-cache",
        title: Localized("The image cache that downloads one URL twice", ja: "同じ URL を 2 回ダウンロードする画像キャッシュ"),
        narration: Localized(
            """
            An actor caches images: `image(for:)` returns the cached image, or downloads it (10 ms) and stores it. \
            Two cells show the same avatar: cell A asks at 0 ms, cell B at 10 ms, just as A's download ends. \
            1) The cache checked before the `await` and filled after it, explored. \
            2) The deduping cache: a dictionary of downloads in flight, `[URL: Task<Image, Error>]`, joined by every request for the same URL. \
            3) The deduping cache when the download fails (A and B wait on it; C asks 50 ms later), and for two different URLs at once.
            """,
            ja: """
            アクターが画像をキャッシュします。`image(for:)` はキャッシュ済みの画像を返すか、ダウンロード（10 ms）して保存します。\
            2 つのセルが同じアバターを表示します。セル A は 0 ms に、セル B は A のダウンロードが終わるちょうど 10 ms に問い合わせます。\
            1) `await` の前にキャッシュを確かめ、後で埋めるキャッシュを探索。\
            2) 重複を除くキャッシュ: 実行中のダウンロードの辞書 `[URL: Task<Image, Error>]` を持ち、同じ URL への要求はすべてそれに加わる。\
            3) 重複を除くキャッシュで、ダウンロードが失敗するとき（A と B が待ち、C は 50 ms 後に問い合わせる）と、2 つの異なる URL を同時に求めるとき。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: the cache checks `images[url]`, then awaits the download, then stores the image. Cell B asks while A's download is in flight or just ending. How many downloads can there be? A) always 1: the actor runs one call at a time B) 1 or 2, depending on the schedule C) always 2",
                ja: "パート 1: キャッシュは `images[url]` を確かめ、ダウンロードを await し、画像を保存します。セル B は A のダウンロードの実行中か、終わる直前に問い合わせます。ダウンロードは何回あり得る？ A) 常に 1 回。アクターは呼び出しを 1 つずつ実行する B) スケジュール次第で 1 回か 2 回 C) 常に 2 回"),
            explanation: Localized(
                "B. If B's call runs while A is suspended at the download — or after the download but before A is back on the actor to store it — B finds the cache empty and downloads again. Only when A has stored the image first is there one download. The actor ran one call at a time all along: the two calls interleaved at A's `await`.",
                ja: "B です。A がダウンロードでサスペンドしている間、あるいはダウンロードは終わったが A が保存のためにアクターへ戻る前に B の呼び出しが動けば、B は空のキャッシュを見て再びダウンロードします。A が先に画像を保存したときだけ、ダウンロードは 1 回です。アクターはずっと一度に 1 つの呼び出しを実行していました。2 つの呼び出しは A の `await` のところで交互に進んだのです。"),
            observe: { $0.noted("racy letter") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        let racy = await explore(classify: classifyDownloads, racyCacheCells)
        context.show(racy, Localized("1) Checked before the await, filled after it: one download is the rule", ja: "1) `await` の前に確かめ、後で埋める: ダウンロードは 1 回であるべき"),
                     game: 2, key: "racy")
        let counts = Set(racy.outcomes.map { $0.split(separator: " ").first.map(String.init) ?? "" })
        context.note("racy letter", counts == ["downloads=1", "downloads=2"] ? "B" : counts == ["downloads=2"] ? "C" : "A")
        let deduping = await explore(classify: classifyDownloads) { try await twoCells(deduping: true) }
        context.show(deduping, Localized("2) With the downloads in flight, `[URL: Task<Image, Error>]`", ja: "2) 実行中のダウンロード `[URL: Task<Image, Error>]` を持つと"), key: "deduping")
        let more = await inVirtualTime(dedupingFailureAndKeys).outcomeText
        context.note("deduping more", more)
        context.say(Localized("3) The deduping cache: the first download fails while A and B wait; C asks later; then two other URLs at once:",
                              ja: "3) 重複を除くキャッシュ: A と B が待つ最初のダウンロードが失敗し、C が後で問い合わせ、次に別の 2 つの URL を同時に:"))
        context.show("     " + more)
        context.say(Localized(
            "   The failure reached both waiters and left nothing behind: C downloaded again. Different URLs have different tasks, so they downloaded side by side.",
            ja: "   失敗は待っていた両方に届き、何も残しませんでした。C はもう一度ダウンロードしました。異なる URL には別々のタスクがあるので、並んでダウンロードされました。"))
        context.trace.record(.verbatim(more), lane: Localized("deduping cache", ja: "重複を除くキャッシュ"))
    }
}
