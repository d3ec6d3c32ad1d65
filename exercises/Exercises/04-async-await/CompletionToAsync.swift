import ExerciseKit

// Exercise 04-async-await/CompletionToAsync — read chapters/en/04-async-await.md (ja: chapters/ja/04-async-await.md) first.
//
// Goal: the thumbnail pipeline below (fetch → decode → shrink) is written with completion
// handlers, and one of its paths never calls `completion` — its caller waits for ever. Write it
// again as `async throws`, where the compiler makes every path return or throw:
//   - `thumbnail(for:)` returns the thumbnail, or throws: the server's own error as it is,
//     `CancellationError` when the call is cancelled before the server replies,
//     `ThumbnailError.badID` when the status code is not 200, `ThumbnailError.badImage` when the
//     bytes are not an image or the image gives no thumbnail;
//   - `thumbnail(for:completion:)`, for callers not converted yet, does the same work and calls
//     `completion` exactly once with what `thumbnail(for:)` returns or throws.
// The server has both shapes of its API: `data(for:) async throws` and `fetchData(for:completion:)`;
// a `Picture` has `thumbnail` (`get async`) and `prepareThumbnail(completion:)`.
//
// Check your answer:   swift test --filter ExercisesTests.CompletionToAsync
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct ThumbnailFetcher: CompletionToAsyncProtocol {
    private let server: ThumbnailServer

    public init(server: ThumbnailServer) {
        self.server = server
    }

    public func thumbnail(for id: String) async throws -> Thumbnail {
        // TODO: await the server's data, check the status code, decode a Picture, await its
        // thumbnail — throwing the error the rules name wherever a step fails.
        todo()
    }

    public func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        // TODO: start a Task that calls `thumbnail(for:)` and hands its result to `completion`, once.
        todo()
    }

    /// The code you are replacing, as it was: read it for the rules, then find the path that
    /// leaves its caller waiting (chapter 04, scenario 1 runs it).
    func legacyThumbnail(for id: String, completion: @escaping @Sendable (Thumbnail?, (any Error)?) -> Void) {
        server.fetchData(for: id) { data, statusCode, error in
            if let error {
                completion(nil, error)
            } else if statusCode != 200 {
                completion(nil, ThumbnailError.badID)
            } else if let data, let picture = Picture(data: data) {
                picture.prepareThumbnail { thumbnail in
                    guard let thumbnail else {
                        completion(nil, ThumbnailError.badImage)
                        return
                    }
                    completion(thumbnail, nil)
                }
            }
        }
    }
}
