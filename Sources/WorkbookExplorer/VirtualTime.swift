import Foundation

/// Virtual time for a schedule run. Sleeping registers a timer. Steps take no time: when
/// nothing is ready, the clock jumps to the earliest deadline; the timers due then — and any
/// timer due now while other work is ready — are alternatives the search explores like any
/// other choice (timers due together, a timeout against a reply arriving at the same moment).
/// No real sleeping, and the same schedule gives the same times.
final class VirtualTimeline: QuietlyLocked, @unchecked Sendable {  // the driver thread; `cancel` may come from anywhere, so all under `lock`
    enum Wake {
        /// A job the runtime enqueued with a delay or deadline (`Task.sleep`, clock sleeps).
        case job(UnownedJob)
        /// An `ExplorerClock` sleeper.
        case continuation(CheckedContinuation<Void, any Error>)
    }
    struct Timer {
        let deadline: Duration
        let order: Int
        let wake: Wake
        /// The entity that set it (its sleeper).
        let owner: EntityKey?
        var key: EntityKey { EntityKey(timer: order) }
    }
    let lock = NSLock()
    private var timers: [Timer] = []
    private var order = 0
    private var virtualNow: Duration = .zero

    var now: Duration { locked { virtualNow } }

    /// Sets a timer; returns its number (for `cancel`).
    @discardableResult
    func add(_ wake: Wake, after delay: Duration, owner: EntityKey?) -> Int {
        locked {
            order += 1
            timers.append(Timer(deadline: virtualNow + max(.zero, delay), order: order, wake: wake, owner: owner))
            return order
        }
    }

    /// The timers a step may fire, in the order they were set: all those with the earliest
    /// deadline — if that deadline has come, or `advancing` (nothing else is ready, so the clock
    /// may jump to it), or it is at most `workQuantum` away (the ready work may take that long).
    func due(advancing: Bool, workQuantum: Duration = .zero) -> [Timer] {
        locked {
            guard !timers.isEmpty else { return [] }
            var earliest = timers[0].deadline
            for timer in timers where timer.deadline < earliest { earliest = timer.deadline }
            guard advancing || earliest <= virtualNow + workQuantum else { return [] }
            return timers.filter { $0.deadline == earliest }.sorted { $0.order < $1.order }
        }
    }

    /// Removes `timer` and advances the time to its deadline.
    func fire(_ timer: Timer) -> Wake {
        locked {
            timers.removeAll { $0.order == timer.order }
            virtualNow = max(virtualNow, timer.deadline)
            return timer.wake
        }
    }

    /// A sleeper's task was cancelled: its timer goes, and it wakes at once with
    /// `CancellationError` (it becomes ready like any resumed task).
    func cancel(_ number: Int) {
        let removed: Timer? = locked {
            guard let index = timers.firstIndex(where: { $0.order == number }) else { return nil }
            return timers.remove(at: index)
        }
        if case let .continuation(continuation)? = removed?.wake { continuation.resume(throwing: CancellationError()) }
    }
}

/// A clock to inject into code under exploration: inside a run it is virtual (sleeps are
/// scheduling points that cost no real time, and a cancelled sleep throws `CancellationError`
/// at once); outside it behaves like `ContinuousClock`. Plain `Task.sleep` and
/// `ContinuousClock` are virtual inside a run too, where the runtime offers its timer hooks.
public struct ExplorerClock: Clock {
    public struct Instant: InstantProtocol {
        public let offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private static let realStart = RuntimeHooks.now(clock: 1)  // a real reading, wherever first asked

    public init() {}

    public var now: Instant {
        if let run = DriverThread.current { return Instant(offset: run.now) }
        return Instant(offset: RuntimeHooks.now(clock: 1) - Self.realStart)
    }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let delay = max(.zero, now.duration(to: deadline))
        guard let run = DriverThread.current else {
            try await Task.sleep(for: delay)
            return
        }
        // A timer of the run's own, whatever executor the sleeping task is on; cancelling the
        // task removes it and wakes the sleeper with CancellationError.
        let timer = QuietLocked<Int?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let number = run.setTimer(continuation, after: delay)
                timer.withLock { $0 = number }
            }
        } onCancel: {
            if let number = timer.current { run.cancelTimer(number) }
        }
    }
}

