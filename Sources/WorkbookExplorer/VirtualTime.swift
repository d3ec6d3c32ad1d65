import Foundation

/// Virtual time for a schedule run: sleeping registers a timer, and when nothing else can run
/// the driver jumps to the earliest timer. No real sleeping, and the same schedule gives the
/// same times.
final class VirtualTimeline: @unchecked Sendable {  // driver thread only
    private var timers: [(deadline: Duration, order: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var order = 0
    private(set) var now: Duration = .zero

    func sleep(until deadline: Duration, _ continuation: CheckedContinuation<Void, Never>) {
        order += 1
        timers.append((deadline, order, continuation))
    }

    /// Advances to the earliest timer and resumes it; false if there is none.
    func fireEarliest() -> Bool {
        guard let index = timers.indices.min(by: { (timers[$0].deadline, timers[$0].order) < (timers[$1].deadline, timers[$1].order) }) else {
            return false
        }
        let timer = timers.remove(at: index)
        now = max(now, timer.deadline)
        timer.continuation.resume()
        return true
    }
}

/// A clock to inject into code under exploration: inside a run it is virtual (sleeps are
/// scheduling points that cost no real time); outside it behaves like `ContinuousClock`.
public struct ExplorerClock: Clock {
    public struct Instant: InstantProtocol {
        public let offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private static let realStart = ContinuousClock.now

    public init() {}

    public var now: Instant {
        if let run = DriverThread.current { return Instant(offset: run.clock.now) }
        return Instant(offset: Self.realStart.duration(to: .now))
    }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let run = DriverThread.current {
            await withCheckedContinuation { run.clock.sleep(until: deadline.offset, $0) }
        } else {
            try await Task.sleep(for: now.duration(to: deadline))
        }
    }
}
