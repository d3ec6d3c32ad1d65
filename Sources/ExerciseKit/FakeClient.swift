import Foundation
import WorkbookCore

public enum FetchError: Error, Equatable, Sendable {
    case notFound(Int)
}

/// A fake network client for the FanOut exercise whose replies the check controls.
///
/// - **Replies are held.** Nothing comes back until as many fetches as allowed are in flight
///   (or every expected fetch has started); then the newest is answered first, so replies
///   arrive out of order on every run, not only when the scheduler shuffles them. A caller that
///   stops starting fetches for a while (it waits for a reply first) is answered anyway, after
///   a pause that grows with the load, so a slow answer is not mistaken for a deadlock.
/// - **One reply at a time, each on another thread.** Replies are handed to the fake's own
///   reply threads (never the GCD pool, which an answer may have filled with waiting blocks),
///   and the next reply waits until the previous callback has returned. Two consecutive
///   callbacks always run on different threads, and nothing in the fake orders them for
///   ThreadSanitizer: the only edge it gives is the one a real network gives, from the
///   `fetch` call to its own reply. So results stored without a lock are a data race that TSan
///   reports every run, and the order of the replies is the same on every run.
/// - **Going over the limit is given its chance.** Each time the limit is reached, the fake
///   waits a scheduler round before answering, so an answer that starts one fetch too many
///   does so every run.
/// - **The last reply waits.** Before answering the last outstanding fetch, the fake runs the
///   check's `beforeLastReply` (an observation window), so a completion that comes one reply too
///   early shows up every time.
/// - **No oracle.** The replies come from a table the check makes fresh for every run, with
///   values nobody can guess; the fake keeps it private.
public final class FakeClient: Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Ids in the order `fetch` was called.
        public var started: [Int] = []
        /// Ids in the order their replies were handed to a callback.
        public var deliveredIDs: [Int] = []
        public var delivered: Int { deliveredIDs.count }
        /// Callbacks that have returned.
        public var returned = 0
        public var inFlight = 0
        public var mostInFlight = 0
        /// The trace event at which more than the limit were in flight, if ever.
        public var overLimitAt: Int?
        /// With `overlapLastTwo`: whether the first of the last two callbacks reached the
        /// release it was to pause after (false: it made fewer releases); nil before then.
        public var overlapPaused: Bool?
    }

    private struct Pending: Sendable {
        let id: Int
        let reply: ReplyThread
    }

    /// The thread that will deliver one fetch's reply, and the reply once it is due.
    private final class ReplyThread: @unchecked Sendable {
        let id: Int
        let completion: @Sendable (Result<String, FetchError>) -> Void
        // Guarded by the client's `condition`.
        var result: Result<String, FetchError>?
        var running = false
        var kernelThread: KernelThread?
        /// Pause the callback after this many releases (`ReleasePoint`), until `resumed`.
        var pauseAfterRelease: Int?
        var paused = false, resumed = false
        init(id: Int, completion: @escaping @Sendable (Result<String, FetchError>) -> Void) {
            self.id = id
            self.completion = completion
        }
    }

    public let trace: Trace
    public let limit: Int
    public let expectedFetches: Int
    private let replies: [Int: Result<String, FetchError>]
    private let beforeLastReply: (@Sendable () -> Void)?
    private let idleSeconds: Double
    private let overlapLastTwo: Int?
    private let condition = NSCondition()
    // Guarded by `condition`, touched only inside `RaceDetector.quietly`.
    private nonisolated(unsafe) var pending: [Pending] = []
    private nonisolated(unsafe) var stats = Statistics()
    private nonisolated(unsafe) var stopped = false
    private nonisolated(unsafe) var running: [ReplyThread] = []
    private nonisolated(unsafe) var heldLastReply = false
    private nonisolated(unsafe) var deliveredPair = false
    /// `started.count` when the limit was last reached and the caller was given a moment.
    private nonisolated(unsafe) var lastFullCount = -1

    /// - Parameters:
    ///   - replies: the reply for each id (ids not in it get `.notFound`).
    ///   - beforeLastReply: runs on the fake's own thread before the last outstanding reply.
    ///   - overlapLastTwo: deliver the last two replies together: pause the first callback right
    ///     after its release number `overlapLastTwo` (a lock's unlock, a signal, a `sync`, a
    ///     `leave`; see `ReleasePoint`), run the second callback whole, then let the first go on.
    public init(trace: Trace = Trace(), limit: Int, expectedFetches: Int, replies: [Int: Result<String, FetchError>],
                beforeLastReply: (@Sendable () -> Void)? = nil, idleMilliseconds: Int = 25, overlapLastTwo: Int? = nil) {
        self.trace = trace
        self.limit = limit
        self.expectedFetches = expectedFetches
        self.replies = replies
        self.beforeLastReply = beforeLastReply
        self.idleSeconds = Double(idleMilliseconds) / 1000
        self.overlapLastTwo = overlapLastTwo
        self.deliveredPair = overlapLastTwo != nil
        let network = Thread { [self] in RaceDetector.quietly { deliverReplies() } }
        network.name = "fake-network"
        network.start()
    }

    /// Starts fetching `id`; `completion` is called once, later, on another thread.
    public func fetch(_ id: Int, completion: @escaping @Sendable (Result<String, FetchError>) -> Void) {
        // Each reply comes on a thread of its own, started here on the caller's thread: that is
        // the one edge a real network gives (everything before this call happens before the
        // reply), and the only one. The thread then waits, unseen by TSan, until it is due.
        let reply = ReplyThread(id: id, completion: completion)
        let thread = Thread { [self] in deliver(reply) }
        thread.name = "fake-reply-\(id)"
        thread.start()
        RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            trace.begin("fetch \(id)", lane: "#\(id)")
            stats.started.append(id)
            stats.inFlight += 1
            stats.mostInFlight = max(stats.mostInFlight, stats.inFlight)
            if stats.inFlight > limit, stats.overLimitAt == nil { stats.overLimitAt = trace.events.count - 1 }
            pending.append(Pending(id: id, reply: reply))
            condition.broadcast()
        }
    }

    // MARK: For the check

    public var statistics: Statistics {
        RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            return stats
        }
    }

    /// Ids whose callback was called and has not returned.
    public var callbacksRunning: [Int] {
        RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            return running.map(\.id)
        }
    }

    /// Waits until the caller is done: every expected fetch started and every reply's callback
    /// returned — or, for a caller that starts fewer, nothing in flight and nothing new for
    /// `quietSeconds`. Gives up after `seconds`; true if it settled.
    public func waitUntilSettled(seconds: Double, quietSeconds: Double = 0.1) -> Bool {
        RaceDetector.quietly {
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
    }

    /// Stops the fake's threads; replies not yet delivered are dropped.
    public func stop() {
        RaceDetector.quietly {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }

    // MARK: Delivery (the fake's own threads, always inside `RaceDetector.quietly`)

    private func deliver(_ reply: ReplyThread) {
        let (result, pauseAfterRelease) = RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            reply.kernelThread = KernelThread.current()
            while reply.result == nil && !stopped { condition.wait() }
            return (reply.result, reply.pauseAfterRelease)
        }
        guard let result else { return }
        if let pauseAfterRelease {
            let paused = ReleasePoint.run(pausingAfterRelease: pauseAfterRelease, pause: { [self] in hold(reply) }) {
                reply.completion(result)
            }.paused
            RaceDetector.quietly { condition.withLock { stats.overlapPaused = paused } }
        } else {
            reply.completion(result)
        }
        RaceDetector.quietly {
            condition.lock()
            running.removeAll { $0 === reply }
            stats.returned += 1
            condition.broadcast()
            condition.unlock()
        }
    }

    private func deliverReplies() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            let allStarted = stats.started.count >= expectedFetches
            if !pending.isEmpty && (pending.count >= limit || allStarted) {
                if let overlapLastTwo, allStarted && pending.count == 2 {
                    deliverLastTwoTogether(pausingFirstAfterRelease: overlapLastTwo)
                    continue
                }
                if allStarted && pending.count == 1 && !heldLastReply, let beforeLastReply {
                    heldLastReply = true
                    condition.unlock()
                    beforeLastReply()
                    condition.lock()
                    continue
                }
                if !allStarted && pending.count == limit && lastFullCount != stats.started.count {
                    // The limit is reached: a caller that keeps it starts nothing more until a
                    // reply comes. Give one that does not the time to start one more fetch.
                    lastFullCount = stats.started.count
                    condition.unlock()
                    schedulerRound()
                    condition.lock()
                    continue
                }
                // The first time, answer the two newest one right after the other, before the
                // caller can start another fetch: two callbacks on two threads that nothing but
                // the caller's own code orders.
                let pairedID = deliveredPair || pending.count < 2 ? nil : pending[pending.count - 2].id
                deliveredPair = true
                deliverNewest()
                if let pairedID, let index = pending.lastIndex(where: { $0.id == pairedID }) {
                    pending.append(pending.remove(at: index))
                    deliverNewest()
                }
                continue
            }
            let startedBefore = stats.started.count
            _ = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
            guard !pending.isEmpty, stats.started.count == startedBefore, !stopped else { continue }
            // Nothing new for a while: the caller may be waiting for a reply before it starts
            // more. On a busy machine its thread may just not have run yet, so wait until a
            // thread started now has run, then look again.
            condition.unlock()
            schedulerRound()
            condition.lock()
            if stats.started.count == startedBefore, !pending.isEmpty, !stopped { deliverNewest() }
        }
    }

    /// Returns once a thread started now has run (at most a second): longer on a busy machine.
    private func schedulerRound() {
        let ran = DispatchSemaphore(value: 0)
        Thread.detachNewThread { RaceDetector.quietly { _ = ran.signal() } }
        _ = ran.wait(timeout: .now() + 1)
    }

    /// Releases the newest pending reply to its thread and waits for its callback to return.
    /// Called with `condition` locked.
    private func deliverNewest() {
        let next = releaseNewest()
        // One callback at a time (unless one blocks for half a second): the order of replies is
        // the fake's, and two callbacks never contend for a lock, where some locks (Mutex under
        // contention) are invisible to TSan and would be reported as a race.
        waitForReturn(of: next.reply, seconds: 0.5)
    }

    /// Hands the newest pending reply to its thread. Called with `condition` locked.
    private func releaseNewest(pausingAfterRelease pause: Int? = nil) -> Pending {
        let next = pending.removeLast()
        stats.inFlight -= 1
        stats.deliveredIDs.append(next.id)
        trace.end("fetch \(next.id)", lane: "#\(next.id)")
        running.append(next.reply)
        next.reply.pauseAfterRelease = pause
        next.reply.result = replies[next.id] ?? .failure(.notFound(next.id))
        condition.broadcast()
        return next
    }

    /// Waits (with `condition` locked) until `reply`'s callback has returned, at most `seconds`.
    private func waitForReturn(of reply: ReplyThread, seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while running.contains(where: { $0 === reply }) && !stopped && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
    }

    /// The last two replies, together: the first callback is paused right after its release
    /// number `release`; the second runs whole — until it returns, or its thread sleeps (it
    /// waits for something the first one holds) — and then the first goes on. Called with
    /// `condition` locked.
    private func deliverLastTwoTogether(pausingFirstAfterRelease release: Int) {
        let first = releaseNewest(pausingAfterRelease: release)
        var deadline = Date(timeIntervalSinceNow: 1)
        while !first.reply.paused && running.contains(where: { $0 === first.reply }) && !stopped && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
        let second = releaseNewest()
        deadline = Date(timeIntervalSinceNow: 2)
        var watch = second.reply.kernelThread.map(KernelThread.BlockedWatch.init)
        while running.contains(where: { $0 === second.reply }) && !stopped && Date() < deadline {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.001))
            if watch?.look() == true { break }
        }
        if first.reply.paused {
            trace.record(running.contains(where: { $0 === second.reply })
                         ? Localized("callback #\(second.id) waits; #\(first.id) goes on", ja: "#\(second.id) は待ち、#\(first.id) を再開")
                         : Localized("callback #\(first.id) goes on", ja: "#\(first.id) のコールバックを再開"), lane: "#\(first.id)")
        }
        first.reply.resumed = true
        condition.broadcast()
        waitForReturn(of: first.reply, seconds: 0.5)
        waitForReturn(of: second.reply, seconds: 0.5)
    }

    /// The pause of a callback at its release point (on the callback's thread): it waits until
    /// the fake lets it go on, unseen by TSan, so no ordering is added.
    private func hold(_ reply: ReplyThread) {
        RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            reply.paused = true
            let release = reply.pauseAfterRelease ?? 0
            trace.record(Localized("callback #\(reply.id) paused after release \(release)",
                                   ja: "#\(reply.id) を \(Localized.ordinal(release).ja)の解放後に止める"), lane: "#\(reply.id)")
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: 5)
            while !reply.resumed && !stopped && Date() < deadline { _ = condition.wait(until: deadline) }
        }
    }
}
