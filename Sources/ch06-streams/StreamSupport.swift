import Foundation
import WorkbookCore
import WorkbookExplorer

// What the scenarios share: a publisher-shaped fake (Combine is Apple-only, so every scenario
// runs on Linux too), the bridges between it and async code, and a way to draw a run made in
// the explorer's virtual time.

// MARK: A publisher-shaped fake

/// How a publisher ends, as Combine's `Subscribers.Completion` says it.
enum Completion: Sendable {
    case finished
    case failure(any Error)
}

/// The chapter's errors.
enum StreamError: Error, Equatable {
    case offline
    case badImage
    case connectionLost
}

/// What `firstValue()` throws when the publisher finishes before sending a value.
enum FirstValueError: Error, Equatable { case finishedWithoutValue }

/// A subscription, like Combine's `AnyCancellable`: `cancel()` ends it, once.
final class Subscription: Sendable {
    private let cancelled = Locked(false)
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void = {}) { self.onCancel = onCancel }

    var isCancelled: Bool { cancelled.current }

    func cancel() {
        let first = cancelled.withLock { cancelled in
            defer { cancelled = true }
            return !cancelled
        }
        if first { onCancel() }
    }
}

/// The two callbacks of a subscriber: values, then at most one completion. Nothing reaches them
/// after the completion or after the subscription was cancelled.
final class Subscriber<Output: Sendable>: Sendable {
    private let receiveValue: @Sendable (Output) -> Void
    private let receiveCompletion: @Sendable (Completion) -> Void
    private let done = Locked(false)
    let subscription: Subscription

    init(subscription: Subscription, receiveValue: @escaping @Sendable (Output) -> Void,
         receiveCompletion: @escaping @Sendable (Completion) -> Void) {
        self.subscription = subscription
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    func send(_ value: Output) {
        guard !done.current, !subscription.isCancelled else { return }
        receiveValue(value)
    }

    func complete(_ completion: Completion) {
        let first = done.withLock { done in defer { done = true }; return !done }
        guard first, !subscription.isCancelled else { return }
        receiveCompletion(completion)
    }
}

/// A publisher of our own, shaped like Combine's: `sink` subscribes, and the values and the
/// completion come to its two closures; the returned `Subscription` cancels.
struct FakePublisher<Output: Sendable>: Sendable {
    /// Starts delivering to a new subscriber; what it returns runs when the subscription is cancelled.
    let start: @Sendable (Subscriber<Output>) -> (@Sendable () -> Void)

    @discardableResult
    func sink(receiveCompletion: @escaping @Sendable (Completion) -> Void = { _ in },
              receiveValue: @escaping @Sendable (Output) -> Void) -> Subscription {
        let stop = Locked<(@Sendable () -> Void)?>(nil)
        let subscription = Subscription { stop.current?() }
        let subscriber = Subscriber(subscription: subscription, receiveValue: receiveValue, receiveCompletion: receiveCompletion)
        let onCancel = start(subscriber)
        stop.withLock { $0 = onCancel }
        if subscription.isCancelled { onCancel() }
        return subscription
    }

    /// `Just`: one value, then finished, inside `sink`.
    static func just(_ value: Output) -> FakePublisher {
        FakePublisher { subscriber in
            subscriber.send(value)
            subscriber.complete(.finished)
            return {}
        }
    }

    /// `Empty`: finished, without a value.
    static var empty: FakePublisher {
        FakePublisher { subscriber in
            subscriber.complete(.finished)
            return {}
        }
    }

    /// `Deferred`: makes a new publisher for each subscriber, when it subscribes.
    static func deferred(_ make: @escaping @Sendable () -> FakePublisher) -> FakePublisher {
        FakePublisher { subscriber in
            let inner = make().sink(receiveCompletion: { subscriber.complete($0) }, receiveValue: { subscriber.send($0) })
            return { inner.cancel() }
        }
    }

    /// `map`.
    func map<T: Sendable>(_ transform: @escaping @Sendable (Output) -> T) -> FakePublisher<T> {
        FakePublisher<T> { subscriber in
            let inner = sink(receiveCompletion: { subscriber.complete($0) }, receiveValue: { subscriber.send(transform($0)) })
            return { inner.cancel() }
        }
    }
}

/// Combine's `Future`: the closure runs once, when the future is created — whether or not anyone
/// subscribes — and every subscriber gets its one result.
final class FakeFuture<Output: Sendable>: Sendable {
    typealias Promise = @Sendable (Result<Output, any Error>) -> Void
    private struct State {
        var result: Result<Output, any Error>?
        var waiting: [Subscriber<Output>] = []
    }
    private let state = Locked(State())

