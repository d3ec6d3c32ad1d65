import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 02-operations/CooperativeCancellation. The sink holds the worker inside
/// `process(10)` while the check cancels, so "cancelled in the middle of the work" is a fact.
///
/// 0. No data race: workers and publishers made by one answer run on two threads in turns
///    (`runInTurns`, three rounds, started by hand), so state they share in a plain `var` (a
///    progress count, a result store) is an unordered pair ThreadSanitizer reports, every run. The
///    sink's hold is quiet too, so in steps 2 and 3 the only ordering between `cancel()` and
///    the worker is Foundation's own lock behind `isCancelled`: a home-made `var stopped` set
///    in `cancel()` is reported as well.
/// 1. Not cancelled: two workers of one answer side by side (each held at item 10 until the
///    other is there too), each processes every item in order, and each publisher publishes once.
/// 2. `cancelAllOperations()` while item 10 is processed: no later item starts; nothing is
///    published.
/// 3. The publisher depends on three workers; only the middle one is cancelled, while its item
///    10 is processed: it stops, and the publisher does not publish (whichever dependency it
///    looked at first or last).
/// 4. The worker cancelled before it starts: no item is processed, nothing is published.
/// 5. A cancel that lands after `start()` has made its own check and before `main()` looks:
///    the check cancels each operation and then calls its `main()` itself, the one way to make
///    that moment happen every run. No item is processed, nothing is published.
public enum CooperativeCancellationCheck {
    public static let completesWhenNotCancelled = Property(
        id: "incomplete",
        name: Localized("without cancel, all the work and one publish", ja: "キャンセルしなければ、すべての処理と 1 回の publish"),
        rule: Localized("Not cancelled, the worker processes every item in order and the publisher publishes once.",
                        ja: "キャンセルされなければ、ワーカーはすべての要素を順に処理し、パブリッシャーは 1 回 publish する。"))
    public static let stopsWhenCancelled = Property(
        id: "work-after-cancel",
        name: Localized("no side effect after cancel", ja: "キャンセル後に副作用がない"),
        rule: Localized("After cancel returns, no further item is processed and nothing is published.",
                        ja: "cancel が戻った後、それ以上の要素は処理されず、何も publish されない。"))
    public static let dependantsSkip = Property(
        id: "dependant-ran",
        name: Localized("dependants of cancelled work skip their work", ja: "キャンセルされた処理に依存するオペレーションは処理をしない"),
        rule: Localized("An operation whose dependency was cancelled does not do its work.",
                        ja: "依存先がキャンセルされたオペレーションは、自分の処理をしない。"))
    public static let properties = [completesWhenNotCancelled, stopsWhenCancelled, dependantsSkip, Property.finishes]

    static let items = Array(0..<100)

