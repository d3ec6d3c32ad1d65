import ExerciseKit

// OrderedThumbnails answers with one mistake each, written the way a learner might, plus two
// correct answers in other styles.

/// Appends results as they come: completion order.
struct CompletionOrderGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: Thumbnail.self) { group in
            var results: [Thumbnail] = []
            var next = 0
            for id in ids.prefix(maxInFlight) {
                group.addTask { try await loader.thumbnail(for: id) }
                next += 1
            }
            for try await thumbnail in group {
                results.append(thumbnail)
                if next < ids.count {
                    let id = ids[next]
                    group.addTask { try await loader.thumbnail(for: id) }
                    next += 1
                }
            }
            return results
        }
    }
}

/// Puts the order back by sorting on the id: the caller's order is not alphabetical.
struct SortedByIDGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await CompletionOrderGallery().thumbnails(for: ids, maxInFlight: maxInFlight, loader: loader).sorted { $0.id < $1.id }
    }
}

/// Every child added up front: all loads at once.
struct UnboundedGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask { (index, try await loader.thumbnail(for: id)) }
            }
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            for try await (index, thumbnail) in group { results[index] = thumbnail }
            return results.compactMap { $0 }
        }
    }
}

/// Counts running children but waits only when more than the limit run: one too many.
struct OffByOneGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var running = 0
            for (index, id) in ids.enumerated() {
                if running > maxInFlight, let (done, thumbnail) = try await group.next() {
                    results[done] = thumbnail
                    running -= 1
                }
                group.addTask { (index, try await loader.thumbnail(for: id)) }
                running += 1
            }
            for try await (index, thumbnail) in group { results[index] = thumbnail }
            return results.compactMap { $0 }
        }
    }
}

/// Batches of `maxInFlight`: each batch waits for its slowest load.
struct BatchesGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        var results: [Thumbnail] = []
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + maxInFlight, ids.count)])
            let loaded = try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
                for (index, id) in batch.enumerated() { group.addTask { (index, try await loader.thumbnail(for: id)) } }
                var slots = [Thumbnail?](repeating: nil, count: batch.count)
                for try await (index, thumbnail) in group { slots[index] = thumbnail }
                return slots.compactMap { $0 }
            }
            results += loaded
            start += maxInFlight
        }
        return results
    }
}

/// One load at a time, in a plain loop.
struct OneByOneGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        var results: [Thumbnail] = []
        for id in ids { results.append(try await loader.thumbnail(for: id)) }
        return results
    }
}

/// Notes the first error and throws it at the end, adding the next load after every result,
/// failed or not.
struct KeepsGoingGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var firstError: (any Error)?
            var next = 0
            func addNext(_ group: inout ThrowingTaskGroup<(Int, Thumbnail), any Error>) {
                guard next < ids.count else { return }
                let index = next
                group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                next += 1
            }
            for _ in 0..<maxInFlight { addNext(&group) }
            while let result = await group.nextResult() {
                switch result {
                case let .success((index, thumbnail)): results[index] = thumbnail
                case let .failure(error): firstError = firstError ?? error
                }
                addNext(&group)
            }
            if let firstError { throw firstError }
            return results.map { $0! }
        }
    }
}

/// A non-throwing group of `Result`s that stops at the first failure — without `cancelAll()`,
/// so the loads still running go on to the end.
struct BreakWithoutCancelGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        let outcome: Result<[Thumbnail], any Error> = await withTaskGroup(of: (Int, Result<Thumbnail, any Error>).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var next = 0
            func add(_ group: inout TaskGroup<(Int, Result<Thumbnail, any Error>)>) {
                let index = next
                group.addTask {
                    do { return (index, .success(try await loader.thumbnail(for: ids[index]))) } catch { return (index, .failure(error)) }
                }
                next += 1
            }
            while next < min(maxInFlight, ids.count) { add(&group) }
            for await (index, result) in group {
                switch result {
                case let .success(thumbnail): results[index] = thumbnail
                case let .failure(error): return .failure(error)
                }
                if next < ids.count { add(&group) }
            }
            return .success(results.map { $0! })
        }
        return try outcome.get()
    }
}