    init(_ attempt: (@escaping Promise) -> Void) {
        attempt { [state] result in
            let waiting = state.withLock { state -> [Subscriber<Output>] in
                guard state.result == nil else { return [] }  // a promise is fulfilled once
                state.result = result
                defer { state.waiting = [] }
                return state.waiting
            }
            for subscriber in waiting { Self.deliver(result, to: subscriber) }
        }
    }

    var publisher: FakePublisher<Output> {
        FakePublisher { [state] subscriber in
            let result = state.withLock { state -> Result<Output, any Error>? in
                if state.result == nil { state.waiting.append(subscriber) }
                return state.result
            }
            if let result { Self.deliver(result, to: subscriber) }
            return {}
        }
    }

    private static func deliver(_ result: Result<Output, any Error>, to subscriber: Subscriber<Output>) {
        switch result {
        case let .success(value):
            subscriber.send(value)
            subscriber.complete(.finished)
        case let .failure(error):
            subscriber.complete(.failure(error))
        }
    }
}

/// `PassthroughSubject`: `send` hands a value to the subscribers there are now; `finish`, `fail`.
final class FakeSubject<Output: Sendable>: Sendable {
    private let subscribers = Locked<[Subscriber<Output>]>([])

    var publisher: FakePublisher<Output> {
        FakePublisher { [subscribers] subscriber in
            subscribers.withLock { $0.append(subscriber) }
            return {}
        }
    }

    /// Subscriptions not cancelled and not completed.
    var liveSubscriptions: Int { subscribers.current.filter { !$0.subscription.isCancelled }.count }

    func send(_ value: Output) { for subscriber in subscribers.current { subscriber.send(value) } }

    func finish() { complete(.finished) }

    func fail(_ error: any Error) { complete(.failure(error)) }

    private func complete(_ completion: Completion) {
        let all = subscribers.withLock { all in defer { all = [] }; return all }
        for subscriber in all { subscriber.complete(completion) }
    }
}

// MARK: Bridges

extension FakePublisher {
    /// The naive bridge, as the source talk writes it: a continuation, the first value, a flag for
    /// "finished without a value". It never looks at the task's cancellation: a cancelled caller
    /// waits until the publisher answers, and the subscription stays live until then.
    func naiveFirstValue() async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let resumed = Locked(false)
            let subscription = Locked<Subscription?>(nil)
            let made = sink(receiveCompletion: { completion in
                guard !resumed.withLock({ done in defer { done = true }; return done }) else { return }
                switch completion {
                case .finished: continuation.resume(throwing: FirstValueError.finishedWithoutValue)
                case let .failure(error): continuation.resume(throwing: error)
                }
            }, receiveValue: { value in
                guard !resumed.withLock({ done in defer { done = true }; return done }) else { return }
                subscription.current?.cancel()
                continuation.resume(returning: value)
            })
            subscription.withLock { $0 = made }
        }
    }

    /// The careful bridge (chapter 05, §8, builds it step by step): the first value, the failure,
    /// `finishedWithoutValue` — or `CancellationError` at once when the caller's task is
    /// cancelled, and the subscription cancelled with it. Every path goes through one slot.
    func firstValue() async throws -> Output {
        let slot = FirstValueSlot<Output>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard slot.begin(continuation) else { return }
                let subscription = sink(receiveCompletion: { completion in
                    switch completion {
                    case .finished: slot.finish(.failure(FirstValueError.finishedWithoutValue))
                    case let .failure(error): slot.finish(.failure(error))
                    }
                }, receiveValue: { slot.finish(.success($0)) })
                slot.keep(subscription)
            }
        } onCancel: {
            slot.finish(.failure(CancellationError()))
        }
    }

    /// The publisher's values as an `AsyncThrowingStream`, like Combine's `values` on Apple
    /// platforms: the loop's end or its task's cancellation cancels the subscription.
    var values: AsyncThrowingStream<Output, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Output.self)
        let subscription = sink(receiveCompletion: { completion in
            switch completion {
            case .finished: continuation.finish()
            case let .failure(error): continuation.finish(throwing: error)
            }
        }, receiveValue: { continuation.yield($0) })
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// The other way: an `async` function as a publisher, for the callers not converted yet. Each
    /// subscriber starts one call (like `Deferred { Future { … } }`); cancelling cancels it.
    static func bridging(_ operation: @escaping @Sendable () async throws -> Output) -> FakePublisher {
        FakePublisher { subscriber in
            let task = Task {
                do {
                    subscriber.send(try await operation())
                    subscriber.complete(.finished)
                } catch {
                    subscriber.complete(.failure(error))
                }
            }
            return { task.cancel() }
        }
    }
}

