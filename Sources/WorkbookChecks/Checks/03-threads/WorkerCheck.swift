import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/Worker. Jobs hold on gates the check opens, so "while a job is
/// running" is a fact, not a matter of timing.
///
/// 1. Jobs run one at a time, in order, on one thread that is not the caller's.
/// 2. After `shutdown`, every accepted job runs; `isFinished` stays false while one is still
///    running and is true once `join` returns.
/// 3. After `cancel`, the running job finishes and no queued job starts; `submit` is refused.
public enum WorkerCheck {
    public static let inOrderOnOneThread = Property(
        id: "not-one-thread",
        name: Localized("jobs run in order, one at a time, on the worker's thread", ja: "ジョブは順に 1 つずつワーカーのスレッドで実行される"),
        rule: Localized("Submitted jobs run in submission order, never overlapping, on one thread that is not the caller's.",
                        ja: "投入されたジョブは投入順に、重ならずに、呼び出し元ではない 1 つのスレッドで実行される。"))
    public static let finishedAfterWork = Property(
        id: "finished-early",
        name: Localized("finished only after all accepted work", ja: "受け付けた仕事がすべて終わってから finished"),
        rule: Localized("After shutdown every accepted job runs; isFinished is false until the last one has ended, and true when join returns.",
                        ja: "shutdown の後、受け付けたジョブはすべて実行される。最後のジョブが終わるまで isFinished は false で、join が戻ったときには true。"))
    public static let nothingStartsAfterCancel = Property(
        id: "work-after-cancel",
        name: Localized("no work starts after cancel", ja: "cancel の後に仕事が始まらない"),
        rule: Localized("After cancel returns, only the job already running may finish; queued jobs never start, and submit returns false.",
                        ja: "cancel が戻った後は、実行中のジョブだけが終わってよい。待機中のジョブは始まらず、submit は false を返す。"))
    public static let properties = [inOrderOnOneThread, finishedAfterWork, nothingStartsAfterCancel, Property.finishes]

