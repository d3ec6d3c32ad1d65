import Dispatch
import ExerciseKit
import WorkbookCore

// CompletionToAsync answers with one mistake each, written the way a learner might, plus two
// correct answers in other styles. Where only one half is wrong, the other half is the
// reference's (`referenceThumbnail`, `completeOnce`).

/// The reference's async half.
private func referenceThumbnail(_ server: ThumbnailServer, _ id: String) async throws -> Thumbnail {
    let (data, statusCode) = try await server.data(for: id)
    guard statusCode == 200 else { throw ThumbnailError.badID }
    guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
    return thumbnail
}

/// The reference's completion half.
private func completeOnce(_ work: @escaping @Sendable () async throws -> Thumbnail,
                          _ completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
    Task {
        do { completion(.success(try await work())) } catch { completion(.failure(error)) }
    }
}

/// `try?` on the request: offline becomes badID.
struct SwallowsServerError: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        guard let (data, statusCode) = try? await server.data(for: id), statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// No status check: a 404's error page fails to decode, so the caller gets badImage.
struct NoStatusCheck: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let (data, _) = try await server.data(for: id)
        guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// One `catch` that turns every failure into badImage.
struct EveryErrorIsBadImage: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        do {
            return try await referenceThumbnail(server, id)
        } catch {
            throw ThumbnailError.badImage
        }
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// An image with no thumbnail reported as a bad id.
struct TooSmallIsBadID: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let (data, statusCode) = try await server.data(for: id)
        guard statusCode == 200, let picture = Picture(data: data) else { throw statusCode == 200 ? ThumbnailError.badImage : ThumbnailError.badID }
        guard let thumbnail = await picture.thumbnail else { throw ThumbnailError.badID }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// Passes the server's own error on, but turns any other (a cancellation) into badID.
struct OnlyServerErrorPassesThrough: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let response: (ImageData, statusCode: Int)
        do {
            response = try await server.data(for: id)
        } catch let error as ServerError {
            throw error
        } catch {
            throw ThumbnailError.badID
        }
        guard response.statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: response.0), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// The old callback code wrapped in a continuation as it was: bytes that are not an image
/// resume nothing.
struct ContinuationMissingElse: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        try await withCheckedThrowingContinuation { continuation in
            server.fetchData(for: id) { data, statusCode, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if statusCode != 200 {
                    continuation.resume(throwing: ThumbnailError.badID)
                } else if let data, let picture = Picture(data: data) {
                    picture.prepareThumbnail { thumbnail in
                        if let thumbnail { continuation.resume(returning: thumbnail) } else { continuation.resume(throwing: ThumbnailError.badImage) }
                    }
                }
            }
        }
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// Keeps the id of the latest request in the fetcher (an actor) and drops a reply to an older
/// one as stale: right for a search box, wrong here — two calls at once, and the first is lost.
struct LatestRequestOnly: CompletionToAsyncProtocol {
    actor Latest {
        var id: String?
        func set(_ id: String) { self.id = id }
    }
    let server: ThumbnailServer
    let latest = Latest()
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        await latest.set(id)
        let (data, statusCode) = try await server.data(for: id)
        guard await latest.id == id else { throw CancellationError() }
        guard statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// Waits for the old callback with a semaphore, inside async code: the callback's task needs a
/// thread the wait holds.
struct BlocksOnSemaphore: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let (data, statusCode) = try fetchAndWait(id)
        guard statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    /// A synchronous helper: the semaphore's wait is not called from async code directly.
    private func fetchAndWait(_ id: String) throws -> (ImageData, Int) {
        let reply = Locked<Result<(ImageData, Int), any Error>?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        server.fetchData(for: id) { data, statusCode, error in
            reply.withLock { $0 = data.map { .success(($0, statusCode)) } ?? .failure(error ?? ThumbnailError.badID) }
            arrived.signal()
        }
        arrived.wait()
        return try reply.current!.get()
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}

/// Calls the handler only when there is a thumbnail.
struct CompletionOnlyOnSuccess: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail { try await referenceThumbnail(server, id) }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        Task {
            if let thumbnail = try? await thumbnail(for: id) { completion(.success(thumbnail)) }
        }
    }
}

/// The completion half kept on the old callbacks, with an `if` that does not return: offline
/// calls the handler with the error, then again with badID.
struct CallbacksMissingReturn: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail { try await referenceThumbnail(server, id) }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        server.fetchData(for: id) { data, statusCode, error in
            if let error { completion(.failure(error)) }
            guard statusCode == 200 else { return completion(.failure(ThumbnailError.badID)) }
            guard let data, let picture = Picture(data: data) else { return completion(.failure(ThumbnailError.badImage)) }
            picture.prepareThumbnail { thumbnail in
                completion(thumbnail.map { .success($0) } ?? .failure(ThumbnailError.badImage))
            }
        }
    }
}