/// One owner of the continuation: the first of value, completion and cancel resumes it and
/// cancels the subscription; the others find the slot done.
final class FirstValueSlot<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var subscription: Subscription?
        var isDone = false
    }
    private let state = Locked(State())

    /// False if the task was cancelled before this (the continuation is resumed then).
    func begin(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let done = state.withLock { state in
            if !state.isDone { state.continuation = continuation }
            return state.isDone
        }
        if done { continuation.resume(throwing: CancellationError()) }
        return !done
    }

    /// Keeps the subscription, or cancels it at once if the answer came inside `sink`.
    func keep(_ subscription: Subscription) {
        let done = state.withLock { state in
            if !state.isDone { state.subscription = subscription }
            return state.isDone
        }
        if done { subscription.cancel() }
    }

    func finish(_ result: Result<Value, any Error>) {
        let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Subscription?)? in
            guard !state.isDone else { return nil }
            state.isDone = true
            defer { state.continuation = nil; state.subscription = nil }
            return (state.continuation, state.subscription)
        }
        guard let (continuation, subscription) = taken else { return }
        subscription?.cancel()
        continuation?.resume(with: result)
    }
}

// MARK: Drawing and naming

/// Whole milliseconds from `start` to `end` (`MonotonicClock` readings): `12`.
func milliseconds(since start: UInt64, to end: UInt64 = MonotonicClock.now()) -> Int {
    Int((Double(end &- start) / 1_000_000).rounded())
}

/// Whole milliseconds of a virtual `Duration`.
func milliseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
}

/// The name of an error as the chapter's code spells it: `.offline`, `CancellationError`.
func errorName(_ error: any Error) -> String {
    switch error {
    case let error as StreamError: ".\(error)"
    case let error as FirstValueError: ".\(error)"
    case is CancellationError: "CancellationError"
    default: String(describing: error)
    }
}


/// A log kept in the explorer's virtual time (`ExplorerClock`): what a scenario run under the
/// explorer did, and when, to draw afterwards. Outside the explorer the clock is real.
final class VirtualLog: Sendable {
    private let clock = ExplorerClock()
    private let entries = Locked<[DrawnEvent]>([])

    /// Milliseconds on the clock.
    var now: Int { milliseconds(clock.now.offset) }

    func point(_ label: Localized, lane: Localized) { add(label, lane, .point) }

    /// A span from `start` (a reading of `nanoseconds`) to now, labelled once its end is known.
    func span(_ label: Localized, lane: Localized, from start: UInt64) {
        let end = nanoseconds
        entries.withLock {
            $0.append(DrawnEvent(time: start, lane: lane, label: label, kind: .begin))
            $0.append(DrawnEvent(time: end, lane: lane, label: label, kind: .end))
        }
    }

    /// The clock in nanoseconds, for `span(_:lane:from:)`.
    var nanoseconds: UInt64 {
        let offset = clock.now.offset.components
        return UInt64(max(0, offset.seconds)) * 1_000_000_000 + UInt64(max(0, offset.attoseconds)) / 1_000_000_000
    }
    func begin(_ label: Localized, lane: Localized) { add(label, lane, .begin) }
    func end(_ label: Localized, lane: Localized) { add(label, lane, .end) }

    var events: [DrawnEvent] { entries.current }

    /// The labels (English) on `lane`, in order.
    func labels(on lane: Localized) -> [String] { events.filter { $0.lane == lane && $0.kind != .end }.map(\.label.en) }

    private func add(_ label: Localized, _ lane: Localized, _ kind: Trace.Kind) {
        let time = nanoseconds
        entries.withLock { $0.append(DrawnEvent(time: time, lane: lane, label: label, kind: kind)) }
    }
}

/// Runs `body` once under the explorer, the default scheduler choosing, on a thread of its own:
/// a deterministic run in virtual time. Returns the body's outcome (or how the run ended).
func inVirtualTime(_ body: @escaping Explorer.Body) async -> ScheduleReport {
    await onDedicatedThread {
        Explorer.play(budget: .init(maxSchedules: 1, maxSeconds: 10, foreignWaitSeconds: 0), choose: { $0.defaultChoice }, body)
    }
}

extension ScenarioContext {
    /// The scenario's lane names, in both languages.
    func lane(_ en: String, _ ja: String) -> Localized { Localized(en, ja: ja) }
}

/// `[1, 3, 5]` as the chapter prints an array.
func listed(_ values: [Int]) -> String { "[" + values.map(String.init).joined(separator: ", ") + "]" }
