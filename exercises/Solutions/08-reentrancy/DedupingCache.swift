import ExerciseKit

/// Reference answer for exercise 08-reentrancy/DedupingCache.
public actor ImageCache: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    /// The downloads in flight, by key; a request for one of these keys waits for its task.
    private var downloading: [String: Task<RemoteImage, Error>] = [:]

    public init(server: ImageServer) {
        self.server = server
    }

    public func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let inFlight = downloading[key] { return try await inFlight.value }
        // Stored before the first `await`, so the next request for `key` finds it. The task runs
        // on this actor (it inherits the isolation it is written in): the image is cached and
        // the entry removed in one stretch, and a failure is not kept.
        let download = Task {
            defer { downloading[key] = nil }
            let image = try await server.download(key)
            images[key] = image
            return image
        }
        downloading[key] = download
        return try await download.value
    }
}
