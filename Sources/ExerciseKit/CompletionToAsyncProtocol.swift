/// Exercise 04-async-await/CompletionToAsync: the thumbnail pipeline (fetch → decode →
/// shrink) as `async throws`, and a completion-handler entry point for callers not yet
/// converted.
public protocol CompletionToAsyncProtocol: Sendable {
    init(server: ThumbnailServer)
    /// Fetches `id`, decodes it and shrinks it. Returns the thumbnail, or throws: the server's
    /// own error as it is, `CancellationError` when the call is cancelled before the server
    /// replies, `ThumbnailError.badID` for a status code other than 200,
    /// `ThumbnailError.badImage` when the bytes are not an image or the image gives no thumbnail.
    func thumbnail(for id: String) async throws -> Thumbnail
    /// The same work for callers that pass a completion handler: it is called exactly once,
    /// with what `thumbnail(for:)` returns or throws.
    func thumbnail(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void)
}
