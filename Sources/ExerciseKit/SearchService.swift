import WorkbookCore
import WorkbookExplorer

/// The fake search backend of exercise 06-streams/Debounce: `search(_:)` returns a query's
/// results after 20 ms (`ExplorerClock`: virtual time under the explorer); cancelling the calling
/// task ends the search at once with `CancellationError`. The check reads back every search.
public final class SearchService: Sendable {
    public enum Ending: Sendable, Equatable {
        case returned, cancelled
    }

    /// One search, in the order they started; `ending` nil while it runs.
    public struct Search: Sendable, Equatable {
        public let query: String
        public var ending: Ending?
    }

    public static let latency = Duration.milliseconds(20)
    private let state = QuietLocked<[Search]>([])

    public init() {}

    /// The results for `query`: `["<query> 1", "<query> 2"]`, after `latency`.
    public func search(_ query: String) async throws -> [String] {
        let number = state.withLock { searches in
            searches.append(Search(query: query))
            return searches.count - 1
        }
        checkpoint("search(\"\(query)\")")
        do {
            try await ExplorerClock().sleep(for: Self.latency)
        } catch {
            state.withLock { $0[number].ending = .cancelled }
            checkpoint("search(\"\(query)\") cancelled")
            throw CancellationError()
        }
        state.withLock { $0[number].ending = .returned }
        checkpoint("search(\"\(query)\") ↩")
        return ["\(query) 1", "\(query) 2"]
    }

    // MARK: For the check

    /// Every search started, in order.
    public var searches: [Search] { state.current }
}
