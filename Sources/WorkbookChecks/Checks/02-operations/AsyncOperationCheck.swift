import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 02-operations/AsyncOperation. The work hands its `done` callback to the check,
/// so "the work has not finished yet" is a fact the check controls, not a matter of timing.
///
/// 1. A dependant waits for `done`: operation B depends on A; while A's work is held, B must not
///    start (watched over a load-adaptive window); after `done`, B must start.
/// 2. The state reads right: asynchronous; executing and not finished while the work runs;
///    finished and not executing after `done`.
/// 3. Cancelled before it starts: the work never runs, and the operation still finishes, so
///    the queue drains.
/// 4. Under load: 300 operations in chains of three, each finishing from another thread.
public enum AsyncOperationCheck {
    public static let dependantWaits = Property(
        id: "dependant-started-early",
        name: Localized("dependants start only after the work is done", ja: "依存する操作は仕事が終わってから始まる"),
        rule: Localized("An operation that depends on this one starts only after `done` is called.",
                        ja: "この操作に依存する操作は、`done` が呼ばれた後にだけ始まる。"))
    public static let dependantStarts = Property(
        id: "never-finished",
        name: Localized("the queue learns it finished", ja: "キューが終了を知る"),
        rule: Localized("After `done`, the operation is finished and its dependants start.",
                        ja: "`done` の後、操作は終了し、依存する操作が始まる。"))
    public static let stateReadsRight = Property(
        id: "wrong-state",
        name: Localized("isAsynchronous, isExecuting and isFinished read right", ja: "isAsynchronous・isExecuting・isFinished が正しい"),
        rule: Localized("Asynchronous; executing and not finished while the work runs; finished and not executing after done.",
                        ja: "非同期であり、仕事の間は実行中かつ未終了、done の後は終了かつ非実行中。"))
    public static let cancelledSkipsWork = Property(
        id: "ran-when-cancelled",
        name: Localized("cancelled before start: no work, still finishes", ja: "開始前のキャンセル: 仕事をせず、終了はする"),
        rule: Localized("An operation cancelled before it starts never runs its work, and finishes.",
                        ja: "開始前にキャンセルされた操作は仕事を実行せず、終了する。"))
    public static let properties = [dependantWaits, dependantStarts, stateReadsRight, cancelledSkipsWork, Property.finishes]

    public typealias Make = @Sendable (_ work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) -> Operation

    public static func run(_ make: @escaping Make, options: CheckOptions = .init()) -> CheckResult {
        let failure = checkDependant(make, options: options)
            ?? checkCancelledBeforeStart(make, options: options)
            ?? stress(make, options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    /// Holds `done` for the check.
    final class HeldCallback: @unchecked Sendable {
        private let done = Locked<(@Sendable () -> Void)?>(nil)
        let started = DispatchSemaphore(value: 0)
        func hold(_ callback: @escaping @Sendable () -> Void) {
            done.withLock { $0 = callback }
            started.signal()
        }
        func release() { done.current?() }
    }

    static func checkDependant(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let held = HeldCallback()
        let a = make { done in
            trace.begin("A: work", lane: "A")
            held.hold { trace.end("A: work", lane: "A"); trace.record("A: done()", lane: "A"); done() }
        }
        let bStarted = DispatchSemaphore(value: 0)
        let b = BlockOperation {
            trace.record("B starts", lane: "B")
            bStarted.signal()
        }
        b.addDependency(a)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        queue.addOperations([a, b], waitUntilFinished: false)
        guard held.started.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: trace, options: options, doing: "A's work to start after the queue got A")
        }
        let whileRunning = (asynchronous: a.isAsynchronous, executing: a.isExecuting, finished: a.isFinished)
        observationWindow()
        if bStarted.wait(timeout: .now()) == .success {
            held.release()
            return CheckFailure(dependantWaits, observed: Localized(
                "B depends on A. A's work had started but not called done, and B started anyway: the queue thought A was finished. That is what a plain `main()` does — it is finished when main returns. Override `start()`, `isAsynchronous`, `isExecuting` and `isFinished` instead.",
                ja: "B は A に依存しています。A の仕事は始まったものの done を呼んでいないのに、B が始まりました。キューは A が終わったと判断しています。素の `main()` はこうなります（main が戻った時点で終了）。代わりに `start()`・`isAsynchronous`・`isExecuting`・`isFinished` をオーバーライドしましょう。"),
                events: trace.events)
        }
        guard whileRunning.asynchronous, whileRunning.executing, !whileRunning.finished else {
            held.release()
            return CheckFailure(stateReadsRight, observed: Localized(
                "While A's work ran: isAsynchronous=\(whileRunning.asynchronous), isExecuting=\(whileRunning.executing), isFinished=\(whileRunning.finished); expected true, true, false.",
                ja: "A の仕事の実行中: isAsynchronous=\(whileRunning.asynchronous)、isExecuting=\(whileRunning.executing)、isFinished=\(whileRunning.finished)。期待値は true、true、false です。"),
                events: trace.events)
        }
        held.release()
        guard bStarted.wait(timeout: .now() + min(options.deadlockSeconds, 2)) == .success else {
            trace.record("B never started", lane: "B")
            return CheckFailure(dependantStarts, observed: Localized(
                "A's work called done, but B — which depends on A — never started (waited \(formatSeconds(min(options.deadlockSeconds, 2)))). The queue only learns that A finished from key-value notifications: wrap every change of isFinished (and isExecuting) in willChangeValue(forKey: \"isFinished\") / didChangeValue(forKey: \"isFinished\").",
                ja: "A の仕事は done を呼びましたが、A に依存する B が始まりませんでした（\(formatSeconds(min(options.deadlockSeconds, 2))) 待機）。キューが A の終了を知る手段はキー値通知だけです。isFinished（と isExecuting）の変更をすべて willChangeValue(forKey: \"isFinished\") / didChangeValue(forKey: \"isFinished\") で囲みましょう。"),
                events: trace.events)
        }
        if a.isExecuting || !a.isFinished {
            return CheckFailure(stateReadsRight, observed: Localized(
                "After done: isExecuting=\(a.isExecuting), isFinished=\(a.isFinished); expected false, true.",
                ja: "done の後: isExecuting=\(a.isExecuting)、isFinished=\(a.isFinished)。期待値は false、true です。"), events: trace.events)
        }
        return nil
    }

