import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/Worker. Jobs hold on gates the check opens, so "while a job is
/// running" is a fact, not a matter of timing; an idle worker is one whose thread the check has
/// seen asleep after its last job.
///
/// 1. Jobs all run, in order, one at a time, on one thread that is not the caller's — a thread
///    of the worker's own: it ends when the worker ends (a `DispatchQueue`'s pool thread goes
///    back to the pool and lives on).
/// 2. `shutdown` and `cancel` wake an idle worker: its thread ends and `join` returns.
/// 3. After `shutdown`, every accepted job runs; `isFinished` stays false while one is still
///    running and is true once `join` returns.
/// 4. After `cancel` — also after an earlier `shutdown`, and whatever `shutdown` comes later —
///    the running job finishes and no queued job starts; `submit` is refused.
/// 5. `join` returns for every caller — two threads at once, and again after the end — and
///    only once the worker has ended: a wake-up while the last job still runs (a broadcast from
///    `shutdown`, or one from the check) must not let it out.
/// An idle worker's thread and a waiting `join` sleep: the kernel's count of their wake-ups
/// and CPU time tells a condition wait from a loop that sleeps a millisecond and looks again.
/// 6. No data race: two threads take turns calling every method while the worker's thread runs
///    (`runInTurns`), so a flag read or written outside the lock is an unordered pair that
///    ThreadSanitizer reports every run.
/// `start`, `submit`, `shutdown` and `cancel` must return at once throughout.
public enum WorkerCheck {
    public static let inOrderOnOneThread = Property(
        id: "not-one-thread",
        name: Localized("jobs run in order, one at a time, on the worker's thread", ja: "ジョブは順に 1 つずつワーカーのスレッドで実行される"),
        rule: Localized("Every accepted job runs, in submission order, never overlapping another, on one thread that is not the caller's.",
                        ja: "受け付けたジョブはすべて、投入順に、ほかと重ならずに、呼び出し元ではない 1 本のスレッドで実行される。"))
    public static let ownThread = Property(
        id: "own-thread",
        name: Localized("a thread of the worker's own", ja: "ワーカー自身のスレッド"),
        rule: Localized("The jobs run on a thread the worker started for itself, which ends when the worker ends: join returns after it has ended.",
                        ja: "ジョブはワーカーが自分のために起動したスレッドで実行され、そのスレッドはワーカーの終了とともに終わる。join はそれが終わってから戻る。"))
    public static let returnsAtOnce = Property(
        id: "blocks-caller",
        name: Localized("start, submit, shutdown and cancel return at once", ja: "start・submit・shutdown・cancel はすぐに戻る"),
        rule: Localized("start, submit, shutdown and cancel return at once, even while a job runs: only the worker's thread runs jobs, and only join waits.",
                        ja: "start・submit・shutdown・cancel は、ジョブの実行中でもすぐに戻る。ジョブを実行するのはワーカーのスレッドだけで、待つのは join だけ。"))
    public static let wakesIdle = Property(
        id: "wakes-idle",
        name: Localized("shutdown and cancel wake an idle worker", ja: "shutdown と cancel はジョブ待ちのワーカーを起こす"),
        rule: Localized("When the worker's thread is waiting for work, shutdown or cancel wakes it, so it ends and join returns.",
                        ja: "ワーカーのスレッドがジョブを待っているとき、shutdown や cancel はそれを起こし、スレッドが終わって join が戻る。"))
    public static let sleepsWhileWaiting = Property(
        id: "polling",
        name: Localized("waits by sleeping on the condition, not by polling", ja: "ポーリングではなく条件変数でスリープして待つ"),
        rule: Localized("While the worker's thread has no work, and while join waits, the thread sleeps until another thread changes the state: it does not wake up again and again, or spin, while nothing changes.",
                        ja: "ワーカーのスレッドにジョブがない間も、join が待つ間も、スレッドは別のスレッドが状態を変えるまでスリープする。何も変わらないのに何度も起きたり、スピンしたりしない。"))
    public static let finishedAfterWork = Property(
        id: "finished-early",
        name: Localized("finished only after all accepted work", ja: "受け付けたジョブがすべて終わってから finished"),
        rule: Localized("After shutdown every accepted job runs; isFinished is false until the last one has ended, and true when join returns.",
                        ja: "shutdown の後、受け付けたジョブはすべて実行される。最後のジョブが終わるまで isFinished は false で、join が戻ったときには true。"))
    public static let nothingStartsAfterCancel = Property(
        id: "work-after-cancel",
        name: Localized("no work starts after cancel", ja: "cancel の後にジョブが始まらない"),
        rule: Localized("After cancel returns — also after an earlier shutdown, and whatever shutdown comes later — only the job already running may finish; queued jobs never start, and submit returns false.",
                        ja: "cancel が戻った後は（先に shutdown していても、後から shutdown しても）、実行中のジョブだけが終わってよい。積まれたジョブは始まらず、submit は false を返す。"))
    public static let joinEveryTime = Property(
        id: "join-every-time",
        name: Localized("join returns for every caller", ja: "join はすべての呼び出し元に戻る"),
        rule: Localized("join returns once the worker has ended — for every thread that calls it, however many, and again each time it is called later.",
                        ja: "join はワーカーが終わったら戻る。呼んだスレッドが何本あっても、その後に何度呼ばれても。"))
    public static let waitsAgain = Property(
        id: "woken-without-work",
        name: Localized("woken with no job, the thread waits again", ja: "ジョブなしで起こされたスレッドは、また待つ"),
        rule: Localized("A wake-up that brings no job and no stop — a broadcast meant for another thread, or a spurious wake-up, which POSIX allows — leaves the worker's thread waiting for work: it looks again and waits again (`while`, not `if`).",
                        ja: "ジョブも停止も伴わない起床（別のスレッド向けの broadcast や、POSIX が認めているスプリアスウェイクアップ）の後も、ワーカーのスレッドはジョブを待ち続ける。もう一度確かめて、また待つ（`if` ではなく `while`）。"))
    /// Fresh worker pairs the race probe runs its sequence on.
    static let probeRounds = 2