/// The handler gets badImage for every failure.
struct CompletionErrorsBecomeBadImage: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail { try await referenceThumbnail(server, id) }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        Task {
            do { completion(.success(try await thumbnail(for: id))) } catch { completion(.failure(ThumbnailError.badImage)) }
        }
    }
}

/// Keeps the handler in the fetcher (an actor) until the result is there: a second call
/// replaces the first call's handler.
struct SharedPendingHandler: CompletionToAsyncProtocol {
    actor Pending {
        var handler: (@Sendable (Result<Thumbnail, any Error>) -> Void)?
        func set(_ handler: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) { self.handler = handler }
        func take() -> (@Sendable (Result<Thumbnail, any Error>) -> Void)? {
            defer { handler = nil }
            return handler
        }
    }
    let server: ThumbnailServer
    let pending = Pending()
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail { try await referenceThumbnail(server, id) }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        Task {
            await pending.set(completion)
            let result: Result<Thumbnail, any Error>
            do { result = .success(try await thumbnail(for: id)) } catch { result = .failure(error) }
            await pending.take()?(result)
        }
    }
}

/// The callback APIs wrapped in continuations, every path resuming once — but the callback's
/// task does not see the caller's cancel, and nothing looks: a cancelled call still returns.
struct ContinuationsIgnoreCancel: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let data: ImageData = try await withCheckedThrowingContinuation { continuation in
            server.fetchData(for: id) { data, statusCode, error in
                if let error { return continuation.resume(throwing: error) }
                guard statusCode == 200, let data else { return continuation.resume(throwing: ThumbnailError.badID) }
                continuation.resume(returning: data)
            }
        }
        guard let picture = Picture(data: data) else { throw ThumbnailError.badImage }
        let thumbnail: Thumbnail? = await withCheckedContinuation { continuation in
            picture.prepareThumbnail { continuation.resume(returning: $0) }
        }
        guard let thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        let fetcher = self
        Task.detached {
            let result: Result<Thumbnail, any Error>
            do { result = .success(try await fetcher.thumbnail(for: id)) } catch { result = .failure(error) }
            completion(result)
        }
    }
}

// MARK: Correct answers in other styles

/// Correct: the callback APIs wrapped in continuations, every path resuming once; the handler
/// called from a detached task.
struct ContinuationsDoneRight: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let data: ImageData = try await withCheckedThrowingContinuation { continuation in
            server.fetchData(for: id) { data, statusCode, error in
                if let error { return continuation.resume(throwing: error) }
                guard statusCode == 200, let data else { return continuation.resume(throwing: ThumbnailError.badID) }
                continuation.resume(returning: data)
            }
        }
        try Task.checkCancellation()  // the callback's task does not see the caller's cancel
        guard let picture = Picture(data: data) else { throw ThumbnailError.badImage }
        let thumbnail: Thumbnail? = await withCheckedContinuation { continuation in
            picture.prepareThumbnail { continuation.resume(returning: $0) }
        }
        guard let thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        let fetcher = self
        Task.detached {
            let result: Result<Thumbnail, any Error>
            do { result = .success(try await fetcher.thumbnail(for: id)) } catch { result = .failure(error) }
            completion(result)
        }
    }
}

/// Correct: `if let`/`else` chains, and a `do`/`catch` that rethrows what it caught.
struct NestedIfs: CompletionToAsyncProtocol {
    let server: ThumbnailServer
    init(server: ThumbnailServer) { self.server = server }
    func thumbnail(for id: String) async throws -> Thumbnail {
        let response: (ImageData, statusCode: Int)
        do {
            response = try await server.data(for: id)
        } catch {
            throw error
        }
        if response.statusCode != 200 { throw ThumbnailError.badID }
        if let picture = Picture(data: response.0) {
            if let thumbnail = await picture.thumbnail { return thumbnail }
        }
        throw ThumbnailError.badImage
    }
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        Task {
            do {
                let thumbnail = try await self.thumbnail(for: id)
                completion(.success(thumbnail))
            } catch {
                completion(.failure(error))
            }
        }
    }
}

/// Keeps the thumbnails it made in a cache the compiler was told is safe: two calls at once
/// write the same dictionary, nothing ordering them.
struct RacyCache: CompletionToAsyncProtocol {
    final class Cache: @unchecked Sendable {
        var thumbnails: [String: Thumbnail] = [:]
    }
    private let server: ThumbnailServer
    private let cache = Cache()
    init(server: ThumbnailServer) { self.server = server }

    func thumbnail(for id: String) async throws -> Thumbnail {
        if let cached = cache.thumbnails[id] { return cached }
        let thumbnail = try await referenceThumbnail(server, id)
        cache.thumbnails[id] = thumbnail
        return thumbnail
    }

    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        completeOnce({ try await thumbnail(for: id) }, completion)
    }
}
