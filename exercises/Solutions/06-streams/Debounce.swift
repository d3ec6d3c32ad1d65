import ExerciseKit

/// Reference answer for exercise 06-streams/Debounce.
@MainActor
public final class SearchViewModel: DebounceProtocol {
    private let search: SearchService
    private let screen: SearchScreen
    private let interval: Duration
    /// The latest query's wait-then-search; cancelled by the next query.
    private var pending: Task<Void, Never>?

    public init(search: SearchService, screen: SearchScreen, interval: Duration) {
        self.search = search
        self.screen = screen
        self.interval = interval
    }

    public func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: interval)
                let results = try await search.search(query)
                // The search may have returned as the next query cancelled this task.
                guard !Task.isCancelled else { return }
                screen.show(results, for: query)
            } catch {
                // Cancelled: a newer query took over.
            }
        }
    }
}