    /// Needs the thread's wake-ups (`/proc`, `getrusage(RUSAGE_THREAD)`): a wait that sleeps a
    /// millisecond and looks again burns almost no CPU, so only its wake-ups give it away.
    public static let platformProbes = [
        PlatformProbe("polls-with-sleeps", Localized(
            "an idle worker or a join that polls with short sleeps instead of waiting on a condition (counted from the thread's wake-ups)",
            ja: "待機中のワーカーや join が条件変数で待たず、短いスリープを挟んでポーリングしていないか（スレッドの起床回数で数える）"), needs: [.threadObservation]),
        PlatformProbe("woken-without-work", Localized(
            "a wake-up with no job, given only once the worker's thread is seen asleep, and a new job only once it has gone back to sleep",
            ja: "ワーカーのスレッドが眠っているのを確かめてから送る、ジョブのない起床と、スレッドが再び眠ってから投入する新しいジョブ"), needs: [.threadObservation]),
    ]

        public static let properties = [inOrderOnOneThread, ownThread, returnsAtOnce, wakesIdle, waitsAgain, sleepsWhileWaiting, finishedAfterWork, nothingStartsAfterCancel, joinEveryTime, Property.finishes]

    public static func run(_ make: @escaping @Sendable () -> any WorkerProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = checkOrder(make(), options: options)
            ?? checkStopWhenIdle(make(), stop: .shutdown, options: options)
            ?? checkStopWhenIdle(make(), stop: .cancel, options: options)
            ?? checkWokenWithoutWork(make(), options: options)
            ?? checkShutdown(make(), options: options)
            ?? checkCancel(make(), options: options)
            ?? checkStops(make(), in: [.shutdown, .cancel], options: options)
            ?? checkStops(make(), in: [.cancel, .shutdown], options: options)
            ?? checkJoins(make(), options: options)
            ?? probeRaces(make, options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    enum Stop: String {
        case shutdown, cancel
        func call(on worker: any WorkerProtocol) {
            switch self {
            case .shutdown: worker.shutdown()
            case .cancel: worker.cancel()
            }
        }
    }

    /// What the jobs did, recorded from inside them.
    final class Log: @unchecked Sendable {  // everything mutable is in `Locked`
        let trace = Trace()
        private let entries = Locked<[(job: Int, thread: UInt)]>([])
        private let watches = Locked<[UInt: ThreadEndWatch]>([:])
        private let kernelThreads = Locked<[KernelThread]>([])
        private let running = Locked(0)
        let overlapped = Locked(false)

        func job(_ number: Int, gate: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil, ended: DispatchSemaphore? = nil) -> @Sendable () -> Void {
            { [self] in
                if running.withLock({ $0 += 1; return $0 }) > 1 { overlapped.withLock { $0 = true } }
                let thread = ThreadIdentity.current
                watches.withLock { watches in
                    if watches[thread] == nil { watches[thread] = ThreadEndWatch.current() }
                }
                if let kernel = KernelThread.current() { kernelThreads.withLock { $0.append(kernel) } }
                trace.span(Localized("job \(number)", ja: "ジョブ \(number)")) {
                    entries.withLock { $0.append((number, thread)) }
                    started?.signal()
                    if let gate { _ = gate.wait(timeout: .now() + 5) }
                }
                running.withLock { $0 -= 1 }
                ended?.signal()
            }
        }

        var jobs: [Int] { entries.current.map(\.job) }
        var threads: Set<UInt> { Set(entries.current.map(\.thread)) }
        var threadWatches: [ThreadEndWatch] { Array(watches.current.values) }
        var lastKernelThread: KernelThread? { kernelThreads.current.last }
    }

    static func joined(_ worker: any WorkerProtocol, _ log: Log, options: CheckOptions) -> CheckFailure? {
        let join = BlockingCall("join()", trace: log.trace) { worker.join() }
        switch join.awaitWake(seconds: options.deadlockSeconds, conditions: LearnerConditions(in: worker)) {
        case .returned: return nil
        case .onlyAfterExtraBroadcast:
            return CheckFailure(.finishes, observed: Localized(
                "join() did not return within \(formatSeconds(options.deadlockSeconds).en); one broadcast() on your condition from the check then let it return: a change (the last job ending, the thread finishing) did not wake the threads waiting for it. Broadcast after every change of the state.",
                ja: "join() が \(formatSeconds(options.deadlockSeconds).ja)以内に戻らず、チェックがあなたの条件変数に broadcast() を 1 回送ると戻りました。状態の変化（最後のジョブの終了、スレッドの終了）が、それを待つスレッドを起こしていません。状態を変えるたびに broadcast しましょう。"),
                events: traceTail(log.trace.events))
        case .stuck:
            return .deadlock(trace: log.trace, options: options, doing: .verbatim("join()"))
        }
    }

    /// Makes calls that must return at once (`start`, `submit`, `shutdown`, `cancel`) under the
    /// deadline: an answer that blocks in one — running the job loop in `start()` on the
    /// caller's thread, or holding the lock while a job runs — is reported as such.
    static func returnsAtOnce<Value: Sendable>(_ calls: Localized, _ log: Log, options: CheckOptions,
                                               _ body: @escaping @Sendable () -> Value) -> Result<Value, CheckFailure> {
        guard let value = withDeadline(seconds: options.deadlockSeconds, body) else {
            return .failure(CheckFailure(returnsAtOnce, observed: Localized(
                "\(calls.en) did not return within \(formatSeconds(options.deadlockSeconds).en). start() only starts the thread, submit() only queues the job, shutdown() and cancel() only change the state and wake the thread; none of them may wait for a job — run the job loop on the worker's own thread, and run each job outside the lock.",
                ja: "\(calls.ja) が \(formatSeconds(options.deadlockSeconds).ja)以内に戻りませんでした。start() はスレッドを起動するだけ、submit() はジョブを積むだけ、shutdown() と cancel() は状態を変えてスレッドを起こすだけで、どれもジョブを待ってはいけません。ジョブのループはワーカー自身のスレッドで回し、各ジョブはロックの外で実行しましょう。"),
                events: traceTail(log.trace.events)))
        }
        return .success(value)
    }

    // MARK: 1. In order, on one thread of its own

    static func checkOrder(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let submitted = returnsAtOnce(.verbatim("start(), submit() × 50, shutdown()"), log, options: options) { () -> (caller: UInt, refused: [Int]) in
            worker.start()
            var refused: [Int] = []
            for number in 1...50 where !worker.submit(log.job(number)) { refused.append(number) }
            worker.shutdown()
            return (ThreadIdentity.current, refused)
        }
        guard case let .success((caller, refused)) = submitted else { return submitted.failure }
        if let failure = joined(worker, log, options: options) { return failure }
        let jobs = log.jobs, threads = log.threads
        let problem: Localized?
        if !refused.isEmpty {
            problem = Localized("submit returned false for jobs \(refused.prefix(8)) before shutdown()", ja: "shutdown() の前なのに、ジョブ \(refused.prefix(8)) の submit が false を返した")
        } else if log.overlapped.current {
            problem = Localized("two jobs ran at the same time", ja: "2 つのジョブが同時に実行された")
        } else if jobs.count < 50 && jobs == Array(1...50).prefix(jobs.count).map({ $0 }) {
            problem = Localized("only \(jobs.count) of the 50 jobs ran", ja: "50 個のうち \(jobs.count) 個のジョブしか実行されなかった")
        } else if jobs != Array(1...50) {
            problem = Localized("the jobs ran as \(jobs.prefix(12))…, not 1, 2, 3, …", ja: "ジョブの実行順が \(jobs.prefix(12))… で、1, 2, 3, … ではない")
        } else if threads.contains(caller) {
            problem = Localized("the jobs ran on the caller's thread", ja: "ジョブが呼び出し元のスレッドで実行された")
        } else {
            problem = nil
        }
        if let problem {
            return CheckFailure(inOrderOnOneThread, observed: Localized(
                "50 jobs were submitted, then shutdown() and join(): \(problem.en).",
                ja: "50 個のジョブを投入し、shutdown() と join() を呼びました: \(problem.ja)。"), events: traceTail(log.trace.events))
        }
        // A thread of the worker's own ends with the worker; a pool thread lives on.
        let alive = log.threadWatches.filter { !$0.waitForEnd(seconds: 1) }
        if !alive.isEmpty {
            log.trace.record(Localized("the thread that ran the jobs is still alive 1 s after join()", ja: "join() の 1 秒後もジョブのスレッドが動作中"))
            return CheckFailure(ownThread, observed: Localized(
                "50 jobs ran in order, but on \(threads.count == 1 ? "a thread" : "\(threads.count) threads") still running 1 s after join() returned. A thread the worker starts for itself ends when the worker ends, and join() waits for that; a pool thread of a DispatchQueue goes back to the pool instead. Start a Thread in start() and run the jobs on it.",
                ja: "50 個のジョブは順に実行されましたが、実行した\(threads.count == 1 ? "スレッド" : " \(threads.count) 本のスレッド")は join() が戻った 1 秒後もまだ動いていました。ワーカーが自分で起動したスレッドはワーカーとともに終わり、join() はそれを待ちます。DispatchQueue のプールのスレッドはプールに戻るだけです。start() で Thread を起動し、その上でジョブを実行しましょう。"),
                events: traceTail(log.trace.events))
        }
        if threads.count != 1 {
            return CheckFailure(inOrderOnOneThread, observed: Localized(
                "50 jobs were submitted, then shutdown() and join(): the jobs ran on \(threads.count) different threads.",
                ja: "50 個のジョブを投入し、shutdown() と join() を呼びました: ジョブが \(threads.count) 本の異なるスレッドで実行されました。"), events: traceTail(log.trace.events))
        }
        return nil
    }

    static let firstJobStarting = Localized("the first job to start after start() and submit()", ja: "start() と submit() の後の最初のジョブの開始")
    static let shutdownWhileJob1Runs = Localized("shutdown() while job 1 runs", ja: "ジョブ 1 の実行中の shutdown()")
    static let broadcastFromCheck = Localized("broadcast() from the check", ja: "チェックから broadcast()")

    // MARK: 2. Stopping an idle worker

    /// Starts the worker, runs job 1 and returns once its thread is back to waiting for work
    /// (seen asleep, where the kernel can be asked).
    static func idleAfterOneJob(_ worker: any WorkerProtocol, _ log: Log, options: CheckOptions) -> CheckFailure? {
        let ended = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce(.verbatim("start(), submit()"), log, options: options, {
            worker.start()
            worker.submit(log.job(1, ended: ended))
        }).failure { return failure }
        guard ended.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: firstJobStarting)
        }
        // Job 1 has returned; the worker's thread goes back to waiting for work.
        waitUntilBlocked(log.lastKernelThread)
        log.trace.record(Localized("the worker is idle", ja: "ワーカーはジョブ待ち"))
        return nil
    }

