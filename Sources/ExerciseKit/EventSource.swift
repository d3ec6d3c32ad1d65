import WorkbookCore
import WorkbookExplorer

/// The source's own failure.
public enum SensorError: Error, Equatable, Sendable {
    case disconnected
}

/// The fake event source of exercise 06-streams/EventStream, shaped like a sensor or a socket
/// with a delegate: `start(_:)` begins delivery and `stop()` ends it. Events come from the
/// source's own task, one at a time and in order, 10 ms apart (`ExplorerClock`: virtual time
/// under the explorer); after `.finished` or `.failed` nothing more comes. After `stop()` the
/// source decides on nothing new — but an event already on its way may still arrive, as with
/// many real sources (a script can hold one on its way until `stop()`, on purpose). The check
/// reads back what was decided, and when.
public final class EventSource: Sendable {
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        case value(Int)
        case finished
        case failed(SensorError)

        public var description: String {
            switch self {
            case let .value(value): "\(value)"
            case .finished: "finished"
            case let .failed(error): "failed(\(error))"
            }
        }
    }

    /// What the source delivers: these events in order, `apart` from one another (zero: all
    /// at once, one call after another), the first 10 ms after `start`; or values 1, 2, 3, …
    /// 10 ms apart until stopped.
    public enum Script: Sendable {
        case events([Event], apart: Duration = EventSource.interval)
        /// As `events`, but event number `held` (from 1) is held on its way until `stop()` is
        /// called, then handed over: it arrives after the stream ended.
        case eventsHolding([Event], held: Int)
        case endless
        /// As `endless`, but value `held` is held on its way until `stop()` is called, then
        /// handed over: it arrives after the stream ended.
        case endlessHolding(Int)
    }

    /// What happened at the source, in order, for the check.
    public enum Entry: Sendable, Equatable {
        case started
        case delivered(Event)
        case stopped
    }

    private struct State {
        var log: [Entry] = []
        var stopped = false
        var decided = 0
        var handler: (@Sendable (Event) -> Void)?
    }

    public static let interval = Duration.milliseconds(10)
    private let script: Script
    private let state = QuietLocked(State())

    public init(script: Script) {
        self.script = script
    }

    /// Starts delivering events to `handler`, from the source's own task (see the type).
    public func start(_ handler: @escaping @Sendable (Event) -> Void) {
        checkpoint("source.start")
        let script = self.script
        state.withLock { state in
            state.log.append(.started)
            state.handler = handler
        }
        Task { [self] in
            nameTask(Localized("source", ja: "ソース"))
            var first = true
            while true {
                var pause = Self.interval
                if case let .events(_, apart) = script, !first { pause = apart }
                first = false
                if pause > .zero { try? await ExplorerClock().sleep(for: pause) }
                // Decided and logged under the lock, handed over outside it: a `stop()` either
                // comes first (nothing decided) or after the event is on its way.
                guard let (number, event) = decide() else { return }
                var held = 0
                if case let .endlessHolding(index) = script { held = index }
                if case let .eventsHolding(_, index) = script { held = index }
                if held == number {
                    // On its way: handed over once `stop()` came (polled: a wake-up from `stop()`
                    // would order it after the stop for ThreadSanitizer, as real sources do not).
                    while !state.current.stopped { try? await ExplorerClock().sleep(for: .milliseconds(5)) }
                }
                checkpoint(Localized("source → \(event)", ja: "ソース → \(event)"))
                handler(event)
                if case .value = event { continue }
                return
            }
        }
    }

    /// The next event, decided and logged — nil once stopped or at the script's end.
    private func decide() -> (number: Int, event: Event)? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            let number = state.decided + 1
            let event: Event
            switch script {
            case let .events(events, _), let .eventsHolding(events, _):
                guard number <= events.count else { return nil }
                event = events[number - 1]
            case .endless, .endlessHolding:
                event = .value(number)
            }
            state.decided = number
            state.log.append(.delivered(event))
            return (number, event)
        }
    }

    /// Stops delivery: the source decides on no new event (one on its way may still come).
    /// Any thread.
    public func stop() {
        checkpoint("source.stop")
        state.withLock { state in
            state.stopped = true
            state.log.append(.stopped)
        }
    }

    // MARK: For the check

    /// Everything that happened at the source, in order.
    public var log: [Entry] { state.current.log }

    /// The source ticks now, on the calling task: unless it was stopped, it decides its next
    /// event and delivers it. A check calls it right as the stream ends from the consumer's side:
    /// a `stop()` that is still to come (from a `Task {}`) is then too late, in every schedule.
    public func tickNow() {
        guard let (_, event) = decide(), let handler = state.current.handler else { return }
        checkpoint(Localized("source → \(event) (a tick as the stream ends)", ja: "ソース → \(event)（ストリームが終わる瞬間の配信）"))
        handler(event)
    }

    /// Ends delivery for good without counting as a `stop()` (the check's, when it has seen
    /// what it needed: a source left running would otherwise run forever).
    public func shutDown() {
        state.withLock { $0.stopped = true }
    }
}