    public static func run(_ make: @escaping @Sendable () -> any CooperativeCancellationProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = probeRaces(make, options: options)
            ?? checkUncancelled(make(), options: options)
            ?? checkCancelAll(make(), options: options)
            ?? checkOneOfThreeCancelled(make(), options: options)
            ?? checkCancelledBeforeStart(make(), options: options)
            ?? checkCancelledAsMainBegins(make(), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    /// Step 0: workers and publishers of one answer, started by hand on two threads in turns.
    static func probeRaces(_ make: @escaping @Sendable () -> any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let probeItems = Array(0..<4)
        // Warm up first (on a thread of its own, under the deadline): the first calls fill the
        // Swift runtime's caches under its own locks, which would order the probe threads' calls
        // for TSan and hide the race.
        let warmUp: @Sendable () -> Void = {
            let subject = make(), sink = WorkSink()
            let worker = subject.makeWorker(items: probeItems, sink: sink)
            let publisher = subject.makePublisher(sink: sink)
            publisher.addDependency(worker)
            worker.start()
            publisher.start()
            withExtendedLifetime((worker, publisher)) {}
        }
        guard returnsWithin(seconds: options.deadlockSeconds, warmUp) else {
            return .deadlock(trace: Trace(), options: options, doing: Localized(
                "a worker and a publisher started by hand", ja: "手で開始したワーカーとパブリッシャー"))
        }
        let subject = make()
        let trace = Trace()
        let made = QuietState<[Operation]>([])
        // Three rounds, the threads taking turns: each step makes a worker and its publisher,
        // starts both, and so meets whatever the other thread's step left in shared state.
        typealias Step = (thread: Int, label: String, body: @Sendable () -> Void)
        let steps = (0..<6).map { index -> Step in
            let sink = WorkSink(trace: trace)
            let body: @Sendable () -> Void = {
                let worker = subject.makeWorker(items: probeItems, sink: sink)
                let publisher = subject.makePublisher(sink: sink)
                publisher.addDependency(worker)
                made.update { $0 += [worker, publisher] }
                worker.start()
                publisher.start()
            }
            return (index % 2, "worker.start(), publisher.start()", body)
        }
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: steps.map { step in
            (step.thread, { trace.span(step.label, lane: "T\(step.thread)") { step.body() } })
        })
        withExtendedLifetime(made) {}
        guard let stuck else { return nil }
        let step = steps[stuck]
        return .deadlock(trace: trace, options: options, doing: Localized(
            "\(step.label) (thread \(step.thread))", ja: "\(step.label)（スレッド \(step.thread)）"))
    }

    /// A worker and a publisher that depends on it, on a fresh queue. Callers keep the
    /// operations alive until the queue has drained: on Linux, Foundation's OperationQueue
    /// crashed ("Bad pointer dereference" in Operation.observeValue) when the queue held the
    /// only references to operations that `cancelAllOperations()` had just cancelled.
    static func start(_ subject: any CooperativeCancellationProtocol, sink: WorkSink, cancelWorkerFirst: Bool = false) -> (OperationQueue, Operation, Operation) {
        let worker = subject.makeWorker(items: items, sink: sink)
        let publisher = subject.makePublisher(sink: sink)
        publisher.addDependency(worker)
        if cancelWorkerFirst { worker.cancel() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.addOperations([worker, publisher], waitUntilFinished: false)
        return (queue, worker, publisher)
    }

    /// The lane of what the check itself does.
    static let checkLane = Localized("check", ja: "チェック")

    static func drain(_ queue: OperationQueue, _ sink: WorkSink, options: CheckOptions, doing: Localized) -> CheckFailure? {
        let drained: Bool? = withDeadline(seconds: options.deadlockSeconds) {
            queue.waitUntilAllOperationsAreFinished()
            return true
        }
        return drained == nil ? .deadlock(trace: sink.trace, options: options, doing: doing) : nil
    }

    /// Step 1: two workers of one answer, each with its publisher, on one queue that runs two at
    /// a time. Each worker is held at item 10 until the other has reached it too, so the two
    /// really work side by side (state they share without a lock races there as well).
    static func checkUncancelled(_ subject: any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let sinks = [WorkSink(trace: trace, holdItem: 10), WorkSink(trace: trace, holdItem: 10)]
        let pairs = sinks.map { sink in
            let worker = subject.makeWorker(items: items, sink: sink)
            let publisher = subject.makePublisher(sink: sink)
            publisher.addDependency(worker)
            return (worker, publisher)
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.addOperations(pairs.map(\.0) + pairs.map(\.1), waitUntilFinished: false)
        defer { withExtendedLifetime(pairs) {} }
        // Each worker either reaches item 10 or ends without it (then completeness is judged below).
        let deadline = Date(timeIntervalSinceNow: options.deadlockSeconds)
        for (sink, (worker, _)) in zip(sinks, pairs) {
            while !sink.waitUntilHeld(seconds: 0.01), !worker.isFinished, Date() < deadline {}
        }
        for sink in sinks { sink.releaseHeldItem() }
        let drained = returnsWithin(seconds: options.deadlockSeconds) { queue.waitUntilAllOperationsAreFinished() }
        guard drained else { return .deadlock(trace: trace, options: options, doing: Localized(
            "two workers and their publishers, not cancelled", ja: "キャンセルしない 2 つのワーカーとそのパブリッシャー")) }
        for (index, sink) in sinks.enumerated() where sink.processedItems != items || sink.publishCount != 1 {
            let processed = sink.processedItems
            let inOrder = processed == items.prefix(processed.count).map { $0 }
            return CheckFailure(completesWhenNotCancelled, observed: Localized(
                "Not cancelled, worker \(index + 1) of 2 processed \(processed.count) of \(items.count) items\(inOrder ? "" : " (out of order)") and its publisher published \(sink.publishCount) time(s); expected all \(items.count), in order, and 1.",
                ja: "キャンセルされていないのに、2 つのうち \(index + 1) 番目のワーカーは \(items.count) 要素中 \(processed.count) 要素を処理し\(inOrder ? "" : "（順序が崩れて）")、そのパブリッシャーは \(sink.publishCount) 回 publish しました。期待値は全 \(items.count) 要素を順に、そして 1 回です。"),
                events: traceTail(trace.events))
        }
        return nil
    }

    /// Runs a worker and its publisher, cancels with `cancel` while item 10 is being processed,
    /// and returns the sink once the queue has drained (or the failure if it did not).
    static func cancelWhileHeld(_ subject: any CooperativeCancellationProtocol, as label: String, options: CheckOptions,
                                _ cancel: (OperationQueue, Operation) -> Void) -> Result<WorkSink, CheckFailure> {
        let sink = WorkSink(holdItem: 10)
        let (queue, worker, publisher) = start(subject, sink: sink)
        defer { withExtendedLifetime((worker, publisher)) {} }
        guard sink.waitUntilHeld(seconds: options.deadlockSeconds) else {
            return .failure(.deadlock(trace: sink.trace, options: options, doing: Localized(
                "the worker reaching item 10", ja: "要素 10 までのワーカーの処理")))
        }
        sink.trace.record(.verbatim(label), lane: checkLane)
        cancel(queue, worker)
        sink.releaseHeldItem()
        if let failure = drain(queue, sink, options: options, doing: Localized(
            "the queue after \(label)", ja: "\(label) の後のキュー")) { return .failure(failure) }
        return .success(sink)
    }

    static func checkCancelAll(_ subject: any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let sink: WorkSink
        switch cancelWhileHeld(subject, as: "cancelAllOperations()", options: options, { queue, _ in queue.cancelAllOperations() }) {
        case let .failure(failure): return failure
        case let .success(drained): sink = drained
        }
        let after = sink.processedItems.filter { $0 > 10 }
        guard after.isEmpty, sink.publishCount == 0 else {
            return CheckFailure(stopsWhenCancelled, observed: Localized(
                "cancelAllOperations() was called while item 10 was processed; afterwards \(after.count) more item(s) were processed (\(after.prefix(5).map(String.init).joined(separator: ", "))\(after.count > 5 ? ", …" : "")) and publish() ran \(sink.publishCount) time(s). Check isCancelled before each item and return as soon as it is true.",
                ja: "要素 10 の処理中に cancelAllOperations() を呼びました。その後さらに \(after.count) 要素が処理され（\(after.prefix(5).map(String.init).joined(separator: ", "))\(after.count > 5 ? ", …" : "")）、publish() が \(sink.publishCount) 回実行されました。各要素の前に isCancelled を確認し、true になったらすぐ戻りましょう。"),
                events: traceWindow(sink.trace.events, around: sink.trace.events.firstIndex { $0.label == "cancelAllOperations()" } ?? 0, before: 6, after: 10))
        }
        return nil
    }

    /// Step 3: the publisher depends on workers A, B and C; only B is cancelled, while it
    /// processes item 10.
    static func checkOneOfThreeCancelled(_ subject: any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let sinks = (a: WorkSink(trace: trace), b: WorkSink(trace: trace, holdItem: 10), c: WorkSink(trace: trace), publisher: WorkSink(trace: trace))
        let workers = [subject.makeWorker(items: items, sink: sinks.a),
                       subject.makeWorker(items: items, sink: sinks.b),
                       subject.makeWorker(items: items, sink: sinks.c)]
        let publisher = subject.makePublisher(sink: sinks.publisher)
        for worker in workers { publisher.addDependency(worker) }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        queue.addOperations(workers + [publisher], waitUntilFinished: false)
        defer { withExtendedLifetime((workers, publisher)) {} }
        guard sinks.b.waitUntilHeld(seconds: options.deadlockSeconds) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "worker B reaching item 10", ja: "要素 10 までのワーカー B の処理"))
        }
        trace.record(.verbatim("B.cancel()"), lane: checkLane)
        workers[1].cancel()
        sinks.b.releaseHeldItem()
        if let failure = drain(queue, sinks.b, options: options, doing: Localized(
            "the queue after B.cancel()", ja: "B.cancel() の後のキュー")) { return failure }
        let after = sinks.b.processedItems.filter { $0 > 10 }
        if !after.isEmpty {
            return CheckFailure(stopsWhenCancelled, observed: Localized(
                "Worker B's cancel() was called while it processed item 10; afterwards it processed \(after.count) more item(s) (\(after.prefix(5).map(String.init).joined(separator: ", "))\(after.count > 5 ? ", …" : "")). Check isCancelled before each item.",
                ja: "ワーカー B が要素 10 を処理している間に cancel() を呼びました。その後さらに \(after.count) 要素が処理されました（\(after.prefix(5).map(String.init).joined(separator: ", "))\(after.count > 5 ? ", …" : "")）。各要素の前に isCancelled を確認しましょう。"),
                events: traceWindow(trace.events, around: trace.events.firstIndex { $0.label == "B.cancel()" } ?? 0, before: 6, after: 10))
        }
        if sinks.publisher.publishCount > 0 {
            let flags = workers.map(\.isCancelled)
            return CheckFailure(dependantsSkip, observed: Localized(
                "The publisher depends on workers A, B and C (added in that order); only B was cancelled (isCancelled afterwards: A \(flags[0]), B \(flags[1]), C \(flags[2])), and the publisher still published. A cancelled operation counts as finished, so its dependants start anyway: check every dependency — `dependencies.contains { $0.isCancelled }` — before doing the work.",
                ja: "パブリッシャーはワーカー A・B・C（この順に追加）に依存しています。キャンセルしたのは B だけです（その後の isCancelled: A \(flags[0])、B \(flags[1])、C \(flags[2])）が、パブリッシャーは publish しました。キャンセルされたオペレーションも終了扱いなので、依存するオペレーションはそれでも始まります。処理の前に、すべての依存先を `dependencies.contains { $0.isCancelled }` で確認しましょう。"),
                events: traceTail(trace.events, count: 12))
        }
        return nil
    }