    static func checkStopWhenIdle(_ worker: any WorkerProtocol, stop: Stop, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        if let failure = idleAfterOneJob(worker, log, options: options) { return failure }
        if stop == .shutdown, let polling = pollingWhileIdle(log.lastKernelThread, who: Localized("The worker's thread had no work", ja: "ワーカーのスレッドはジョブがなく")) {
            log.trace.record(Localized("the worker's thread polls", ja: "ワーカーのスレッドがポーリング"))
            return CheckFailure(sleepsWhileWaiting, observed: Localized(
                "Job 1 ran and nothing else was submitted. \(polling.en). Wait for work with `while jobs.isEmpty && accepting { condition.wait() }`: it sleeps until a broadcast, using no CPU.",
                ja: "ジョブ 1 が実行され、ほかには何も投入されていません。\(polling.ja)。ジョブは `while jobs.isEmpty && accepting { condition.wait() }` で待ちましょう。broadcast されるまで CPU を使わずにスリープします。"),
                events: traceTail(log.trace.events))
        }
        if let failure = returnsAtOnce(Localized("\(stop)() on an idle worker", ja: "ジョブ待ちのワーカーの \(stop)()"), log, options: options,
                                       { log.trace.span("\(stop)()") { stop.call(on: worker) } }).failure {
            return failure
        }
        let join = BlockingCall("join()", trace: log.trace) { worker.join() }
        switch join.awaitWake(seconds: options.deadlockSeconds, conditions: LearnerConditions(in: worker)) {
        case .returned:
            return nil
        case .onlyAfterExtraBroadcast:
            log.trace.record(broadcastFromCheck)
            return CheckFailure(wakesIdle, observed: Localized(
                "Job 1 ran, and the worker's thread went back to waiting for work. Then \(stop)() was called, but join() was still waiting \(formatSeconds(options.deadlockSeconds).en) later; one broadcast() on your condition from the check let the thread end at once: \(stop)() changed the state without waking the thread. Broadcast in \(stop)().",
                ja: "ジョブ 1 が実行され、ワーカーのスレッドは再びジョブ待ちに戻りました。そこで \(stop)() を呼びましたが、\(formatSeconds(options.deadlockSeconds).ja)後も join() は待ったままでした。チェックがあなたの条件変数に broadcast() を 1 回送ると、スレッドはすぐに終わりました。\(stop)() は状態を変えただけで、スレッドを起こしていません。\(stop)() の中で broadcast しましょう。"),
                events: traceTail(log.trace.events))
        case .stuck:
            return .deadlock(trace: log.trace, options: options, doing: Localized(
                "join() after \(stop)() on an idle worker", ja: "ジョブ待ちのワーカーの \(stop)() の後の join()"))
        }
    }

