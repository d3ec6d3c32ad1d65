import ExerciseKit

// Exercise 04-async-await/OrderedThumbnails — read chapters/en/04-async-await.md (ja: chapters/ja/04-async-await.md) first.
//
// Goal: load a thumbnail for each id with a task group, a few at a time:
//   - at most `maxInFlight` loads run at once; they start in the order of `ids`, and the next
//     one starts as soon as one ends (not after the whole batch, not one by one);
//   - the result is in the order of `ids`, whatever order the loads end in;
//   - the first failure cancels the loads still running, starts no more, and is thrown to the
//     caller as it is.
// `loader.thumbnail(for:)` is async: each id takes its own time, one id may fail, and a cancelled
// load throws `CancellationError` at once.
//
// Check your answer:   swift test --filter ExercisesTests.OrderedThumbnails
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct ThumbnailGallery: OrderedThumbnailsProtocol {
    public init() {}

    public func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        // TODO: a throwing task group whose children return (index, thumbnail): add the first
        // `maxInFlight`, then one more for each result, and put each result back at its index.
        todo()
    }
}
