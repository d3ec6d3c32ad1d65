import WorkbookCore
import WorkbookExplorer

/// A place the provider reports. Only the provider makes them, so an answer cannot make one up.
public struct Location: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    init(_ name: String) { self.name = name }
    public var description: String { "Location(\(name))" }
}

/// The provider's own failures: they pass through to the caller as they are.
public enum LocationProviderError: Error, Equatable, Sendable {
    case denied
    case signalLost
}

/// What exercise 05-continuations/DelegateBridge throws of its own.
public enum LocationError: Error, Equatable, Sendable {
    /// A request is already in flight; the new one is turned away (the first goes on).
    case busy
}

/// What a `LocationProvider` tells its delegate, from whatever thread it is on.
public protocol LocationProviderDelegate: AnyObject, Sendable {
    func locationProvider(_ provider: LocationProvider, didUpdate location: Location)
    func locationProvider(_ provider: LocationProvider, didFailWith error: any Error)
}

/// The fake delegate-based API of exercise 05-continuations/DelegateBridge, shaped like
/// `CLLocationManager.requestLocation()`: ask once, and the answer comes to the delegate later —
/// from the provider's own task (another thread) or, for a location it has at hand, at once,
/// before `requestLocation()` returns. Like real providers it is not tidy: it may report more
/// than once for one request (a second fix, then a failure), and reports can arrive after the
/// request was answered. It holds its delegate weakly, as delegating objects do.
public final class LocationProvider: Sendable {
    /// One report to the delegate.
    public enum Report: Sendable, Equatable, CustomStringConvertible {
        case update(String)
        case failure(LocationProviderError)

        public var description: String {
            switch self {
            case let .update(name): "didUpdate Location(\(name))"
            case let .failure(error): "didFailWith LocationProviderError.\(error)"
            }
        }
    }

    /// What the provider does for one `requestLocation()`: reports at once (on the caller's
    /// thread, before it returns), then later ones, each after its delay from the request.
    public struct Answer: Sendable {
        public let atOnce: [Report]
        public let later: [(after: Duration, report: Report)]

        public init(atOnce: [Report] = [], later: [(after: Duration, report: Report)] = []) {
            self.atOnce = atOnce
            self.later = later
        }
    }

    private struct WeakDelegate {
        weak var delegate: (any LocationProviderDelegate)?
    }

    private let answers: [Answer]
    private let state = QuietLocked<(delegate: WeakDelegate, requests: Int)>((WeakDelegate(), 0))

    /// - Parameter answers: the k-th request gets `answers[k]`; requests past the end get no report.
    public init(answers: [Answer]) {
        self.answers = answers
    }

    /// Held weakly: something else must keep the delegate alive.
    public var delegate: (any LocationProviderDelegate)? {
        get { state.current.delegate.delegate }
        set { state.withLock { $0.delegate.delegate = newValue } }
    }

    /// Asks for one location; the answer goes to the delegate (see `Answer`).
    public func requestLocation() {
        let number = state.withLock { state -> Int in
            state.requests += 1
            return state.requests
        }
        checkpoint("requestLocation() #\(number)")
        guard number <= answers.count else { return }
        let answer = answers[number - 1]
        for report in answer.atOnce { deliver(report) }
        guard !answer.later.isEmpty else { return }
        let provider = self
        Task {
            nameTask(Localized("provider", ja: "プロバイダ"))
            let clock = ExplorerClock()
            let start = clock.now
            for (delay, report) in answer.later {
                try? await clock.sleep(until: start.advanced(by: delay))
                provider.deliver(report)
            }
        }
    }

    /// For the checks: reports to the delegate now, on the calling thread.
    package func deliverNow(_ report: Report) { deliver(report) }

    private func deliver(_ report: Report) {
        guard let delegate else {
            checkpoint(Localized("\(report): no delegate", ja: "\(report): デリゲートがいない"))
            return
        }
        checkpoint(.verbatim(String(describing: report)))
        switch report {
        case let .update(name): delegate.locationProvider(self, didUpdate: Location(name))
        case let .failure(error): delegate.locationProvider(self, didFailWith: error)
        }
    }
}
