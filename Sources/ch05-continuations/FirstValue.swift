import Foundation
import WorkbookCore

/// How a fake source ends: finished, or failed with an error.
enum SourceCompletion: Sendable, Equatable {
    case finished
    case failure(SourceError)
}

enum SourceError: Error, Equatable { case offline }

/// What `firstValue()` throws when the source completes before sending anything.
enum FirstValueError: Error, Equatable { case finishedWithoutValue }

/// A cancellable, like Combine's `AnyCancellable`: `cancel()` ends the subscription.
final class SourceSubscription: Sendable {
    private let cancelled = Locked(false)
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    var isCancelled: Bool { cancelled.current }

    func cancel() {
        let first = cancelled.withLock { cancelled -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        if first { onCancel() }
    }
}

/// A publisher-like callback source: `subscribe(onValue:onCompletion:)` returns a cancellable.
/// `send`, `finish` and `fail` deliver on the caller's thread, at once, to each subscription.
///
/// Two ways a real source can surprise a bridge, both switchable:
/// - `current`: a replaying source (like a `CurrentValueSubject`) sends its current value
///   inside `subscribe`, before the cancellable is returned;
/// - `inFlight`: a cancel that takes effect late, as in callback APIs that deliver what was
///   already queued: a cancelled subscription still gets that many more events.
final class FakeValueSource: Sendable {
    typealias Log = @Sendable (_ label: Localized, _ lane: Localized, _ kind: Trace.Kind) -> Void
    static let sourceLane = Localized("source", ja: "ソース")
    static let subscriptionLane = Localized("subscription", ja: "購読")
    /// A subscription's span, from `subscribe` to `cancel()`.
    static let live = Localized("live", ja: "有効")

    private final class Subscriber: Sendable {
        let onValue: @Sendable (Int) -> Void
        let onCompletion: @Sendable (SourceCompletion) -> Void
        let subscription: SourceSubscription
        let lateEvents: Locked<Int>

        init(onValue: @escaping @Sendable (Int) -> Void, onCompletion: @escaping @Sendable (SourceCompletion) -> Void,
             subscription: SourceSubscription, lateEvents: Int) {
            self.onValue = onValue
            self.onCompletion = onCompletion
            self.subscription = subscription
            self.lateEvents = Locked(lateEvents)
        }

        /// Whether an event still reaches this subscriber: always while it is live, and for its
        /// `lateEvents` after it was cancelled.
        func takesEvent() -> (takes: Bool, late: Bool) {
            guard subscription.isCancelled else { return (true, false) }
            return lateEvents.withLock { late in
                guard late > 0 else { return (false, false) }
                late -= 1
                return (true, true)
            }
        }
    }

    private let current: Int?
    private let inFlight: Int
    private let log: Log
    private let subscribers = Locked<[Subscriber]>([])
    private let late = Locked(0)

    init(current: Int? = nil, inFlight: Int = 0, log: @escaping Log = { _, _, _ in }) {
        self.current = current
        self.inFlight = inFlight
        self.log = log
    }

    /// Events delivered to cancelled subscriptions (the late ones).
    var lateDeliveries: Int { late.current }
    /// Subscriptions that are still live (never cancelled).
    var liveSubscriptions: Int { subscribers.withLock { $0.filter { !$0.subscription.isCancelled }.count } }

    func subscribe(onValue: @escaping @Sendable (Int) -> Void,
                   onCompletion: @escaping @Sendable (SourceCompletion) -> Void) -> SourceSubscription {
        let log = self.log
        let subscription = SourceSubscription { log(Self.live, Self.subscriptionLane, .end) }
        log(Self.live, Self.subscriptionLane, .begin)
        let subscriber = Subscriber(onValue: onValue, onCompletion: onCompletion, subscription: subscription, lateEvents: inFlight)
        subscribers.withLock { $0.append(subscriber) }
        if let current {
            log(.verbatim("subscribe() → onValue(\(current))"), Self.sourceLane, .point)
            onValue(current)
        }
        return subscription
    }

    func send(_ value: Int) {
        log(.verbatim("send(\(value))"), Self.sourceLane, .point)
        deliver { $0.onValue(value) }
    }

    func finish() {
        log(.verbatim("finish()"), Self.sourceLane, .point)
        deliver { $0.onCompletion(.finished) }
        subscribers.withLock { $0.removeAll() }
    }