    static func checkCancelledBeforeStart(_ subject: any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let sink = WorkSink()
        let (queue, worker, publisher) = start(subject, sink: sink, cancelWorkerFirst: true)
        defer { withExtendedLifetime((worker, publisher)) {} }
        if let failure = drain(queue, sink, options: options, doing: Localized(
            "a worker cancelled before it started", ja: "開始前にキャンセルしたワーカー")) { return failure }
        if !sink.processedItems.isEmpty {
            return CheckFailure(stopsWhenCancelled, observed: Localized(
                "The worker was cancelled before it was queued, yet \(sink.processedItems.count) item(s) were processed.",
                ja: "ワーカーはキューに入れる前にキャンセルされたのに、\(sink.processedItems.count) 要素が処理されました。"),
                events: traceTail(sink.trace.events))
        }
        if sink.publishCount > 0 {
            return CheckFailure(dependantsSkip, observed: Localized(
                "The worker was cancelled before it was queued; the publisher, which depends on it, still published \(sink.publishCount) time(s). Check `dependencies.contains { $0.isCancelled }` before publishing.",
                ja: "ワーカーはキューに入れる前にキャンセルされましたが、それに依存するパブリッシャーが \(sink.publishCount) 回 publish しました。publish の前に `dependencies.contains { $0.isCancelled }` を確認しましょう。"),
                events: traceTail(sink.trace.events))
        }
        return nil
    }

