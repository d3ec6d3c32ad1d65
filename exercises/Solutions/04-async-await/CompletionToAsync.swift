import ExerciseKit

// Reference solution of exercise 04-async-await/CompletionToAsync.

public struct ThumbnailFetcher: CompletionToAsyncProtocol {
    private let server: ThumbnailServer

    public init(server: ThumbnailServer) {
        self.server = server
    }

    /// Every path returns or throws: the compiler checks it. The server's errors (offline,
    /// cancelled) pass through `try` as they are.
    public func thumbnail(for id: String) async throws -> Thumbnail {
        let (data, statusCode) = try await server.data(for: id)
        guard statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: data), let thumbnail = await picture.thumbnail else {
            throw ThumbnailError.badImage
        }
        return thumbnail
    }

    /// One task, one place that calls `completion`: once, whatever happens.
    public func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        Task {
            let result: Result<Thumbnail, any Error>
            do {
                result = .success(try await thumbnail(for: id))
            } catch {
                result = .failure(error)
            }
            completion(result)
        }
    }
}