    public static func run(_ make: @escaping @Sendable () -> any WorkerProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = checkOrder(make(), options: options)
            ?? checkShutdown(make(), options: options)
            ?? checkCancel(make(), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    /// What the jobs did, recorded from inside them.
    final class Log: @unchecked Sendable {
        let trace = Trace()
        private let entries = Locked<[(job: Int, thread: UInt)]>([])
        private let running = Locked(0)
        let overlapped = Locked(false)

        func job(_ number: Int, gate: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil) -> @Sendable () -> Void {
            { [self] in
                if running.withLock({ $0 += 1; return $0 }) > 1 { overlapped.withLock { $0 = true } }
                trace.span("job \(number)") {
                    entries.withLock { $0.append((number, ThreadIdentity.current)) }
                    started?.signal()
                    if let gate { _ = gate.wait(timeout: .now() + 5) }
                }
                running.withLock { $0 -= 1 }
            }
        }

        var jobs: [Int] { entries.current.map(\.job) }
        var threads: Set<UInt> { Set(entries.current.map(\.thread)) }
    }

    static func joined(_ worker: any WorkerProtocol, _ log: Log, options: CheckOptions) -> CheckFailure? {
        let done: Bool? = withDeadline(seconds: options.deadlockSeconds) {
            log.trace.span("join()") { worker.join() }
            return true
        }
        return done == nil ? .deadlock(trace: log.trace, options: options, doing: "join()") : nil
    }

    /// Makes calls that must return at once (`start`, `submit`, `shutdown`, `cancel`) under the
    /// deadline: an answer that blocks in one, e.g. by running the job loop in `start()` on the
    /// caller's thread, is reported as such, with the trace so far.
    static func returnsAtOnce<Value: Sendable>(_ calls: String, _ log: Log, options: CheckOptions,
                                               _ body: @escaping @Sendable () -> Value) -> Result<Value, CheckFailure> {
        guard let value = withDeadline(seconds: options.deadlockSeconds, body) else {
            return .failure(.deadlock(trace: log.trace, options: options, doing: "\(calls) (each must return at once)"))
        }
        return .success(value)
    }

    static func checkOrder(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let submitted = returnsAtOnce("start(), submit() × 50, shutdown()", log, options: options) { () -> UInt in
            worker.start()
            for number in 1...50 { worker.submit(log.job(number)) }
            worker.shutdown()
            return ThreadIdentity.current
        }
        guard case let .success(caller) = submitted else { return submitted.failure }
        if let failure = joined(worker, log, options: options) { return failure }
        let problem: Localized?
        if log.overlapped.current {
            problem = Localized("two jobs ran at the same time", ja: "2 つのジョブが同時に実行された")
        } else if log.jobs != Array(1...50) {
            problem = Localized("the jobs ran as \(log.jobs.prefix(12))…, not 1, 2, 3, …", ja: "ジョブの実行順が \(log.jobs.prefix(12))… で、1, 2, 3, … ではない")
        } else if log.threads.count != 1 || log.threads.contains(caller) {
            problem = Localized("the jobs ran on \(log.threads.count) thread(s)\(log.threads.contains(caller) ? ", including the caller's" : "")",
                                ja: "ジョブが \(log.threads.count) 個のスレッドで実行された\(log.threads.contains(caller) ? "（呼び出し元のスレッドを含む）" : "")")
        } else {
            problem = nil
        }
        guard let problem else { return nil }
        return CheckFailure(inOrderOnOneThread, observed: Localized(
            "50 jobs were submitted, then shutdown() and join(): \(problem.en).",
            ja: "50 個のジョブを投入し、shutdown() と join() を呼びました: \(problem.ja)。"), events: traceTail(log.trace.events))
    }

    static func checkShutdown(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let firstGate = DispatchSemaphore(value: 0), firstStarted = DispatchSemaphore(value: 0)
        let lastGate = DispatchSemaphore(value: 0), lastStarted = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce("start(), submit() × 3", log, options: options, {
            worker.start()
            worker.submit(log.job(1, gate: firstGate, started: firstStarted))
            worker.submit(log.job(2))
            worker.submit(log.job(3, gate: lastGate, started: lastStarted))
        }).failure { return failure }
        guard firstStarted.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: "the first job to start after start() and submit()")
        }
        log.trace.record("shutdown()")
        if let failure = returnsAtOnce("shutdown() while job 1 runs", log, options: options, { worker.shutdown() }).failure {
            firstGate.signal()
            lastGate.signal()
            return failure
        }
        firstGate.signal()
        guard lastStarted.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            lastGate.signal()
            if let failure = joined(worker, log, options: options) { return failure }
            return CheckFailure(finishedAfterWork, observed: Localized(
                "Jobs 1, 2, 3 were submitted and, while job 1 ran, shutdown() was called; job 3 never started (jobs that ran: \(log.jobs)). Accepted jobs must all run after shutdown.",
                ja: "ジョブ 1, 2, 3 を投入し、ジョブ 1 の実行中に shutdown() を呼びましたが、ジョブ 3 が始まりませんでした（実行されたジョブ: \(log.jobs)）。shutdown の後も、受け付けたジョブはすべて実行される必要があります。"),
                events: log.trace.events)
        }
        let finishedTooSoon = worker.isFinished
        log.trace.record("isFinished → \(finishedTooSoon) while job 3 runs")
        lastGate.signal()
        if let failure = joined(worker, log, options: options) { return failure }
        let finishedAfterJoin = worker.isFinished
        log.trace.record("isFinished → \(finishedAfterJoin) after join()")
        let problem: Localized?
        if finishedTooSoon {
            problem = Localized("isFinished was true while job 3, the last one, was still running", ja: "最後のジョブ 3 の実行中に isFinished が true だった")
        } else if log.jobs != [1, 2, 3] {
            problem = Localized("the jobs that ran were \(log.jobs), not [1, 2, 3]", ja: "実行されたジョブが [1, 2, 3] ではなく \(log.jobs) だった")
        } else if !finishedAfterJoin {
            problem = Localized("isFinished was false after join() returned", ja: "join() が戻った後も isFinished が false だった")
        } else {
            problem = nil
        }
        guard let problem else { return nil }
        return CheckFailure(finishedAfterWork, observed: Localized(
            "Jobs 1, 2, 3 were submitted; while job 1 ran, shutdown() was called: \(problem.en).",
            ja: "ジョブ 1, 2, 3 を投入し、ジョブ 1 の実行中に shutdown() を呼びました: \(problem.ja)。"), events: log.trace.events)
    }

    static func checkCancel(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let gate = DispatchSemaphore(value: 0), firstStarted = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce("start(), submit() × 3", log, options: options, {
            worker.start()
            worker.submit(log.job(1, gate: gate, started: firstStarted))
            worker.submit(log.job(2))
            worker.submit(log.job(3))
        }).failure { return failure }
        guard firstStarted.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: "the first job to start after start() and submit()")
        }
        log.trace.record("cancel()")
        let cancelled = returnsAtOnce("cancel() while job 1 runs, then submit()", log, options: options) { () -> Bool in
            worker.cancel()
            return worker.submit(log.job(4))
        }
        guard case let .success(accepted) = cancelled else {
            gate.signal()
            return cancelled.failure
        }
        log.trace.record("submit(job 4) → \(accepted)")
        gate.signal()
        if let failure = joined(worker, log, options: options) { return failure }
        guard log.jobs != [1] || accepted else { return nil }
        let problem = accepted
            ? Localized("submit after cancel returned true", ja: "cancel の後の submit が true を返した")
            : Localized("jobs \(log.jobs.filter { $0 != 1 }) started after cancel() returned", ja: "cancel() が戻った後にジョブ \(log.jobs.filter { $0 != 1 }) が始まった")
        return CheckFailure(nothingStartsAfterCancel, observed: Localized(
            "Jobs 1, 2, 3 were submitted; while job 1 ran, cancel() was called, then submit(job 4): \(problem.en). Drop the queued jobs under the lock in cancel().",
            ja: "ジョブ 1, 2, 3 を投入し、ジョブ 1 の実行中に cancel()、続けて submit(ジョブ 4) を呼びました: \(problem.ja)。cancel() の中で、ロックを持ったまま待機中のジョブを捨てましょう。"),
            events: log.trace.events)
    }
}

private extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
