import ExerciseKit

// Exercise 08-reentrancy/DedupingCache — read chapters/en/08-reentrancy.md (ja: chapters/ja/08-reentrancy.md) first.
//
// Goal: screens ask this cache for images by key. It checks its dictionary, and downloads what
// it does not have — but between the check and the store there is an `await`, and a second
// request for the same key that comes meanwhile finds nothing and downloads it again. Make it so
// that, in every schedule:
//   - a key is downloaded once however many requests for it come at once: a request that comes
//     while its key is downloading waits for that download, and gets its image;
//   - a failed download reaches every request waiting on it, as its error, and is not kept: a
//     later request for that key downloads again;
//   - different keys download side by side: a download never waits for another key's.
//
// Check your answer:   swift test --filter ExercisesTests.DedupingCache
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public actor ImageCache: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]

    public init(server: ImageServer) {
        self.server = server
    }

    public func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        // TODO: keep each download in flight where the next request for its key finds it, and
        // forget it when it ends. Then delete the next line.
        todo(fix: "one download per key, joined by every request for it")
        let image = try await server.download(key)
        images[key] = image
        return image
    }
}