/// `try?` per load: a failure leaves a hole the result closes up.
struct SwallowsFailureGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        await withTaskGroup(of: (Int, Thumbnail?).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var next = 0
            while next < min(maxInFlight, ids.count) {
                let index = next
                group.addTask { (index, try? await loader.thumbnail(for: ids[index])) }
                next += 1
            }
            for await (index, thumbnail) in group {
                results[index] = thumbnail
                if next < ids.count {
                    let index = next
                    group.addTask { (index, try? await loader.thumbnail(for: ids[index])) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }
}

/// Cancels, then drains the group before rethrowing: the drain throws a sibling's
/// CancellationError first.
struct DrainsBeforeRethrowGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var next = 0
            while next < min(maxInFlight, ids.count) {
                let index = next
                group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                next += 1
            }
            do {
                for try await (index, thumbnail) in group {
                    results[index] = thumbnail
                    if next < ids.count {
                        let index = next
                        group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                        next += 1
                    }
                }
            } catch {
                group.cancelAll()
                for try await _ in group {}  // wait for the others before rethrowing
                throw error
            }
            return results.map { $0! }
        }
    }
}

/// Starts the first `maxInFlight` by index without looking at how many ids there are.
struct IgnoresShortListGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            for index in 0..<maxInFlight {
                group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
            }
            var next = maxInFlight
            for try await (index, thumbnail) in group {
                results[index] = thumbnail
                if next < ids.count {
                    let index = next
                    group.addTask { (index, try await loader.thumbnail(for: ids[index])) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}

// MARK: Correct answers in other styles

/// Correct: `group.next()` when the window is full, results in a dictionary by index.
struct NextWhenFullGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        var byIndex: [Int: Thumbnail] = [:]
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            for (index, id) in ids.enumerated() {
                if index >= maxInFlight, let (done, thumbnail) = try await group.next() {
                    byIndex[done] = thumbnail
                }
                group.addTask { (index, try await loader.thumbnail(for: id)) }
            }
            while let (done, thumbnail) = try await group.next() { byIndex[done] = thumbnail }
        }
        return ids.indices.map { byIndex[$0]! }
    }
}

/// Correct: a non-throwing group of `Result`s that cancels everything at the first failure
/// and throws it after the group.
struct ResultsWithCancelAllGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        var thumbnails = [Thumbnail?](repeating: nil, count: ids.count)
        var failure: (any Error)?
        await withTaskGroup(of: (Int, Result<Thumbnail, any Error>).self) { group in
            var pending = ids.indices.makeIterator()
            func startNext(_ group: inout TaskGroup<(Int, Result<Thumbnail, any Error>)>) {
                guard let index = pending.next() else { return }
                group.addTask {
                    do { return (index, .success(try await loader.thumbnail(for: ids[index]))) } catch { return (index, .failure(error)) }
                }
            }
            for _ in 0..<maxInFlight { startNext(&group) }
            for await (index, result) in group {
                switch result {
                case let .success(thumbnail):
                    thumbnails[index] = thumbnail
                    startNext(&group)
                case let .failure(error):
                    failure = error
                    group.cancelAll()
                    return
                }
            }
        }
        if let failure { throw failure }
        return thumbnails.map { $0! }
    }
}

/// Each child puts its own thumbnail into a shared list the compiler was told is safe; the
/// window and the order are right, but two children append at once.
struct RacySharedResults: OrderedThumbnailsProtocol {
    final class Results: @unchecked Sendable {
        var loaded: [(index: Int, thumbnail: Thumbnail)] = []
    }
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        let results = Results()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, id) in ids.enumerated() {
                if index >= maxInFlight { try await group.next() }
                group.addTask {
                    let thumbnail = try await loader.thumbnail(for: id)
                    results.loaded.append((index, thumbnail))
                }
            }
            try await group.waitForAll()
        }
        var ordered = [Thumbnail?](repeating: nil, count: ids.count)
        for (index, thumbnail) in results.loaded { ordered[index] = thumbnail }
        return ordered.map { $0! }
    }
}

/// A sliding window that takes the ids from the end: the right results, in the right order, but
/// the last id loads first.
struct FromTheEndGallery: OrderedThumbnailsProtocol {
    func thumbnails(for ids: [String], maxInFlight: Int, loader: ThumbnailLoader) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            var results = [Thumbnail?](repeating: nil, count: ids.count)
            var waiting = Array(ids.enumerated())
            for _ in 0..<min(maxInFlight, waiting.count) {
                let (index, id) = waiting.removeLast()
                group.addTask { (index, try await loader.thumbnail(for: id)) }
            }
            while let (index, thumbnail) = try await group.next() {
                results[index] = thumbnail
                if let (next, id) = waiting.popLast() {
                    group.addTask { (next, try await loader.thumbnail(for: id)) }
                }
            }
            return results.compactMap { $0 }
        }
    }
}
