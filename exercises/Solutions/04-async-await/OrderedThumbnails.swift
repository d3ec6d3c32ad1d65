import ExerciseKit

// Reference solution of exercise 04-async-await/OrderedThumbnails.

public struct ThumbnailGallery: OrderedThumbnailsProtocol {
    public init() {}

    /// A sliding window over a throwing task group. Each child returns its index with its
    /// thumbnail, so the results go back in place whatever order they end in. When a child
    /// throws, `for try await` rethrows it out of the group's closure: the group cancels the
    /// children still running, waits for them, and the loop adds no more.
    public func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var thumbnails = [Thumbnail?](repeating: nil, count: ids.count)
            var next = 0
            while next < min(maxInFlight, ids.count) {
                let index = next
                group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                next += 1
            }
            for try await (index, thumbnail) in group {
                thumbnails[index] = thumbnail
                if next < ids.count {
                    let index = next
                    group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                    next += 1
                }
            }
            return thumbnails.map { $0! }  // every index was filled: the loop ran once per child
        }
    }
}
