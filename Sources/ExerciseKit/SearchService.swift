import WorkbookCore
import WorkbookExplorer

/// The fake search backend of exercise 06-streams/Debounce: `search(_:)` returns a query's
/// results after 20 ms (`ExplorerClock`: virtual time under the explorer); cancelling the calling
/// task ends the search at once with `CancellationError`. Every search, and everything the
/// screen showed, goes into one log the check reads (`SearchLog`).
public final class SearchService: Sendable {
    public static let latency = Duration.milliseconds(20)
    /// What was typed, searched and shown, in order, for the check.
    public let log = SearchLog()

    public init() {}

    /// The results for `query`: `["<query> 1", "<query> 2"]`, after `latency`.
    public func search(_ query: String) async throws -> [String] {
        log.add(.searchStarted(query))
        checkpoint("search(\"\(query)\")")
        do {
            try await ExplorerClock().sleep(for: Self.latency)
        } catch {
            log.add(.searchEnded(query, cancelled: true))
            checkpoint(Localized("search(\"\(query)\") cancelled", ja: "search(\"\(query)\") キャンセル"))
            throw CancellationError()
        }
        log.add(.searchEnded(query, cancelled: false))
        checkpoint("search(\"\(query)\") ↩")
        return ["\(query) 1", "\(query) 2"]
    }
}

/// The screen of exercise 06-streams/Debounce: the list under the search field.
@MainActor
public final class SearchScreen {
    private let log: SearchLog

    /// A screen that notes what it shows in `service`'s log.
    public init(loggingTo service: SearchService) {
        log = service.log
    }

    /// Shows `results` as the results of `query`.
    public func show(_ results: [String], for query: String) {
        log.add(.shown(query))
        checkpoint(Localized("screen shows \"\(query)\"", ja: "画面に \"\(query)\" を表示"))
    }
}

/// Everything that happened in one run of exercise 06-streams/Debounce, in order, each with the
/// moment it happened (ms of `ExplorerClock` time).
public final class SearchLog: Sendable {
    public enum Event: Sendable, Equatable {
        case typed(String)
        case searchStarted(String)
        case searchEnded(String, cancelled: Bool)
        case shown(String)
    }

    private let entries = QuietLocked<[(event: Event, at: Int)]>([])

    public func add(_ event: Event) {
        let (seconds, attoseconds) = ExplorerClock().now.offset.components
        let at = Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
        entries.withLock { $0.append((event, at)) }
    }

    public var events: [(event: Event, at: Int)] { entries.current }
}
