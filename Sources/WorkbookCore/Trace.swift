import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread-safe log of what happened, when, and on which lane (a thread or a task).
///
/// Scenarios record into a trace and the timeline draws it; checks assert ordering on it
/// (happens-before, at most N in flight, exactly once, no overlap) instead of sleeping or
/// sorting results away.
public final class Trace: Sendable {
    public enum Kind: String, Sendable {
        /// Something happened at one instant.
        case point
        /// A span of work started (drawn as a bar until the matching `end`).
        case begin
        /// A span of work ended.
        case end
    }

    public struct Event: Sendable, Equatable {
        /// Position in the log; ties in `time` are broken by it.
        public let sequence: Int
        /// Nanoseconds since the trace started.
        public let time: UInt64
        /// The lane in both languages: a thread's code name (`main`, `T1`, `A`) is the same in
        /// both; a lane named in words (`worker`, `account 2`) is drawn in the learner's language.
        public let localizedLane: Localized
        /// The label in both languages; a code name (`A`, `op1`) is the same in both.
        public let localizedLabel: Localized
        public let kind: Kind

        /// The lane in English: what queries and checks match on, like `label`.
        public var lane: String { localizedLane.en }

        /// The lane as the learner reads it.
        public func lane(in language: Language) -> String { localizedLane.text(language) }

        /// The label in English: what queries (`sequence(of:_:)`, `peakOverlap`) and checks
        /// match on, so a scenario reads its trace the same way whatever the learner's language.
        public var label: String { localizedLabel.en }

        /// The label as the learner reads it.
        public func label(in language: Language) -> String { localizedLabel.text(language) }

        public init(sequence: Int, time: UInt64, lane: String, label: String, kind: Kind) {
            self.init(sequence: sequence, time: time, lane: .verbatim(lane), label: .verbatim(label), kind: kind)
        }

        public init(sequence: Int, time: UInt64, lane: String, label: Localized, kind: Kind) {
            self.init(sequence: sequence, time: time, lane: .verbatim(lane), label: label, kind: kind)
        }

        public init(sequence: Int, time: UInt64, lane: Localized, label: Localized, kind: Kind) {
            self.sequence = sequence
            self.time = time
            self.localizedLane = lane
            self.localizedLabel = label
            self.kind = kind
        }
    }

    private struct State {
        var events: [Event] = []
        var laneOfThread: [UInt: String] = [:]
        /// Added to the clock after a `replay`, so later events come after the replayed ones.
        var shift: UInt64 = 0
    }

    private let start = MonotonicClock.now()
    private let state = Locked(State())

    public init() {}

    // Labels: a `String` is shown as it is in every language, for code names the lesson's code
    // prints (`A`, `op1`, `Thread.exit()`); anything in words is a `Localized`, drawn in the
    // learner's language while queries match its English.

    /// Records an instant. The lane defaults to the calling thread (`main`, `T1`, `T2`, … in
    /// order of first appearance in this trace).
    public func record(_ label: String, lane: String? = nil) { append(.verbatim(label), lane: lane.map(Localized.verbatim), kind: .point) }

    public func record(_ label: Localized, lane: String? = nil) { append(label, lane: lane.map(Localized.verbatim), kind: .point) }

    /// On a lane named in words (`worker`, `account 2`); a code label is `.verbatim`.
    public func record(_ label: Localized, lane: Localized) { append(label, lane: lane, kind: .point) }

    public func begin(_ label: String, lane: String? = nil) { append(.verbatim(label), lane: lane.map(Localized.verbatim), kind: .begin) }

    public func begin(_ label: Localized, lane: String? = nil) { append(label, lane: lane.map(Localized.verbatim), kind: .begin) }

    public func begin(_ label: Localized, lane: Localized) { append(label, lane: lane, kind: .begin) }

    public func end(_ label: String, lane: String? = nil) { append(.verbatim(label), lane: lane.map(Localized.verbatim), kind: .end) }

    public func end(_ label: Localized, lane: String? = nil) { append(label, lane: lane.map(Localized.verbatim), kind: .end) }

    public func end(_ label: Localized, lane: Localized) { append(label, lane: lane, kind: .end) }

    /// Records `body` as a span from `begin` to `end`.
    @discardableResult
    public func span<Result>(_ label: String, lane: String? = nil, _ body: () throws -> Result) rethrows -> Result {
        try span(.verbatim(label), lane: lane, body)
    }

    @discardableResult
    public func span<Result>(_ label: Localized, lane: String? = nil, _ body: () throws -> Result) rethrows -> Result {
        try span(label, lane: Localized.verbatim(lane ?? currentThreadLane()), body)
    }

    @discardableResult
    public func span<Result>(_ label: Localized, lane: Localized, _ body: () throws -> Result) rethrows -> Result {
        begin(label, lane: lane)
        defer { end(label, lane: lane) }
        return try body()
    }

    /// Records `events` from another trace as if they were happening now, spaced as they were:
    /// for the one run out of many that is worth drawing (e.g. the run that lost an update).
    public func replay(_ events: [Event]) {
        guard let first = events.map(\.time).min(), let last = events.map(\.time).max() else { return }
        let now = MonotonicClock.now() &- start
        RaceDetector.quietly {
            state.withLock { state in
                let base = now + state.shift
                for event in events {
                    state.events.append(Event(sequence: state.events.count, time: base + (event.time - first),
                                              lane: event.localizedLane, label: event.localizedLabel, kind: event.kind))
                }
                state.shift += last - first
            }
        }
    }

    /// Everything recorded so far, in the order it was recorded.
    public var events: [Event] { RaceDetector.quietly { state.withLock { $0.events } } }

    /// The labels of the point events, in order (what a scenario "printed").
    public var pointLabels: [String] { events.filter { $0.kind == .point }.map(\.label) }

    /// The lane of the calling thread in this trace.
    public func currentThreadLane() -> String {
        if Thread.isMainThread { return "main" }
        let id = ThreadIdentity.current
        return RaceDetector.quietly { state.withLock { state in
            if let lane = state.laneOfThread[id] { return lane }
            let lane = "T\(state.laneOfThread.count + 1)"
            state.laneOfThread[id] = lane
            return lane
        } }
    }

    private func append(_ label: Localized, lane: Localized?, kind: Kind) {
        let lane = lane ?? .verbatim(currentThreadLane())
        let time = MonotonicClock.now() &- start
        // Quietly: recording from two threads must not order their work for ThreadSanitizer.
        RaceDetector.quietly {
            state.withLock { state in
                state.events.append(Event(sequence: state.events.count, time: time + state.shift, lane: lane, label: label, kind: kind))
            }
        }
    }
}

/// Identifies the calling OS thread: a number no other thread of this process gets, even after
/// the thread has ended.
///
/// `pthread_self()` would not do: the C library hands an ended thread's id to the next new
/// thread, so two threads of a scenario could share a lane. The number is kept in thread-specific
/// storage, given out on first use.
public enum ThreadIdentity {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()
    private static let lastIssued = Locked<UInt>(0)

    public static var current: UInt {
        // `key` is read quietly: with ThreadSanitizer on Linux, touching a lazily initialized
        // static is a synchronization (`swift_once`'s lock), which would order every two
        // threads that ask for their lane (see `RaceDetector`).
        let key = RaceDetector.quietly { Self.key }
        if let stored = pthread_getspecific(key) { return UInt(bitPattern: stored) }
        let issued = RaceDetector.quietly {
            lastIssued.withLock { last -> UInt in
                last += 1
                return last
            }
        }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: issued))
        return issued
    }
}
