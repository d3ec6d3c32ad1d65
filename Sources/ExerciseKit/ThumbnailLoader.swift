import Foundation
import WorkbookCore
import WorkbookExplorer

/// A loader's failure for one id.
public struct LoadFailed: Error, Equatable, Sendable, CustomStringConvertible {
    public let id: String
    public var description: String { "LoadFailed(\(id))" }
}

/// The fake thumbnail loader of exercise 04-async-await/OrderedThumbnails: each id takes the
/// time its table says (an `ExplorerClock` sleep: virtual time under the explorer), one id may fail, and
/// a cancelled load ends at once with `CancellationError`. It records what a check needs:
/// starts and ends with their (virtual) times, how many loads ran at once, which were cancelled.
public final class ThumbnailLoader: Sendable {
    public struct Event: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case started, finished, failed, cancelled }
        public let id: String
        public let kind: Kind
        /// Since the loader was made, in the clock's (virtual) time.
        public let at: Duration
    }

    private let latencies: [String: Duration]
    private let failing: String?
    private let clock = ExplorerClock()
    private let madeAt: ExplorerClock.Instant
    private let log = QuietLocked<(events: [Event], inFlight: Int, mostInFlight: Int)>(([], 0, 0))

    /// - Parameters:
    ///   - latencies: how long each id takes; ids not in the table take 10 ms.
    ///   - failing: the id whose load throws `LoadFailed` when its time is up.
    public init(latencies: [String: Duration], failing: String? = nil) {
        self.latencies = latencies
        self.failing = failing
        madeAt = clock.now
    }

    /// Loads the thumbnail for `id`. Throws `LoadFailed(id)` for the failing id, and
    /// `CancellationError` as soon as the calling task is cancelled.
    public func thumbnail(for id: String) async throws -> Thumbnail {
        record(id, .started)
        checkpoint("thumbnail(for: \"\(id)\")")
        do {
            try await clock.sleep(for: latencies[id] ?? .milliseconds(10))
        } catch {
            record(id, .cancelled)
            checkpoint("thumbnail(for: \"\(id)\") → CancellationError")
            throw error
        }
        if id == failing {
            record(id, .failed)
            checkpoint("thumbnail(for: \"\(id)\") → LoadFailed(\(id))")
            throw LoadFailed(id: id)
        }
        record(id, .finished)
        checkpoint("thumbnail(for: \"\(id)\") → Thumbnail(\(id))")
        return Thumbnail(id: id)
    }

    private func record(_ id: String, _ kind: Event.Kind) {
        let at = madeAt.duration(to: clock.now)
        log.withLock { log in
            log.events.append(Event(id: id, kind: kind, at: at))
            log.inFlight += kind == .started ? 1 : -1
            log.mostInFlight = max(log.mostInFlight, log.inFlight)
        }
    }

    // MARK: For the check

    /// Every start and end, in order.
    public var events: [Event] { log.current.events }
    /// The most loads that were running at once.
    public var mostInFlight: Int { log.current.mostInFlight }
    /// The virtual time now, since the loader was made.
    public var elapsed: Duration { madeAt.duration(to: clock.now) }
}