    static func checkCancelledBeforeStart(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let workRan = Locked(false)
        let a = make { done in
            workRan.withLock { $0 = true }
            trace.record("A: work runs", lane: "A")
            done()
        }
        a.cancel()
        trace.record("A cancelled, then added to the queue", lane: "check")
        let queue = OperationQueue()
        queue.addOperation(a)
        let drained: Bool? = withDeadline(seconds: min(options.deadlockSeconds, 2)) {
            queue.waitUntilAllOperationsAreFinished()
            return true
        }
        if workRan.current {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "A was cancelled before it was added to a queue, and its work ran anyway. In start(), check isCancelled first and, if set, finish() without calling execute().",
                ja: "A はキューに追加する前にキャンセルされたのに、仕事が実行されました。start() で最初に isCancelled を確認し、true なら execute() を呼ばずに finish() しましょう。"),
                events: trace.events)
        }
        guard drained != nil, a.isFinished else {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "A was cancelled before it started; the queue never saw it finish, so it never drained. A cancelled operation still has to finish (announced with willChangeValue/didChangeValue(forKey: \"isFinished\")).",
                ja: "A は開始前にキャンセルされましたが、キューは A の終了を知らず、空になりませんでした。キャンセルされた操作も終了する必要があります（willChangeValue/didChangeValue(forKey: \"isFinished\") で通知）。"),
                events: trace.events)
        }
        return nil
    }

    static func stress(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let chains = 100, length = 3
        let order = Locked<[[Int]]>(Array(repeating: [], count: chains))
        var operations: [Operation] = []
        for chain in 0..<chains {
            var previous: Operation?
            for link in 0..<length {
                let operation = make { done in
                    order.withLock { $0[chain].append(link) }
                    DispatchQueue.global().async { done() }
                }
                if let previous { operation.addDependency(previous) }
                operations.append(operation)
                previous = operation
            }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        queue.addOperations(operations, waitUntilFinished: false)
        let drained: Bool? = withDeadline(seconds: options.deadlockSeconds) {
            queue.waitUntilAllOperationsAreFinished()
            return true
        }
        guard drained != nil else {
            let done = order.current.map(\.count).reduce(0, +)
            trace.record("\(done) of \(chains * length) works started")
            return .deadlock(trace: trace, options: options, doing: "\(chains) chains of \(length) operations finishing from other threads (\(done) of \(chains * length) works started)")
        }
        let wrong = order.current.enumerated().filter { $0.element != Array(0..<length) }
        guard wrong.isEmpty else {
            return CheckFailure(dependantWaits, observed: Localized(
                "In \(wrong.count) of \(chains) chains of dependent operations the works ran out of order (e.g. \(wrong[0].element)).",
                ja: "依存関係でつないだ \(chains) 本の鎖のうち \(wrong.count) 本で、仕事の順序が崩れました（例: \(wrong[0].element)）。"))
        }
        return nil
    }

}
