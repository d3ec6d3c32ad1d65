import Foundation
import WorkbookCore

public enum FetchError: Error, Equatable, Sendable {
    case notFound(Int)
}

/// A fake network client for the FanOut exercise whose replies the check controls.
///
/// It holds fetches until as many as allowed are in flight (or every expected fetch has been
/// started), then answers the newest first, so replies come back out of order on purpose. Each
/// reply is delivered on a global queue, so replies also run at the same time as each other.
/// If the caller stops starting fetches for a while, it answers anyway, so slow answers are not
/// mistaken for deadlocks.
public final class FakeClient: Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Ids in the order `fetch` was called.
        public var started: [Int] = []
        public var delivered = 0
        public var returned = 0
        public var inFlight = 0
        public var mostInFlight = 0
        /// The trace event at which more than the limit were in flight, if ever.
        public var overLimitAt: Int?
    }

    private struct Pending: Sendable {
        let id: Int
        let completion: @Sendable (Result<String, FetchError>) -> Void
    }

    public let trace: Trace
    public let limit: Int
    public let expectedFetches: Int
    public let failingIDs: Set<Int>
    private let idleNanoseconds: UInt64
    private let condition = NSCondition()
    // Guarded by `condition`.
    private nonisolated(unsafe) var pending: [Pending] = []
    private nonisolated(unsafe) var stats = Statistics()
    private nonisolated(unsafe) var stopped = false

    public init(trace: Trace = Trace(), limit: Int, expectedFetches: Int, failingIDs: Set<Int> = [], idleMilliseconds: Int = 25) {
        self.trace = trace
        self.limit = limit
        self.expectedFetches = expectedFetches
        self.failingIDs = failingIDs
        self.idleNanoseconds = UInt64(idleMilliseconds) * 1_000_000
        let thread = Thread { [self] in deliverReplies() }
        thread.name = "fake-network"
        thread.start()
    }

    /// The reply for `id`: `"item-<id>"`, or `.notFound(id)` for a failing id.
    public static func reply(for id: Int, failingIDs: Set<Int>) -> Result<String, FetchError> {
        failingIDs.contains(id) ? .failure(.notFound(id)) : .success("item-\(id)")
    }

    /// Starts fetching `id`; `completion` is called once, later, on another thread.
    public func fetch(_ id: Int, completion: @escaping @Sendable (Result<String, FetchError>) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        trace.begin("fetch \(id)", lane: "#\(id)")
        stats.started.append(id)
        stats.inFlight += 1
        stats.mostInFlight = max(stats.mostInFlight, stats.inFlight)
        if stats.inFlight > limit, stats.overLimitAt == nil { stats.overLimitAt = trace.events.count - 1 }
        pending.append(Pending(id: id, completion: completion))
        condition.broadcast()
    }

    // MARK: For the check

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return stats
    }

    /// Waits until the caller is done: every expected fetch started and every reply's callback
    /// returned — or, for a caller that starts fewer, nothing in flight and nothing new for
    /// `quietSeconds`. Gives up after `seconds`; true if it settled.
    public func waitUntilSettled(seconds: Double, quietSeconds: Double = 0.1) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        var lastChange = Date(), lastSeen = (-1, -1)
        while true {
            let idle = stats.returned == stats.delivered && pending.isEmpty
            if idle && stats.started.count >= expectedFetches { return true }
            let seen = (stats.started.count, stats.returned)
            if seen != lastSeen { lastSeen = seen; lastChange = Date() }
            if idle && Date().timeIntervalSince(lastChange) >= quietSeconds { return true }
            let wake = min(deadline, Date(timeIntervalSinceNow: quietSeconds / 4))
            if !condition.wait(until: wake) && Date() >= deadline { return false }
        }
    }

    /// Stops the delivery thread; replies not yet delivered are dropped.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func deliverReplies() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            let allStarted = stats.started.count >= expectedFetches
            if !pending.isEmpty && (pending.count >= limit || allStarted) {
                deliverNewest()
                continue
            }
            let startedBefore = stats.started.count
            let woke = condition.wait(until: Date(timeIntervalSinceNow: Double(idleNanoseconds) / 1e9))
            // Nothing new for a while: the caller waits for a reply before starting more.
            if !woke, !pending.isEmpty, stats.started.count == startedBefore { deliverNewest() }
        }
    }

    /// Called with `condition` locked.
    private func deliverNewest() {
        let next = pending.removeLast()
        stats.inFlight -= 1
        stats.delivered += 1
        let result = Self.reply(for: next.id, failingIDs: failingIDs)
        trace.end("fetch \(next.id)", lane: "#\(next.id)")
        DispatchQueue.global().async { [self] in
            next.completion(result)
            condition.lock()
            stats.returned += 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