    func fail(_ error: SourceError) {
        log(.verbatim("fail(.\(error))"), Self.sourceLane, .point)
        deliver { $0.onCompletion(.failure(error)) }
        subscribers.withLock { $0.removeAll() }
    }

    private func deliver(_ event: (Subscriber) -> Void) {
        for subscriber in subscribers.current {
            let (takes, isLate) = subscriber.takesEvent()
            if isLate { late.withLock { $0 += 1 } }
            if takes { event(subscriber) }
        }
    }
}

/// What the bridge shares between the source's two callbacks, the cancellation handler and the
/// code that subscribes. The first of them to finish wins; the others find the slot done.
final class FirstValueSlot: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Int, any Error>?
        var subscription: SourceSubscription?
        var isDone = false
        var ignored = 0
    }

    private let state = Locked(State())
    private let log: FakeValueSource.Log
    /// Fired once the subscription is kept (for the scenario, so that it sends only then).
    let attached = OneShotSignal()

    init(log: @escaping FakeValueSource.Log) { self.log = log }

    /// Events that came after the first (values, the completion, a late cancel).
    var ignored: Int { state.withLock { $0.ignored } }

    /// Keeps the continuation; false if cancellation came first (then it is resumed already).
    func begin(_ continuation: CheckedContinuation<Int, any Error>) -> Bool {
        let done = state.withLock { state -> Bool in
            if !state.isDone { state.continuation = continuation }
            return state.isDone
        }
        if done { continuation.resume(throwing: CancellationError()) }
        return !done
    }

    /// Keeps the subscription; cancels it at once if the first value came inside `subscribe`.
    func attach(_ subscription: SourceSubscription) {
        let done = state.withLock { state -> Bool in
            if !state.isDone { state.subscription = subscription }
            return state.isDone
        }
        if done {
            log(Localized("attach: answered already → cancel()", ja: "attach(subscription): 答えは出ている → cancel()"), Localized("bridge", ja: "ブリッジ"), .point)
            subscription.cancel()
        }
        attached.fire()
    }

    /// The first call resumes and cancels the subscription; every later one is ignored.
    func finish(_ result: Result<Int, any Error>, _ what: String) {
        let taken = state.withLock { state -> (CheckedContinuation<Int, any Error>?, SourceSubscription?)? in
            guard !state.isDone else {
                state.ignored += 1
                return nil
            }
            state.isDone = true
            defer { state.continuation = nil; state.subscription = nil }
            return (state.continuation, state.subscription)
        }
        guard let (continuation, subscription) = taken else {
            log(Localized("\(what): ignored", ja: "\(what): 無視"), Localized("bridge", ja: "ブリッジ"), .point)
            return
        }
        log(Localized("\(what) → resume", ja: "\(what) → 再開"), Localized("bridge", ja: "ブリッジ"), .point)
        subscription?.cancel()
        continuation?.resume(with: result)
    }
}

extension FakeValueSource {
    /// The first value, as `async throws`: Combine's `first()`, bridged. Resumes once, with the
    /// first value, the failure, `FirstValueError.finishedWithoutValue` or `CancellationError`,
    /// and cancels the subscription as soon as the answer is known.
    func firstValue(slot: FirstValueSlot? = nil) async throws -> Int {
        let first = slot ?? FirstValueSlot(log: log)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard first.begin(continuation) else { return }          // cancelled before we got here
                let subscription = subscribe(
                    onValue: { first.finish(.success($0), "onValue(\($0))") },
                    onCompletion: { completion in
                        switch completion {
                        case .finished: first.finish(.failure(FirstValueError.finishedWithoutValue), "onCompletion(.finished)")
                        case let .failure(error): first.finish(.failure(error), "onCompletion(.failure(.\(error)))")
                        }
                    })
                first.attach(subscription)                                // cancels it if the value came already
            }
        } onCancel: {
            first.finish(.failure(CancellationError()), "onCancel")
        }
    }

    /// The hasty bridge: cancels the subscription from `onValue` through a variable that
    /// `subscribe` has not filled yet when a replaying source sends its value inside it.
    func firstValueHasty() async throws -> Int {
        let subscription = Locked<SourceSubscription?>(nil)
        let resumed = Locked(false)
        let log = self.log
        return try await withCheckedThrowingContinuation { continuation in
            let made = subscribe(
                onValue: { value in
                    guard !resumed.withLock({ done in defer { done = true }; return done }) else {
                        return log(Localized("onValue(\(value)): ignored", ja: "onValue(\(value)): 無視"), Localized("bridge", ja: "ブリッジ"), .point)
                    }
                    log(Localized("onValue(\(value)) → subscription?.cancel(), resume", ja: "onValue(\(value)) → `subscription?.cancel()`、再開"), Localized("bridge", ja: "ブリッジ"), .point)
                    subscription.current?.cancel()                        // nil if called inside subscribe()
                    continuation.resume(returning: value)
                },
                onCompletion: { _ in
                    guard !resumed.withLock({ done in defer { done = true }; return done }) else { return }
                    continuation.resume(throwing: FirstValueError.finishedWithoutValue)
                })
            subscription.withLock { $0 = made }
        }
    }
}

