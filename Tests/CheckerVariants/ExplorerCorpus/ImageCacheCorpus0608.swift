import Foundation
import WorkbookExplorer

// Chapter 08: a deduplicating image cache keeping `[URL: Task<Image, Error>]` of in-flight downloads.

let imageCacheCorpus0608: [CorpusBody] = [
    CorpusBody("imageCache0608.checkThenStoreAcrossAwait", shape: "in-flight task dictionary (deduplicating cache)",
               .fails("two downloads of one URL: the miss check and the in-flight entry are split by an await for the signed request"),
               body: checkThenStoreAcrossAwait),
    CorpusBody("imageCache0608.entryBeforeAwait", shape: "in-flight task dictionary (deduplicating cache)",
               .passes, body: entryBeforeAwait),
    CorpusBody("imageCache0608.removedBeforeCached", shape: "in-flight task dictionary (deduplicating cache)",
               .fails("a request during the disk write downloads again: the entry is removed before the image is cached"),
               body: removedBeforeCached),
    CorpusBody("imageCache0608.cachedThenRemoved", shape: "in-flight task dictionary (deduplicating cache)",
               .passes, body: cachedThenRemoved),
]

private struct Image: Sendable {
    let bytes: [UInt8]
}

/// Signs requests (a CDN token) on an actor of its own: awaiting it releases the cache.
private actor RequestSigner {
    func signed(_ url: URL) -> URL {
        url.appending(queryItems: [URLQueryItem(name: "sig", value: "abc")])
    }
}

/// A fake CDN: counts downloads per path; a download takes 30 ms.
private actor CDN {
    private(set) var downloads: [String: Int] = [:]

    func download(_ url: URL) async throws -> Image {
        downloads[url.path, default: 0] += 1
        try await Task.sleep(for: .milliseconds(30))
        return Image(bytes: Array(url.path.utf8))
    }
}

/// Writing to the disk cache takes 5 ms.
private actor DiskCache {
    private(set) var files: [URL: Image] = [:]

    func write(_ image: Image, for url: URL) async throws {
        try await Task.sleep(for: .milliseconds(5))
        files[url] = image
    }
}

private enum CacheFlaw: Sendable {
    case none
    /// Checks for a miss, awaits the signer, then stores the in-flight entry.
    case entryAfterAwait
    /// Removes the in-flight entry, awaits the disk write, then caches the image.
    case removesBeforeCaching
}

private actor ImageCache {
    private let cdn: CDN
    private let signer = RequestSigner()
    private let disk = DiskCache()
    private let flaw: CacheFlaw
    private var images: [URL: Image] = [:]
    private var inFlight: [URL: Task<Image, Error>] = [:]

    init(cdn: CDN, flaw: CacheFlaw) {
        self.cdn = cdn
        self.flaw = flaw
    }

    func image(for url: URL) async throws -> Image {
        if let cached = images[url] { return cached }
        if let running = inFlight[url] { return try await running.value }
        let (cdn, signer) = (cdn, signer)
        let task: Task<Image, Error>
        if flaw == .entryAfterAwait {
            let request = await signer.signed(url)
            task = Task { try await cdn.download(request) }
        } else {
            task = Task { try await cdn.download(await signer.signed(url)) }
        }
        inFlight[url] = task
        let image: Image
        do {
            image = try await task.value
        } catch {
            inFlight[url] = nil
            throw error
        }
        if flaw == .removesBeforeCaching {
            inFlight[url] = nil
            try await disk.write(image, for: url)
            images[url] = image
        } else {
            images[url] = image
            inFlight[url] = nil
            try await disk.write(image, for: url)
        }
        return image
    }
}

private let avatarURL = URL(string: "https://cdn.example.com/avatars/42.png")!

/// Views ask for the same avatar at the given moments (ms); the CDN must see one download.
private func viewsAsk(at moments: [(view: String, at: Int)], _ flaw: CacheFlaw) async throws -> String {
    let cdn = CDN()
    let cache = ImageCache(cdn: cdn, flaw: flaw)
    let requests = moments.map { moment in
        Task {
            nameTask(moment.view)
            if moment.at > 0 { try await Task.sleep(for: .milliseconds(moment.at)) }
            return try await cache.image(for: avatarURL)
        }
    }
    var sizes: [Int] = []
    for request in requests { sizes.append(try await request.value.bytes.count) }
    let downloads = await cdn.downloads[avatarURL.path] ?? 0
    guard downloads == 1 else {
        throw InvariantViolation("\(downloads) downloads of \(avatarURL.lastPathComponent) for \(moments.count) views")
    }
    return "one download for \(sizes.count) views"
}

/// The list view misses and awaits the signer; the detail view misses too before the entry is stored.
@Sendable private func checkThenStoreAcrossAwait() async throws -> String {
    try await viewsAsk(at: [("list", 0), ("detail", 0), ("widget", 0)], .entryAfterAwait)
}

/// Correct: the miss check and the in-flight entry are one actor turn; signing happens inside the task.
@Sendable private func entryBeforeAwait() async throws -> String {
    try await viewsAsk(at: [("list", 0), ("detail", 0), ("widget", 0)], .none)
}

/// The download ends at 30 ms; the entry is removed and the disk write runs to 35 ms; the widget
/// asks at 32 ms, finds neither entry nor image, and downloads again.
@Sendable private func removedBeforeCached() async throws -> String {
    try await viewsAsk(at: [("list", 0), ("detail", 0), ("widget", 32)], .removesBeforeCaching)
}

/// Correct: the image is cached and the entry removed in one turn; the disk write comes after.
@Sendable private func cachedThenRemoved() async throws -> String {
    try await viewsAsk(at: [("list", 0), ("detail", 0), ("widget", 32)], .none)
}