    // MARK: 2b. Woken with no work

    /// The worker idle after job 1; the check broadcasts on the answer's condition with nothing
    /// changed — what a spurious wake-up does, or a broadcast meant for another waiter — then,
    /// once the thread has woken and gone back to sleep (or ended), submits job 2, which must run.
    /// A thread that waits with `if` takes the empty queue for a stop and ends (or takes a job
    /// that is not there and crashes).
    static func checkWokenWithoutWork(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let conditions = LearnerConditions(in: worker)
        guard !conditions.isEmpty else { return nil }  // no condition of the answer's to broadcast on
        let log = Log()
        if let failure = idleAfterOneJob(worker, log, options: options) { return failure }
        let thread = log.lastKernelThread
        let sleepsBefore = thread?.usage?.sleeps
        log.trace.record(Localized("broadcast() from the check, nothing changed", ja: "チェックから broadcast()、状態は変えない"))
        RunnerProtocol.doing(Localized(
            "woken the idle worker's thread with a broadcast() on your condition and no job — as a spurious wake-up, which POSIX allows, would: a thread that waits with `if` goes on as if a job were there",
            ja: "ジョブ待ちのワーカーのスレッドを、ジョブなしで、あなたの条件変数への broadcast() で起こしたところでした。POSIX が認めているスプリアスウェイクアップと同じです。`if` で待つスレッドは、ジョブがあるものとして先へ進みます"))
        conditions.broadcast()
        // Woken, it runs, looks, and sleeps again — or ends.
        let threadEnded = wokeAndSleptAgain(thread, sleepsBefore: sleepsBefore)
        log.trace.record(threadEnded ? Localized("the worker's thread has ended", ja: "ワーカーのスレッドが終了")
                                     : Localized("the worker's thread is waiting again", ja: "ワーカーのスレッドは再び待機"))
        let second = DispatchSemaphore(value: 0)
        let submitted = returnsAtOnce(.verbatim("submit()"), log, options: options) { worker.submit(log.job(2, ended: second)) }
        guard case let .success(accepted) = submitted else { return submitted.failure }
        let ran = second.wait(timeout: .now() + options.deadlockSeconds) == .success
        if !accepted || !ran {
            let outcome = !accepted
                ? Localized("submit(job 2) returned false", ja: "submit(ジョブ 2) は false を返した")
                : Localized("submit(job 2) returned true, and job 2 had not run \(formatSeconds(options.deadlockSeconds).en) later", ja: "submit(ジョブ 2) は true を返したが、\(formatSeconds(options.deadlockSeconds).ja)後もジョブ 2 は実行されていなかった")
            let end = threadEnded ? Localized(" — the worker's thread had ended after the wake-up", ja: "。起床の後、ワーカーのスレッドは終了していた") : Localized("", ja: "")
            return CheckFailure(waitsAgain, observed: Localized(
                "Job 1 ran and the worker's thread went back to waiting for work. The check then called broadcast() on your condition without changing anything, as a spurious wake-up (POSIX allows them) or a broadcast meant for another waiter would; then \(outcome.en)\(end.en). The wake-up was taken for a job or a stop. Wait for work in a loop that looks again after every wake-up: `while jobs.isEmpty && accepting { condition.wait() }`.",
                ja: "ジョブ 1 が実行され、ワーカーのスレッドは再びジョブ待ちに戻りました。そこでチェックは、状態を何も変えずにあなたの条件変数に broadcast() を送りました。スプリアスウェイクアップ（POSIX が認めています）や、別の待ち手向けの broadcast と同じです。その後、\(outcome.ja)\(end.ja)。起床をジョブか停止の合図と取り違えています。ジョブは、起きるたびに確かめ直すループで待ちましょう: `while jobs.isEmpty && accepting { condition.wait() }`。"),
                events: traceTail(log.trace.events))
        }
        if let failure = returnsAtOnce(.verbatim("shutdown()"), log, options: options, { worker.shutdown() }).failure { return failure }
        return joined(worker, log, options: options)
    }

