import WorkbookExplorer

let imageCacheCorpus: [CorpusCase] = [
    CorpusCase(name: "imageCache.dedupMissing", shape: "deduplicating image cache", items: [],
               expectation: .fails("two downloads of the same URL"), traps: false, body: dedupMissing),
    CorpusCase(name: "imageCache.inFlightTasks", shape: "deduplicating image cache", items: [6],
               expectation: .passes, traps: false, body: inFlightTasks),
    CorpusCase(name: "imageCache.gapBeforeStore", shape: "deduplicating image cache", items: [6],
               expectation: .fails("the in-flight entry is cleared before the image is stored: a late request downloads again"),
               traps: false, body: gapBeforeStore),
    CorpusCase(name: "imageCache.decodeInsideTask", shape: "deduplicating image cache", items: [6],
               expectation: .passes, traps: false, body: decodeInsideTask),
]

/// A fake image server that counts downloads per URL; a download suspends once (the network).
private actor ImageServer {
    private(set) var downloads: [String: Int] = [:]

    func download(_ url: String) async -> [UInt8] {
        downloads[url, default: 0] += 1
        await Task.yield()
        return Array(url.utf8)
    }
}

/// Makes thumbnails on an actor of its own, so decoding is a suspension for the cache.
private actor Decoder {
    func thumbnail(of data: [UInt8]) -> [UInt8] { Array(data.prefix(4)) }
}

/// Checks the dictionary, then downloads: two requests arriving together both miss.
private actor NaiveImageCache {
    let server: ImageServer
    private var images: [String: [UInt8]] = [:]
    init(server: ImageServer) { self.server = server }

    func image(_ url: String) async -> [UInt8] {
        if let cached = images[url] { return cached }
        let data = await server.download(url)
        images[url] = data
        return data
    }
}

/// Keeps a task per URL in flight; requests arriving meanwhile await it.
private actor DedupImageCache {
    let server: ImageServer
    private var images: [String: [UInt8]] = [:]
    private var inFlight: [String: Task<[UInt8], Never>] = [:]
    init(server: ImageServer) { self.server = server }

    func image(_ url: String) async -> [UInt8] {
        if let cached = images[url] { return cached }
        if let running = inFlight[url] { return await running.value }
        let server = server
        let task = Task { await server.download(url) }
        inFlight[url] = task
        let data = await task.value
        images[url] = data
        inFlight[url] = nil
        return data
    }
}

/// Three views ask for the same image at once; the server must see one download.
private func threeViews(_ load: @escaping @Sendable (String) async -> [UInt8], server: ImageServer) async throws -> String {
    let url = "https://example.com/cat.png"
    await withTaskGroup(of: Void.self) { group in
        for view in ["list", "detail", "widget"] {
            group.addTask { nameTask(view); _ = await load(url) }
        }
    }
    let downloads = await server.downloads[url] ?? 0
    guard downloads == 1 else { throw InvariantViolation("\(downloads) downloads of \(url)") }
    return "one download"
}

/// Two views miss the cache before the first download returns, so both download.
@Sendable private func dedupMissing() async throws -> String {
    let server = ImageServer()
    let cache = NaiveImageCache(server: server)
    return try await threeViews({ await cache.image($0) }, server: server)
}

/// Correct: the miss check and the in-flight entry are one actor turn.
@Sendable private func inFlightTasks() async throws -> String {
    let server = ImageServer()
    let cache = DedupImageCache(server: server)
    return try await threeViews({ await cache.image($0) }, server: server)
}

/// Clears the in-flight entry, then awaits the decoder before storing: a request in that gap misses both.
private actor GappyThumbnailCache {
    let server: ImageServer
    let decoder = Decoder()
    private var thumbnails: [String: [UInt8]] = [:]
    private var inFlight: [String: Task<[UInt8], Never>] = [:]
    init(server: ImageServer) { self.server = server }

    func thumbnail(_ url: String) async -> [UInt8] {
        if let cached = thumbnails[url] { return cached }
        if let running = inFlight[url] { return await decoder.thumbnail(of: await running.value) }
        let server = server
        let task = Task { await server.download(url) }
        inFlight[url] = task
        let data = await task.value
        inFlight[url] = nil
        let thumbnail = await decoder.thumbnail(of: data)
        thumbnails[url] = thumbnail
        return thumbnail
    }
}

/// The in-flight task produces the finished thumbnail; it is stored and cleared in one turn.
private actor ThumbnailCache {
    let server: ImageServer
    let decoder = Decoder()
    private var thumbnails: [String: [UInt8]] = [:]
    private var inFlight: [String: Task<[UInt8], Never>] = [:]
    init(server: ImageServer) { self.server = server }

    func thumbnail(_ url: String) async -> [UInt8] {
        if let cached = thumbnails[url] { return cached }
        if let running = inFlight[url] { return await running.value }
        let (server, decoder) = (server, decoder)
        let task = Task { await decoder.thumbnail(of: await server.download(url)) }
        inFlight[url] = task
        let thumbnail = await task.value
        thumbnails[url] = thumbnail
        inFlight[url] = nil
        return thumbnail
    }
}

/// The first request clears its entry and awaits the decoder; the third request arrives just then.
@Sendable private func gapBeforeStore() async throws -> String {
    let server = ImageServer()
    let cache = GappyThumbnailCache(server: server)
    return try await threeViews({ await cache.thumbnail($0) }, server: server)
}

/// Correct: there is no moment when the URL is neither in flight nor stored.
@Sendable private func decodeInsideTask() async throws -> String {
    let server = ImageServer()
    let cache = ThumbnailCache(server: server)
    return try await threeViews({ await cache.thumbnail($0) }, server: server)
}