extension Chapter05 {
    /// A publisher-like source's first value as `async throws`, the bridge Combine users build
    /// with `first()` and a continuation.
    ///
    /// The hasty way resumes from `onValue` and trusts the source to call nothing else; it
    /// resumes twice if a second value or the completion arrives, waits for ever if the source
    /// finishes empty and it ignores the completion, and misses the cancel when the value comes
    /// inside `subscribe`. The careful way funnels every path through one slot that resumes once.
    static let firstValueBridge = Scenario(
        slug: "first-value",
        title: Localized("A publisher's first value as async throws", ja: "パブリッシャの最初の値を `async throws` で"),
        narration: Localized(
            """
            A fake source shaped like a publisher: `subscribe(onValue:onCompletion:)` returns a cancellable, as Combine's `sink` does (Combine itself is on Apple platforms only). \
            `firstValue()` turns it into `async throws -> Int`: it resumes with the first value and cancels the subscription, ignores every later value and the completion, \
            throws `FirstValueError.finishedWithoutValue` when the source completes without a value, rethrows a failure, and throws `CancellationError` when the waiting task is cancelled. \
            Every path goes through one slot, so the continuation is resumed exactly once. The source delivers on the sender's thread, at once; \
            after a cancel it still delivers `inFlight` more events, as a source does whose cancel takes effect late. \
            1) The source sends 1, 2, 3, then finishes. 2) It finishes without a value. 3) It fails with `.offline`. \
            4) A replaying source (like `CurrentValueSubject`) sends its current value inside `subscribe`, before the cancellable is returned: \
            the careful bridge cancels right after `subscribe` returns; a hasty bridge that cancels from `onValue` finds no cancellable and leaves the subscription live. \
            5) The waiting task is cancelled before any value.
            """,
            ja: """
            パブリッシャの形をしたフェイクのソースです。`subscribe(onValue:onCompletion:)` は、`Combine` の `sink` と同じくキャンセル用のハンドル（`AnyCancellable` 相当）を返します（`Combine` 自体は Apple のプラットフォームにしかありません）。\
            `firstValue()` はそれを `async throws -> Int` にします。最初の値で再開して購読をキャンセルし、その後の値と完了はすべて無視し、\
            値なしで完了したら `FirstValueError.finishedWithoutValue` をスローし、失敗ならそのエラーを再スローし、待っているタスクがキャンセルされたら `CancellationError` をスローします。\
            どの経路も 1 つのスロットを通るので、継続の再開はちょうど 1 回です。ソースは送る側のスレッドでただちに届けます。\
            キャンセルの後も、キャンセルが遅れて効くソースのように `inFlight` 個のイベントを届けます。\
            1) ソースが 1、2、3 を送ってから完了する。2) 値を送らずに完了する。3) `.offline` で失敗する。\
            4) 現在の値を持つソース（`CurrentValueSubject` のようなもの）は、キャンセル用のハンドルを返す前に、`subscribe` の中で現在の値を送ります。\
            注意深いブリッジは `subscribe` が戻った直後にキャンセルします。`onValue` からキャンセルする考慮の足りないブリッジはキャンセル用のハンドルを見つけられず、購読は生きたまま残ります。\
            5) 値が来る前に、待っているタスクをキャンセルする。
            """),
        knobs: [
            .init("inFlight", default: 3, range: 0...5, help: Localized("events a cancelled subscription still receives", ja: "キャンセルされた購読にまだ届くイベントの数")),
        ],
        prediction: .init(
            question: Localized(
                "Part 2: the source finishes without sending a value. What does `firstValue()` do? A) returns nil, B) throws, C) waits for ever",
                ja: "パート 2: ソースが値を送らずに完了します。`firstValue()` はどうなる？ A) nil を返す、B) エラーをスローする、C) 永遠に待つ"),
            explanation: Localized(
                "B, because this bridge resumes from the completion too: it throws `finishedWithoutValue`. The return type is `Int`, not `Int?`, so there is no nil to return; a bridge that only resumes from `onValue` would wait for ever (C), and a checked continuation would print the leak message once the source let go of it.",
                ja: "B です。このブリッジは完了でも再開するので、`finishedWithoutValue` をスローします。戻り値の型は `Int?` ではなく `Int` なので、返せる nil はありません。`onValue` でしか再開しないブリッジなら永遠に待ち（C）、`CheckedContinuation` ならソースが手放した時点でリークのメッセージが出ます。"),
            observe: { $0.noted("empty: answer") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        let log: FakeValueSource.Log = { label, lane, kind in
            switch kind {
            case .begin: context.trace.begin(label, lane: lane)
            case .end: context.trace.end(label, lane: lane)
            default: context.trace.record(label, lane: lane)
            }
        }
        let inFlight = context.knob("inFlight")
        try await firstOfThree(context, log: log, inFlight: inFlight)
        try await finishedEmpty(context, log: log, inFlight: inFlight)
        try await failed(context, log: log, inFlight: inFlight)
        try await replaying(context, log: log, inFlight: inFlight)
        try await cancelledWhileWaiting(context, log: log, inFlight: inFlight)
    }

    private static let firstValueLane = Localized("task", ja: "タスク")
    private static let notSubscribed = Localized("the bridge did not subscribe", ja: "ブリッジが購読しませんでした")

    /// How `firstValue()` ended, as the chapter's code spells it: `1`, `.finishedWithoutValue`.
    private static func answer(_ result: Result<Int, any Error>) -> String {
        switch result {
        case let .success(value): "\(value)"
        case let .failure(error as FirstValueError): ".\(error)"
        case let .failure(error as SourceError): ".\(error)"
        case let .failure(error): error is CancellationError ? "CancellationError" : "\(error)"
        }
    }

    private static func result(_ body: () async throws -> Int) async -> Result<Int, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Starts `firstValue()` in a task, waits until it has subscribed, runs `drive`, and returns
    /// how it ended and the slot.
    private static func awaitFirstValue(_ context: ScenarioContext, source: FakeValueSource, log: @escaping FakeValueSource.Log,
                                        drive: (Task<Int, any Error>) async -> Void) async throws -> (Result<Int, any Error>, FirstValueSlot) {
        let slot = FirstValueSlot(log: log)
        let task = Task {
            context.trace.begin(.verbatim("await firstValue()"), lane: firstValueLane)
            defer { context.trace.end(.verbatim("await firstValue()"), lane: firstValueLane) }
            return try await source.firstValue(slot: slot)
        }
        try await slot.attached.wait(notSubscribed)
        await drive(task)
        let result = await task.result
        context.trace.record(.verbatim("→ \(answer(result))"), lane: firstValueLane)
        return (result, slot)
    }

    // MARK: 1) 1, 2, 3, finished

    private static func firstOfThree(_ context: ScenarioContext, log: @escaping FakeValueSource.Log, inFlight: Int) async throws {
        context.say(Localized("1) The source sends 1, 2, 3, then finishes:", ja: "1) ソースが 1、2、3 を送ってから完了:"))
        let source = FakeValueSource(inFlight: inFlight, log: log)
        let (result, slot) = try await awaitFirstValue(context, source: source, log: log) { _ in
            for value in 1...3 { source.send(value) }
            source.finish()
        }
        context.note("three: answer", answer(result))
        context.note("three: ignored", String(slot.ignored))
        context.note("three: late deliveries", String(source.lateDeliveries))
        context.note("three: live subscriptions", String(source.liveSubscriptions))
        context.say(Localized(
            "  firstValue() → \(answer(result)). The subscription was cancelled in the first onValue; \(source.lateDeliveries) event(s) still arrived after the cancel, and the bridge ignored \(slot.ignored).",
            ja: "  firstValue() → \(answer(result))。購読は最初の onValue の中でキャンセルされた。キャンセルの後にもイベントが \(source.lateDeliveries) 個届き、ブリッジは \(slot.ignored) 個を無視した。"))
    }

    // MARK: 2) Finished without a value

    private static func finishedEmpty(_ context: ScenarioContext, log: @escaping FakeValueSource.Log, inFlight: Int) async throws {
        context.say(Localized("2) The source finishes without a value:", ja: "2) ソースが値を送らずに完了:"))
        let source = FakeValueSource(inFlight: inFlight, log: log)
        let (result, _) = try await awaitFirstValue(context, source: source, log: log) { _ in source.finish() }
        let threw = if case .failure = result { true } else { false }
        context.note("empty: result", answer(result))
        context.note("empty: answer", threw ? "B" : "A")
        context.say(Localized("  firstValue() threw \(answer(result)).", ja: "  firstValue() は \(answer(result)) をスローした。"))
    }

    // MARK: 3) Failed

    private static func failed(_ context: ScenarioContext, log: @escaping FakeValueSource.Log, inFlight: Int) async throws {
        context.say(Localized("3) The source fails:", ja: "3) ソースが失敗:"))
        let source = FakeValueSource(inFlight: inFlight, log: log)
        let (result, _) = try await awaitFirstValue(context, source: source, log: log) { _ in source.fail(.offline) }
        context.note("failed: result", answer(result))
        context.say(Localized("  firstValue() threw \(answer(result)).", ja: "  firstValue() は \(answer(result)) をスローした。"))
    }

    // MARK: 4) A replaying source

    private static func replaying(_ context: ScenarioContext, log: @escaping FakeValueSource.Log, inFlight: Int) async throws {
        context.say(Localized("4) A replaying source sends its current value (7) inside subscribe(); later it sends 8 and 9:",
                              ja: "4) 現在の値を持つソースが subscribe() の中で現在の値（7）を送り、後で 8 と 9 を送る:"))
        let careful = FakeValueSource(current: 7, inFlight: inFlight, log: log)
        let carefulAnswer = answer(await result { try await careful.firstValue() })
        for value in [8, 9] { careful.send(value) }
        let hasty = FakeValueSource(current: 7, inFlight: inFlight, log: log)
        let hastyAnswer = answer(await result { try await hasty.firstValueHasty() })
        for value in [8, 9] { hasty.send(value) }
        context.note("replay: careful answer", carefulAnswer)
        context.note("replay: careful live subscriptions", String(careful.liveSubscriptions))
        context.note("replay: hasty answer", hastyAnswer)
        context.note("replay: hasty live subscriptions", String(hasty.liveSubscriptions))
        context.say(Localized(
            """
              careful: firstValue() → \(carefulAnswer); subscriptions still live: \(careful.liveSubscriptions).
              hasty (cancels from onValue): firstValue() → \(hastyAnswer); subscriptions still live: \(hasty.liveSubscriptions) — it goes on receiving 8 and 9 for nobody.
            """,
            ja: """
              注意深いブリッジ: firstValue() → \(carefulAnswer)。まだ生きている購読: \(careful.liveSubscriptions) 個。
              考慮の足りないブリッジ（onValue からキャンセル）: firstValue() → \(hastyAnswer)。まだ生きている購読: \(hasty.liveSubscriptions) 個。誰も使わない 8 と 9 を受け取り続ける。
            """))
    }

    // MARK: 5) Cancelled while waiting

    private static func cancelledWhileWaiting(_ context: ScenarioContext, log: @escaping FakeValueSource.Log, inFlight: Int) async throws {
        context.say(Localized("5) The waiting task is cancelled before any value; then the source sends 1:",
                              ja: "5) 値が来る前に待っているタスクをキャンセルし、その後ソースが 1 を送る:"))
        let source = FakeValueSource(inFlight: inFlight, log: log)
        let (result, slot) = try await awaitFirstValue(context, source: source, log: log) { task in
            context.trace.record(.verbatim("task.cancel()"), lane: Localized("caller", ja: "呼び出し元"))
            task.cancel()
            source.send(1)
        }
        context.note("cancelled: result", answer(result))
        context.note("cancelled: live subscriptions", String(source.liveSubscriptions))
        context.note("cancelled: ignored", String(slot.ignored))
        context.say(Localized(
            "  firstValue() threw \(answer(result)); subscriptions still live: \(source.liveSubscriptions); events the bridge ignored afterwards: \(slot.ignored).",
            ja: "  firstValue() は \(answer(result)) をスローした。まだ生きている購読: \(source.liveSubscriptions) 個。その後ブリッジが無視したイベント: \(slot.ignored) 個。"))
    }
}
