/// Exercise 04-async-await/OrderedThumbnails: many thumbnails with a task group, a few at a
/// time, in the order asked for.
public protocol OrderedThumbnailsProtocol: Sendable {
    init()
    /// Loads a thumbnail for each id with `loader`: at most `maxInFlight` loads at once, started
    /// in the order of `ids`, the next one as soon as one ends. Returns them in the order of `ids`. The first
    /// failure cancels the loads in flight, starts no more, and is thrown.
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail]
}