    /// Step 5: `start()` calls `main()` only if the operation was not cancelled yet, but a
    /// `cancel()` from another thread may land just after that — when `main()` has begun and
    /// not yet looked. The check makes that moment: it cancels, then calls `main()` itself.
    static func checkCancelledAsMainBegins(_ subject: any CooperativeCancellationProtocol, options: CheckOptions) -> CheckFailure? {
        let sink = WorkSink()
        let worker = subject.makeWorker(items: items, sink: sink)
        let publisher = subject.makePublisher(sink: sink)
        worker.cancel()
        publisher.cancel()
        let returned = returnsWithin(seconds: options.deadlockSeconds) {
            sink.trace.span(Localized("worker.main() after cancel()", ja: "cancel() 後の worker.main()")) { worker.main() }
            sink.trace.span(Localized("publisher.main() after cancel()", ja: "cancel() 後の publisher.main()")) { publisher.main() }
        }
        guard returned else {
            return .deadlock(trace: sink.trace, options: options, doing: Localized(
                "main() of a cancelled worker and publisher", ja: "キャンセルしたワーカーとパブリッシャーの main()"))
        }
        let processed = sink.processedItems
        guard processed.isEmpty && sink.publishCount == 0 else {
            let what = processed.isEmpty
                ? Localized("the publisher published", ja: "パブリッシャーが publish しました")
                : Localized("the worker processed item \(processed[0])\(processed.count > 1 ? " and \(processed.count - 1) more" : "")",
                            ja: "ワーカーが要素 \(processed[0])\(processed.count > 1 ? " ほか \(processed.count - 1) 個" : "")を処理しました")
            return CheckFailure(stopsWhenCancelled, observed: Localized(
                "cancel() can land just after start() has checked isCancelled and called main(), before main() looks. The check made that happen: it cancelled each operation, then called its main(); \(what.en). Check isCancelled before each item — before the first one too — and before publishing.",
                ja: "cancel() は、start() が isCancelled を確かめて main() を呼んだ直後、main() が確かめる前に届くことがあります。チェックはその瞬間を作りました。各オペレーションをキャンセルしてから main() を呼ぶと、\(what.ja)。isCancelled は各要素の前（最初の要素の前も）と publish の前に確かめましょう。"),
                events: traceTail(sink.trace.events))
        }
        return nil
    }
}