    /// Waits until `thread` has woken since `sleepsBefore` and is asleep again, or has ended;
    /// true if it ended. Where the kernel cannot be asked, after a load-adaptive window.
    static func wokeAndSleptAgain(_ thread: KernelThread?, sleepsBefore: Int?) -> Bool {
        guard let thread, let sleepsBefore else {
            observationWindow()
            return false
        }
        var watch = KernelThread.BlockedWatch(thread)
        pollUntil(seconds: 2) {
            guard let sleeps = thread.usage?.sleeps else { return true }  // gone
            return sleeps > sleepsBefore && watch.look()
        }
        return thread.state == .gone
    }

    // MARK: 3. Shutdown drains

    static func checkShutdown(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let firstGate = DispatchSemaphore(value: 0), firstStarted = DispatchSemaphore(value: 0)
        let lastGate = DispatchSemaphore(value: 0), lastStarted = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce(.verbatim("start(), submit() × 3"), log, options: options, {
            worker.start()
            worker.submit(log.job(1, gate: firstGate, started: firstStarted))
            worker.submit(log.job(2))
            worker.submit(log.job(3, gate: lastGate, started: lastStarted))
        }).failure { return failure }
        guard firstStarted.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: firstJobStarting)
        }
        if let failure = returnsAtOnce(shutdownWhileJob1Runs, log, options: options, { log.trace.span("shutdown()") { worker.shutdown() } }).failure {
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
        log.trace.record(Localized("isFinished → \(finishedTooSoon) while job 3 runs", ja: "isFinished → \(finishedTooSoon)（ジョブ 3 の実行中）"))
        lastGate.signal()
        if let failure = joined(worker, log, options: options) { return failure }
        let finishedAfterJoin = worker.isFinished
        log.trace.record(Localized("isFinished → \(finishedAfterJoin) after join()", ja: "isFinished → \(finishedAfterJoin)（join() の後）"))
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

    // MARK: 4. Cancel stops the queue

    static func checkCancel(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        checkStops(worker, in: [.cancel], options: options)
    }

    /// Jobs 1 (held on a gate), 2 and 3; while job 1 runs, the `stops` in order, then
    /// `submit(job 4)`. A cancel among them means: only job 1 ever runs, and job 4 is refused.
    static func checkStops(_ worker: any WorkerProtocol, in stops: [Stop], options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let gate = DispatchSemaphore(value: 0), firstStarted = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce(.verbatim("start(), submit() × 3"), log, options: options, {
            worker.start()
            worker.submit(log.job(1, gate: gate, started: firstStarted))
            worker.submit(log.job(2))
            worker.submit(log.job(3))
        }).failure { return failure }
        guard firstStarted.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: firstJobStarting)
        }
        let calls = stops.map { "\($0)()" }.joined(separator: ", ")
        let stopped = returnsAtOnce(Localized("\(calls) while job 1 runs, then submit()", ja: "ジョブ 1 の実行中の \(calls) と、その後の submit()"),
                                    log, options: options) { () -> Bool in
            for stop in stops { log.trace.span("\(stop)()") { stop.call(on: worker) } }
            return worker.submit(log.job(4))
        }
        guard case let .success(accepted) = stopped else {
            gate.signal()
            return stopped.failure
        }
        log.trace.record("submit(job 4) → \(accepted)")
        gate.signal()
        if let failure = joined(worker, log, options: options) { return failure }
        guard log.jobs != [1] || accepted else { return nil }
        let late = log.jobs.filter { $0 != 1 }
        let problem = accepted
            ? Localized("submit after cancel returned true", ja: "cancel の後の submit が true を返した")
            : Localized("jobs \(late) started after cancel() returned", ja: "cancel() が戻った後にジョブ \(late) が始まった")
        let advice: Localized = switch stops {
        case [.shutdown, .cancel]:
            Localized("cancel() must also stop a worker that is already draining after shutdown(): drop the queued jobs in cancel() whatever the state.",
                      ja: "cancel() は、shutdown() の後で残りを処理中のワーカーも止める必要があります。状態にかかわらず、cancel() の中で積まれたジョブを捨てましょう。")
        case [.cancel, .shutdown]:
            Localized("A later shutdown() must not undo cancel(): once cancelled, stay cancelled (and drop the queued jobs in cancel()).",
                      ja: "後から呼ばれた shutdown() が cancel() を取り消してはいけません。一度キャンセルしたらキャンセルのままにしましょう（積まれたジョブは cancel() の中で捨てます）。")
        default:
            Localized("Drop the queued jobs under the lock in cancel().", ja: "cancel() の中で、ロックを持ったまま積まれたジョブを捨てましょう。")
        }
        return CheckFailure(nothingStartsAfterCancel, observed: Localized(
            "Jobs 1, 2, 3 were submitted; while job 1 ran, \(calls) were called, then submit(job 4): \(problem.en). \(advice.en)",
            ja: "ジョブ 1, 2, 3 を投入し、ジョブ 1 の実行中に \(calls) を呼び、続けて submit(ジョブ 4) を呼びました: \(problem.ja)。\(advice.ja)"),
            events: log.trace.events)
    }

    // MARK: 5. join, for everyone

    static func checkJoins(_ worker: any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        let log = Log()
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        if let failure = returnsAtOnce(.verbatim("start(), submit()"), log, options: options, {
            worker.start()
            worker.submit(log.job(1, gate: gate, started: started))
        }).failure { return failure }
        guard started.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: log.trace, options: options, doing: firstJobStarting)
        }
        let joins = [BlockingCall("join() #1", trace: log.trace) { worker.join() },
                     BlockingCall("join() #2", trace: log.trace) { worker.join() }]
        joins.forEach { $0.waitUntilAsleep() }
        if let failure = returnsAtOnce(shutdownWhileJob1Runs, log, options: options, { log.trace.span("shutdown()") { worker.shutdown() } }).failure {
            gate.signal()
            return failure
        }
        // Job 1 still runs, so the worker has not ended. shutdown() has woken the joins (if it
        // broadcast); a broadcast from the check wakes them again, as any other change or a
        // spurious wake-up would. Each must look at the state, see the worker still running,
        // and go back to sleep: the check waits until each is asleep again or has returned.
        let conditions = LearnerConditions(in: worker)
        if !conditions.isEmpty {
            log.trace.record(broadcastFromCheck)
            conditions.broadcast()
        }
        joins.forEach { $0.waitUntilAsleep() }
        if let early = joins.first(where: \.hasReturned) {
            gate.signal()
            log.trace.record(Localized("\(early.label) returned while job 1 still runs", ja: "\(early.label) が戻る（ジョブ 1 は実行中）"))
            return CheckFailure(joinEveryTime, observed: Localized(
                "Two threads called join() while job 1 ran; then shutdown()\(conditions.isEmpty ? "" : " and a broadcast() on your condition"), while job 1 was still running: \(early.label) returned, though the worker had not ended. A wake-up only means \"look again\": wait in `while !finished { condition.wait() }`, not `if`.",
                ja: "ジョブ 1 の実行中に 2 本のスレッドが join() を呼び、ジョブ 1 がまだ動いている間に shutdown()\(conditions.isEmpty ? "" : " と、あなたの条件変数への broadcast()")を行いました: ワーカーはまだ終わっていないのに \(early.label) が戻りました。起こされたことは「もう一度確かめよ」という意味でしかありません。`if` ではなく `while !finished { condition.wait() }` で待ちましょう。"),
                events: traceTail(log.trace.events))
        }
        if let polling = pollingWhileIdle(joins[0].thread, who: Localized("join() #1 waited while job 1 ran", ja: "join() #1 はジョブ 1 の実行中に待っていて")) {
            gate.signal()
            return CheckFailure(sleepsWhileWaiting, observed: Localized(
                "\(polling.en). Wait in `while !finished { condition.wait() }` under the lock, and broadcast when the thread finishes.",
                ja: "\(polling.ja)。ロックを持って `while !finished { condition.wait() }` で待ち、スレッドが終わるときに broadcast しましょう。"),
                events: traceTail(log.trace.events))
        }
        gate.signal()
        let returned = joins.map { $0.waitForReturn(seconds: options.deadlockSeconds) }
        if !returned.contains(true) {
            return .deadlock(trace: log.trace, options: options, doing: Localized(
                "join() from two threads after shutdown() and the last job", ja: "shutdown() と最後のジョブの後、2 本のスレッドからの join()"))
        }
        if returned.contains(false) {
            return CheckFailure(joinEveryTime, observed: Localized(
                "Two threads called join() while job 1 ran; then shutdown(), and job 1 ended. One join() returned, the other was still waiting \(formatSeconds(options.deadlockSeconds).en) later. join() must let every waiting thread through: wait in `while !finished { condition.wait() }` and broadcast when finished.",
                ja: "ジョブ 1 の実行中に 2 本のスレッドが join() を呼び、その後 shutdown() してジョブ 1 が終わりました。join() の 1 つは戻りましたが、もう 1 つは \(formatSeconds(options.deadlockSeconds).ja)後も待ったままでした。join() は待っているすべてのスレッドを通す必要があります。`while !finished { condition.wait() }` で待ち、終わったら broadcast しましょう。"),
                events: traceTail(log.trace.events))
        }
        guard returnsWithin(seconds: options.deadlockSeconds, { log.trace.span(Localized("join() again", ja: "もう一度 join()")) { worker.join() } }) else {
            return CheckFailure(joinEveryTime, observed: Localized(
                "The worker had ended and two join() calls had returned; join() called once more did not return within \(formatSeconds(options.deadlockSeconds).en). A join after the end must return at once: look at a finished flag instead of waiting for a signal that came earlier.",
                ja: "ワーカーは終わり、2 つの join() も戻っていました。もう一度 join() を呼ぶと、\(formatSeconds(options.deadlockSeconds).ja)以内に戻りませんでした。終了後の join はすぐに戻る必要があります。過去に一度だけ来た合図を待つのではなく、終了フラグを見ましょう。"),
                events: traceTail(log.trace.events))
        }
        if !worker.isFinished {
            return CheckFailure(finishedAfterWork, observed: Localized(
                "Three join() calls had returned, but isFinished was false.",
                ja: "3 回の join() が戻った後なのに、isFinished が false でした。"), events: traceTail(log.trace.events))
        }
        return nil
    }

    // MARK: 6. Data races

    /// Every method from two threads in turn, while the worker's thread runs; with TSan on, an
    /// unguarded access stops the run here.
    ///
    /// How the steps are arranged, and why (each point was measured: without it, a read of the
    /// finished flag outside the lock went unreported in some or all runs):
    /// - One thread shuts the worker down; a third thread waits until the worker's thread has
    ///   ended (it wrote its finished flag as its last act); only then does the other thread read
    ///   `isFinished`. Nothing orders that read after the worker's write unless the answer's lock
    ///   does. TSan keeps only the last four accesses to each 8 bytes, and any access to the flags
    ///   next to `finished` in between (a `join` waking up, the worker still looping) could push
    ///   the write out; with the worker gone and nobody else touching the worker, none comes.
    /// - The reading thread touched that worker only once before (a `submit`), so its read is a
    ///   new access, not one TSan folds into an earlier one of the same thread.
    /// - The probe threads record nothing while they take turns: TSan's ignore annotations
    ///   (which the trace uses) around the racing calls hid the race in every run.
    static func probeRaces(_ make: @escaping @Sendable () -> any WorkerProtocol, options: CheckOptions) -> CheckFailure? {
        // Warm up on this thread first: the first call of a generic function fills the Swift
        // runtime's caches under its own locks, and a lock both probe threads take would order
        // their calls for TSan and hide the race.
        let warm = make()
        guard returnsWithin(seconds: options.deadlockSeconds, {
            warm.start(); warm.submit {}; _ = warm.isFinished; warm.shutdown(); warm.join(); warm.cancel(); warm.submit {}
        }) else {
            return .deadlock(trace: Trace(), options: options, doing: Localized(
                "start, submit, isFinished, shutdown, join, cancel, submit on one thread", ja: "1 本のスレッドでの start・submit・isFinished・shutdown・join・cancel・submit"))
        }
        var calls: [(thread: Int, label: Localized, body: @Sendable () -> Void)] = []
        for _ in 0..<probeRounds {
            let drained = make(), cancelled = make()
            let drainedThread = Locked<ThreadEndWatch?>(nil), cancelledThread = Locked<ThreadEndWatch?>(nil)
            let threadEnds = Localized("(the worker's thread ends)", ja: "（ワーカーのスレッドの終了）")
            let submitAfterEnd = Localized("submit(job) after the end", ja: "終了後の submit(job)")
            let round: [(thread: Int, label: Localized, body: @Sendable () -> Void)] = [
                (0, .verbatim("start()"), { drained.start() }),
                (1, .verbatim("submit(job)"), { drained.submit { drainedThread.withLock { $0 = ThreadEndWatch.current() } } }),
                (0, .verbatim("submit(job)"), { drained.submit {} }),
                (0, .verbatim("shutdown()"), { drained.shutdown() }),
                (2, threadEnds, { waitForEnd(of: drainedThread) }),
                (1, .verbatim("isFinished"), { _ = drained.isFinished }),
                (0, .verbatim("join()"), { drained.join() }),
                (0, submitAfterEnd, { drained.submit {} }),
                (1, Localized("start() (a second worker)", ja: "start()（2 つ目のワーカー）"), { cancelled.start() }),
                (0, .verbatim("submit(job)"), { cancelled.submit { cancelledThread.withLock { $0 = ThreadEndWatch.current() } } }),
                (1, .verbatim("submit(job)"), { cancelled.submit {} }),
                (2, Localized("(the first job has run)", ja: "（最初のジョブの実行後）"), { waitForFirstJob(of: cancelledThread) }),
                (1, .verbatim("cancel()"), { cancelled.cancel() }),
                (1, .verbatim("shutdown()"), { cancelled.shutdown() }),
                (2, threadEnds, { waitForEnd(of: cancelledThread) }),
                (0, .verbatim("isFinished"), { _ = cancelled.isFinished }),
                (1, .verbatim("join()"), { cancelled.join() }),
                (1, submitAfterEnd, { cancelled.submit {} }),
            ]
            calls += round
        }
        let stuck = runInTurns(threads: 3, deadlineSeconds: options.deadlockSeconds, steps: calls.map { ($0.thread, $0.body) })
        guard let stuck else { return nil }
        let trace = Trace()
        for call in calls[...stuck] where call.thread < 2 { trace.record(call.label, lane: "T\(call.thread + 1)") }
        return .deadlock(trace: trace, options: options, doing: calls[stuck].label)
    }

    /// Waits (at most 2 s) until the worker's first job has recorded its thread.
    static func waitForFirstJob(of thread: Locked<ThreadEndWatch?>) {
        let deadline = MonotonicClock.now() + 2_000_000_000
        while thread.current == nil && MonotonicClock.now() < deadline { usleep(200) }
    }

    /// Waits (at most 2 s each) until the worker's thread, recorded by its first job, has ended.
    static func waitForEnd(of thread: Locked<ThreadEndWatch?>) {
        waitForFirstJob(of: thread)
        _ = thread.current?.waitForEnd(seconds: 2)
    }
}

private extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
