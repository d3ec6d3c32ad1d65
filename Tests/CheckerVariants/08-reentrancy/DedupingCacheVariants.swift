import ExerciseKit

// DedupingCache answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// The starting code: check the dictionary, await the download, store.
actor NaiveImageCache: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        let image = try await server.download(key)
        images[key] = image
        return image
    }
}

/// Finds no download in flight, then records the miss in another actor before storing one: a
/// second request passes the same check meanwhile.
actor MissLoggedFirst: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var downloading: [String: Task<RemoteImage, Error>] = [:]
    private let log = RefreshLog()
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let inFlight = downloading[key] { return try await inFlight.value }
        await log.record("miss \(key)")
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

/// Removes a download's entry on success only: a failed download stays, and every later request
/// gets its error.
actor KeepsFailedDownload: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var downloading: [String: Task<RemoteImage, Error>] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let inFlight = downloading[key] { return try await inFlight.value }
        let download = Task {
            let image = try await server.download(key)
            images[key] = image
            downloading[key] = nil
            return image
        }
        downloading[key] = download
        return try await download.value
    }
}

/// Removes the entry when the download ends, then awaits a disk write before caching the image:
/// a request in between finds neither and downloads again.
actor RemovedBeforeCached: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var downloading: [String: Task<RemoteImage, Error>] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let inFlight = downloading[key] { return try await inFlight.value }
        let download = Task {
            defer { downloading[key] = nil }
            return try await server.download(key)
        }
        downloading[key] = download
        let image = try await download.value
        await saveToDisk(image)
        images[key] = image
        return image
    }
    private nonisolated func saveToDisk(_ image: RemoteImage) async {
        await Task.yield()
    }
}

/// One download in flight for the whole cache, whatever its key.
actor OneDownloadForAllKeys: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var downloading: Task<RemoteImage, Error>?
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let downloading { return try await downloading.value }
        let download = Task {
            defer { downloading = nil }
            let image = try await server.download(key)
            images[key] = image
            return image
        }
        downloading = download
        return try await download.value
    }
}

/// Every download chained after the one before it, whatever its key.
actor ChainsEveryDownload: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var downloading: [String: Task<RemoteImage, Error>] = [:]
    private var last: Task<RemoteImage, Error>?
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if let inFlight = downloading[key] { return try await inFlight.value }
        let previous = last
        let download = Task {
            defer { downloading[key] = nil }
            _ = try? await previous?.value
            let image = try await server.download(key)
            images[key] = image
            return image
        }
        downloading[key] = download
        last = download
        return try await download.value
    }
}

/// Waiters as continuations, resumed when the download succeeds; a failure reaches the first
/// request only, and forgets the others.
actor FailureDropsWaiters: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var waiters: [String: [CheckedContinuation<RemoteImage, Error>]] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if waiters[key] != nil { return try await withCheckedThrowingContinuation { waiters[key]?.append($0) } }
        waiters[key] = []
        do {
            let image = try await server.download(key)
            images[key] = image
            for waiter in waiters.removeValue(forKey: key) ?? [] { waiter.resume(returning: image) }
            return image
        } catch {
            waiters[key] = nil
            throw error
        }
    }
}

/// Waiters as continuations, one per key: a second waiter takes the first one's place.
actor OverwritesWaiter: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var isDownloading: Set<String> = []
    private var waiter: [String: CheckedContinuation<RemoteImage, Error>] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if isDownloading.contains(key) { return try await withCheckedThrowingContinuation { waiter[key] = $0 } }
        isDownloading.insert(key)
        let result: Result<RemoteImage, Error>
        do { result = .success(try await server.download(key)) } catch { result = .failure(error) }
        isDownloading.remove(key)
        if case let .success(image) = result { images[key] = image }
        waiter.removeValue(forKey: key)?.resume(with: result)
        return try result.get()
    }
}

/// A correct answer: the task itself is the cache — kept once it succeeds, dropped when it fails.
actor TaskIsTheCache: DedupingCacheProtocol {
    private let server: ImageServer
    private var tasks: [String: Task<RemoteImage, Error>] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        let task = tasks[key] ?? start(key)
        return try await task.value
    }
    private func start(_ key: String) -> Task<RemoteImage, Error> {
        let server = self.server
        let task = Task {
            do {
                return try await server.download(key)
            } catch {
                tasks[key] = nil
                throw error
            }
        }
        tasks[key] = task
        return task
    }
}

/// A correct answer: waiters as continuations by key, every one resumed with the download's own
/// result.
actor ContinuationsByKey: DedupingCacheProtocol {
    private let server: ImageServer
    private var images: [String: RemoteImage] = [:]
    private var waiters: [String: [CheckedContinuation<RemoteImage, Error>]] = [:]
    init(server: ImageServer) { self.server = server }
    func image(for key: String) async throws -> RemoteImage {
        if let cached = images[key] { return cached }
        if waiters[key] == nil {
            waiters[key] = []
            let server = self.server
            Task {
                let result: Result<RemoteImage, Error>
                do { result = .success(try await server.download(key)) } catch { result = .failure(error) }
                if case let .success(image) = result { images[key] = image }
                for waiter in waiters.removeValue(forKey: key) ?? [] { waiter.resume(with: result) }
            }
        }
        return try await withCheckedThrowingContinuation { waiters[key]?.append($0) }
    }
}
