import ExerciseKit
import Foundation

// Debounce answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// Searches at once on every change (cancelling the previous one): no pause at all.
@MainActor final class SearchesAtOnce: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            guard let results = try? await search.search(query), !Task.isCancelled else { return }
            screen.show(results, for: query)
        }
    }
}

/// `try?` on the sleep: a cancelled wait returns at once and searches the older query anyway.
@MainActor final class SleepErrorSwallowed: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            try? await Task.sleep(for: interval)
            guard let results = try? await search.search(query), !Task.isCancelled else { return }
            screen.show(results, for: query)
        }
    }
}

/// A new task per change, the previous one never cancelled: every query is searched after its
/// own wait, the older ones too.
@MainActor final class NeverCancelsPrevious: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        Task {
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                screen.show(results, for: query)
            } catch {}
        }
    }
}

/// Shows the results without looking again: a search that returns as the next query cancels
/// the task shows a stale result.
@MainActor final class ShowsWithoutCheckingAgain: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                screen.show(results, for: query)
            } catch {}
        }
    }
}

/// Checks for cancellation before searching only: the search's own return is not checked.
@MainActor final class ChecksOnlyBeforeSearch: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: interval)
                try Task.checkCancellation()
                screen.show(try await search.search(query), for: query)
            } catch {}
        }
    }
}

/// Throttles: a change while a wait is pending is skipped, so the last query can be lost.
@MainActor final class SkipsWhilePending: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        guard pending == nil else { return }
        pending = Task {
            defer { pending = nil }
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                guard !Task.isCancelled else { return }
                screen.show(results, for: query)
            } catch {}
        }
    }
}

/// The latest query in an unlocked box that a detached task reads after its wait, instead of
/// cancelling: the main actor writes it while the detached task reads it.
@MainActor final class DetachedReadsUnlockedQuery: DebounceProtocol {
    final class Latest: @unchecked Sendable {
        var query = ""
    }
    let search: SearchService, screen: SearchScreen, interval: Duration
    let latest = Latest()
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        latest.query = query
        let (latest, search, screen, interval) = (self.latest, self.search, self.screen, self.interval)
        Task.detached {
            try? await Task.sleep(for: interval)
            guard latest.query == query, let results = try? await search.search(query) else { return }
            await MainActor.run {
                if latest.query == query { screen.show(results, for: query) }
            }
        }
    }
}

/// A correct answer: a deadline on `ContinuousClock`, and `checkCancellation()` after the search.
@MainActor final class DeadlineAndCheckCancellation: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        pending?.cancel()
        let deadline = ContinuousClock.now + interval
        pending = Task { [search, screen] in
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
                let results = try await search.search(query)
                try Task.checkCancellation()
                screen.show(results, for: query)
            } catch {}
        }
    }
}

/// The queries go into an `AsyncStream` that one long-lived task reads, cancelling the previous
/// search task there — a hop after the query was typed: a search returning in between is shown.
@MainActor final class QueryStreamLoop: DebounceProtocol {
    let continuation: AsyncStream<String>.Continuation
    init(search: SearchService, screen: SearchScreen, interval: Duration) {
        let (queries, continuation) = AsyncStream.makeStream(of: String.self)
        self.continuation = continuation
        Task {
            var pending: Task<Void, Never>?
            for await query in queries {
                pending?.cancel()
                pending = Task {
                    do {
                        try await Task.sleep(for: interval)
                        let results = try await search.search(query)
                        guard !Task.isCancelled else { return }
                        screen.show(results, for: query)
                    } catch {}
                }
            }
        }
    }
    deinit { continuation.finish() }
    func queryChanged(_ query: String) { continuation.yield(query) }
}

/// A second change cancels the pending task and stops there ("cancel instead of restart"):
/// after a finished search, the next query is never searched.
@MainActor final class CancelsInsteadOfRestarting: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        if let pending {
            pending.cancel()
            self.pending = nil
            return
        }
        pending = Task {
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                guard !Task.isCancelled else { return }
                screen.show(results, for: query)
            } catch {}
        }
    }
}

/// A correct answer: the previous task cancelled, and a generation number compared before
/// showing (the task runs on the main actor, so the number is read there).
@MainActor final class GenerationAndCancel: DebounceProtocol {
    let search: SearchService, screen: SearchScreen, interval: Duration
    var pending: Task<Void, Never>?
    var generation = 0
    init(search: SearchService, screen: SearchScreen, interval: Duration) { (self.search, self.screen, self.interval) = (search, screen, interval) }
    func queryChanged(_ query: String) {
        generation += 1
        let mine = generation
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                if mine == generation { screen.show(results, for: query) }
            } catch {}
        }
    }
}
