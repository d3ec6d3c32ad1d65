import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 02-operations/AsyncOperation. The work hands its `done` callback to the check,
/// so "the work has not finished yet" is a fact the check controls, not a matter of timing.
///
/// 0. The life of one operation, called from two threads in turns (`runInTurns`): thread 1 reads
///    the flags, thread 0 calls `start()`, thread 1 reads them while the work is out and then
///    calls `done`, thread 0 reads them, thread 1 calls `done` again, thread 0 reads; then a
///    second operation is cancelled and started on thread 0 while thread 1 reads its flags.
///    Nothing of the check orders those calls for ThreadSanitizer (the hand-over of `done` runs
///    quietly) except the edge a real callback API gives: what `start()` did before handing
///    out the work happens before `done` is called. So a flag read or written outside the
///    lock is a `data-race`, every run. What each step saw is judged afterwards: the work ran
///    once; nothing counted as finished before `done`; the flags read right; Foundation
///    recorded what the notifications told it (on Linux its own record of the operation, on
///    Darwin the key-value notifications themselves); a second `done` changed nothing;
///    cancelled before start, the work never ran and the operation still finished.
/// 1. On a queue: B depends on A; while A's work is held, B must not start (a load-adaptive
///    window); after `done`, B must start.
/// 2. The work calls `done` at once, inside `start()`: once `start()` (and `done`) have
///    returned, the operation is finished and not executing, and Foundation knows it.
/// 3. Cancelled before it is queued, and cancelled while it waits for a dependency: the work
///    never runs, and the operation finishes (the queue drains, `waitUntilFinished` returns).
/// 4. Under load: 100 chains of three, each finishing from another thread.
///
/// Where Foundation orders things for ThreadSanitizer, and where it does not. A queue hands an
/// operation to its thread through Dispatch, so what came before `addOperation` happens before
/// `start()`. `didChangeValue(forKey:)` runs Foundation's bookkeeping under the operation's own
/// locks and reads `isFinished`/`isExecuting` right there, on the notifying thread. `cancel()`
/// and `isCancelled` go through Foundation's lock. And on Linux every operation a queue starts
/// touches one of Foundation's lazily initialized statics, whose `swift_once` lock (with TSan
/// on) orders operations a queue runs one after another. None of that orders a read of the
/// flags on some other thread against the write in `start()` or `finish()` — only the answer's
/// own lock does. So step 0 calls `start()`, the getters and `done` by hand on two plain
/// threads (no queue), and adds only the edge a callback API gives: the request made in
/// `start()` reaches the thread that calls `done`.
public enum AsyncOperationCheck {
    public static let dependantWaits = Property(
        id: "dependant-started-early",
        name: Localized("dependants start only after the work is done", ja: "依存するオペレーションは処理が終わってから始まる"),
        rule: Localized("An operation that depends on this one starts only after `done` is called.",
                        ja: "このオペレーションに依存するオペレーションは、`done` が呼ばれた後にだけ始まる。"))
    public static let dependantStarts = Property(
        id: "never-finished",
        name: Localized("the queue learns it finished", ja: "キューが終了を知る"),
        rule: Localized("After `done`, the operation is finished and its dependants start.",
                        ja: "`done` の後、オペレーションは終了し、依存するオペレーションが始まる。"))
    public static let stateReadsRight = Property(
        id: "wrong-state",
        name: Localized("isAsynchronous, isExecuting and isFinished read right", ja: "isAsynchronous・isExecuting・isFinished が正しい値を返す"),
        rule: Localized("Asynchronous; executing and not finished while the work runs; finished and not executing after done.",
                        ja: "isAsynchronous は true。処理の間は executing で finished ではなく、done の後は finished で executing ではない。"))
    public static let changesAnnounced = Property(
        id: "not-announced",
        name: Localized("every change of isExecuting and isFinished is announced", ja: "isExecuting と isFinished の変化はすべて通知される"),
        rule: Localized("Each change of isExecuting and isFinished is wrapped in willChangeValue(forKey:) before and didChangeValue(forKey:) after it.",
                        ja: "isExecuting と isFinished の変化は、前に willChangeValue(forKey:)、後に didChangeValue(forKey:) で囲まれる。"))
    public static let finishesOnce = Property(
        id: "finish-twice",
        name: Localized("a second done() changes nothing", ja: "2 回目の done() は何も変えない"),
        rule: Localized("When done is called again, the operation stays finished and not executing, and nothing is announced again.",
                        ja: "done がもう一度呼ばれても、オペレーションは finished で executing ではないままで、何も再び通知されない。"))
    public static let announcesUnlocked = Property(
        id: "lock-across-announcement",
        name: Localized("didChangeValue is called with the lock released", ja: "didChangeValue はロックを放してから呼ぶ"),
        rule: Localized("While finish() announces isFinished, another thread can read isFinished: the lock the getters take is not held across willChangeValue/didChangeValue.",
                        ja: "finish() が isFinished を通知している間も、別のスレッドは isFinished を読める。ゲッターが取るロックを willChangeValue/didChangeValue の間持ち続けない。"))
    public static let runsTheWork = Property(
        id: "work-skipped",
        name: Localized("the work runs once, when started", ja: "開始されると処理がちょうど 1 回実行される"),
        rule: Localized("Started and not cancelled, the operation calls its work exactly once and finishes only through done.",
                        ja: "キャンセルされずに開始されたオペレーションは、処理をちょうど 1 回呼び、done によってだけ終了する。"))
    public static let cancelledSkipsWork = Property(
        id: "ran-when-cancelled",
        name: Localized("cancelled before start: no work, still finishes", ja: "開始前のキャンセル: 処理をせず、終了はする"),
        rule: Localized("An operation cancelled before it starts never runs its work, and finishes.",
                        ja: "開始前にキャンセルされたオペレーションは処理を実行せず、終了する。"))
    public static let properties = [dependantWaits, dependantStarts, stateReadsRight, changesAnnounced, announcesUnlocked,
                                    finishesOnce, runsTheWork, cancelledSkipsWork, Property.finishes]

    /// The probe of `announcesUnlocked` needs to run inside the answer's `didChangeValue`.
    public static let platformProbes = [
        PlatformProbe("lock-across-announcement", Localized(
            "a read of isFinished from another thread while finish() announces it (a lock held across didChangeValue)",
            ja: "finish() が isFinished を通知している最中の、別スレッドからの isFinished の読み取り（didChangeValue の間持ち続けたロック）"),
            needs: [.operationAnnouncements]),
        PlatformProbe("finish-twice-announced", Localized(
            "the announcements of a second done() (finish() announcing isFinished again)",
            ja: "2 回目の done() の通知（finish() が isFinished をもう一度通知する）"),
            needs: [.operationAnnouncements]),
    ]

    public typealias Make = @Sendable (_ work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) -> Operation

    public static func run(_ make: @escaping Make, options: CheckOptions = .init()) -> CheckResult {
        let failure: CheckFailure?
        switch lifeInTurns(make, options: options) {
        case let .failure(stuck):
            failure = stuck
        case let .success(seen):
            failure = judge(seen)
                ?? checkDependant(make, options: options)
                ?? checkDoneInsideStart(make, options: options)
                ?? checkCancelledBeforeStart(make, options: options)
                ?? checkCancelledWhileWaiting(make, options: options)
                ?? stress(make, options: options)
        }
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: 0. One operation's life, in turns

    /// The flags as one read saw them.
    struct Flags: Sendable, CustomStringConvertible {
        var asynchronous: Bool? = nil
        var executing: Bool
        var finished: Bool
        var description: String { "isExecuting=\(executing), isFinished=\(finished)" }
    }

    /// What the steps of `lifeInTurns` saw.
    struct Seen: Sendable {
        var workCallsAfterStart = 0
        var workCallsWhileRunning = 0
        var recordAfterStart: String?
        var whileRunning: Flags?
        var afterDone: Flags?
        var recordAfterDone: String?
        var afterSecondDone: Flags?
        var announcementsAfterSecondDone: [AnnouncementLog.Entry]?
        var announcements: [AnnouncementLog.Entry]?
        var announcementsAfterDone: [AnnouncementLog.Entry]?
        /// Whether a read of isFinished from another thread, made while the answer announced
        /// isFinished, was still blocked after `announcementProbeSeconds`; nil if not probed.
        var blockedDuringAnnouncement: Bool?
        var cancelledWorkCalls = 0
        var cancelledFlags: Flags?
        var events: [Trace.Event] = []
    }

    /// Step 0: the whole life of an operation from two threads in turns. Fails only for a step
    /// that does not return (a deadlock); a data race stops the run inside, through TSan.
    static func lifeInTurns(_ make: @escaping Make, options: CheckOptions) -> Result<Seen, CheckFailure> {
        // Warm up on this thread first: the first call of each method fills the Swift runtime's
        // caches under its own locks, and a lock both probe threads take would order their
        // calls for TSan and hide the race.
        guard returnsWithin(seconds: options.deadlockSeconds, { warmUp(make) }) else {
            return .failure(.deadlock(trace: Trace(), options: options, doing: Localized(
                "start(), done(), cancel() and the flags of one operation", ja: "1 つのオペレーションの start()・done()・cancel() とフラグ")))
        }
        let trace = Trace()
        let token = HappensBeforeToken()
        let held = QuietState<(calls: Int, done: (@Sendable () -> Void)?)>((0, nil))
        let operation = make { done in
            held.update { $0.calls += 1; $0.done = done }
            trace.record(Localized("work called", ja: "処理が呼ばれる"), lane: Localized("work", ja: "処理"))
            // A real callback API carries the request to the thread that answers it.
            RaceDetector.happensBefore(token)
        }
        let probed = QuietState<Bool?>(nil)
        let log = AnnouncementLog(operation) { operation in
            // Inside the answer's first didChangeValue(forKey: "isFinished"), on its thread: can
            // another thread read isFinished now? `waitUntilFinished()` does exactly that while it
            // holds Foundation's lock, the one this announcement takes next.
            let first = probed.update { state -> Bool in
                guard state == nil else { return false }
                state = false
                return true
            }
            guard first else { return }
            let returned = returnsWithin(seconds: announcementProbeSeconds) { _ = operation.isFinished }
            probed.update { $0 = !returned }
            trace.record(Localized(returned ? "isFinished read from another thread during didChangeValue(isFinished)"
                                            : "isFinished from another thread blocked during didChangeValue(isFinished)",
                                   ja: returned ? "didChangeValue(isFinished) の最中に別スレッドから isFinished を読めた"
                                                : "didChangeValue(isFinished) の最中、別スレッドの isFinished の読み取りが止まった"),
                         lane: Localized("probe", ja: "プローブ"))
        }
        let cancelledCalls = QuietState(0)
        let cancelled = make { done in
            cancelledCalls.update { $0 += 1 }
            done()
        }
        let seen = QuietState(Seen())
        @Sendable func flags(of operation: Operation, asynchronous: Bool = false) -> Flags {
            // The learner's getters, called from the probe thread: not quiet.
            let executing = operation.isExecuting
            let finished = operation.isFinished
            return Flags(asynchronous: asynchronous ? operation.isAsynchronous : nil, executing: executing, finished: finished)
        }
        let seconds = options.deadlockSeconds
        let steps: [(thread: Int, label: Localized, body: @Sendable () -> Void)] = [
            (1, .verbatim("isExecuting, isFinished"), { _ = flags(of: operation) }),
            (0, .verbatim("start()"), {
                operation.start()
                seen.update { $0.workCallsAfterStart = held.current.calls }
            }),
            (1, .verbatim("isAsynchronous, isExecuting, isFinished"), {
                // The work may have been handed to another thread: give it a moment, unless
                // Foundation already counts the operation as finished (it skipped the work).
                let deadline = Date(timeIntervalSinceNow: min(seconds / 4, 1))
                while held.current.calls == 0, !FoundationRecord.finished(FoundationRecord.state(of: operation)), Date() < deadline {
                    held.wait(seconds: 0.01) { $0.calls > 0 }
                }
                let now = flags(of: operation, asynchronous: true)
                // What Foundation was told by now (start() may have handed its announcement to
                // another thread, together with the work).
                let record = FoundationRecord.state(of: operation)
                seen.update {
                    $0.whileRunning = now
                    $0.workCallsWhileRunning = held.current.calls
                    $0.recordAfterStart = record
                    $0.announcements = log.entries
                }
            }),
            (0, .verbatim("isExecuting, isFinished"), { _ = flags(of: operation) }),
            (1, .verbatim("done()"), {
                guard let done = held.current.done else { return }
                RaceDetector.happensAfter(token)
                done()
            }),
            (0, .verbatim("isExecuting, isFinished"), {
                let now = flags(of: operation)
                let record = FoundationRecord.state(of: operation)
                seen.update {
                    $0.afterDone = now
                    $0.recordAfterDone = record
                    $0.announcementsAfterDone = log.entries
                    $0.blockedDuringAnnouncement = probed.current
                }
            }),
            (1, Localized("done() again", ja: "もう一度 done()"), { held.current.done?() }),
            (0, .verbatim("isExecuting, isFinished"), {
                let now = flags(of: operation)
                seen.update {
                    $0.afterSecondDone = now
                    $0.announcementsAfterSecondDone = log.entries
                }
            }),
            (1, Localized("isExecuting, isFinished (a second operation)", ja: "isExecuting, isFinished（2 つ目）"), { _ = flags(of: cancelled) }),
            (0, Localized("cancel(), then start()", ja: "cancel() の後 start()"), {
                cancelled.cancel()
                cancelled.start()
            }),
            (1, Localized("isExecuting, isFinished (the cancelled one)", ja: "isExecuting, isFinished（キャンセル済み）"), {
                let now = flags(of: cancelled)
                seen.update {
                    $0.cancelledFlags = now
                    $0.cancelledWorkCalls = cancelledCalls.current
                }
            }),
        ]
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: steps.map { step in
            (step.thread, { trace.span(step.label, lane: "T\(step.thread)") { step.body() } })
        })
        withExtendedLifetime((operation, cancelled, log)) {}
        if let stuck {
            let step = steps[stuck]
            return .failure(.deadlock(trace: trace, options: options, doing: Localized(
                "\(step.label.en) (thread \(step.thread))", ja: "\(step.label.ja)（スレッド \(step.thread)）")))
        }
        var result = seen.current
        result.events = trace.events
        return .success(result)
    }

    /// How long a read of isFinished may take, during the answer's announcement, before it
    /// counts as blocked: far longer than a read under an uncontended lock takes on a loaded
    /// machine; a read that waits for the lock the announcing thread holds never ends before it.
    static let announcementProbeSeconds = 1.0

    /// The same calls as `lifeInTurns`, on this thread, on throwaway operations.
    static func warmUp(_ make: @escaping Make) {
        let held = QuietState<(@Sendable () -> Void)?>(nil)
        let operation = make { done in held.update { $0 = done } }
        let log = AnnouncementLog(operation)
        _ = (operation.isAsynchronous, operation.isExecuting, operation.isFinished)
        operation.start()
        _ = FoundationRecord.state(of: operation)
        held.wait(seconds: 2) { $0 != nil }
        _ = (operation.isExecuting, operation.isFinished)
        held.current?()
        held.current?()
        _ = (operation.isExecuting, operation.isFinished, log.entries)
        let cancelled = make { done in done() }
        cancelled.cancel()
        cancelled.start()
        _ = (cancelled.isExecuting, cancelled.isFinished)
        withExtendedLifetime((operation, cancelled, log)) {}
    }

    /// Judges what the steps of `lifeInTurns` saw, the harm a queue would suffer first.
    static func judge(_ seen: Seen) -> CheckFailure? {
        let events = seen.events
        let calls = seen.workCallsWhileRunning
        if calls == 0 {
            let finished = seen.whileRunning?.finished == true || FoundationRecord.finished(seen.recordAfterStart)
            return CheckFailure(runsTheWork, observed: Localized(
                "start() returned and the work was never called\(finished ? ", yet the operation already counted as finished" : "") — its dependants would go on without it. In start(), unless cancelled, become executing and call execute().",
                ja: "start() が戻っても処理は一度も呼ばれませんでした\(finished ? "。それなのにオペレーションはすでに終了扱いです" : "")。依存するオペレーションはそれを待たずに進んでしまいます。start() では、キャンセルされていなければ executing になってから execute() を呼びましょう。"),
                events: events)
        }
        if calls > 1 {
            return CheckFailure(runsTheWork, observed: Localized(
                "start() called the work \(calls) times; it must run once. Call execute() once, from start() only (main() is not used by an asynchronous operation).",
                ja: "start() は処理を \(calls) 回呼びました。1 回だけ実行されるべきです。execute() は start() から 1 回だけ呼びましょう（非同期オペレーションでは main() は使いません）。"),
                events: events)
        }
        if let running = seen.whileRunning, running.finished || FoundationRecord.finished(seen.recordAfterStart) {
            let record = seen.recordAfterStart.map { " (Foundation's own record: \($0))" } ?? ""
            let recordJa = seen.recordAfterStart.map { "（Foundation 自身の記録: \($0)）" } ?? ""
            return CheckFailure(dependantWaits, observed: Localized(
                "start() returned with the work still out (done not called yet), and the operation already counted as finished: \(running)\(record). A queue would start its dependants now. That is what a plain main() does — finished when main returns; override start(), isAsynchronous, isExecuting and isFinished instead.",
                ja: "処理がまだ終わっていない（done 未呼び出し）のに start() が戻った時点で、オペレーションはすでに終了扱いでした: \(running)\(recordJa)。キューはここで依存するオペレーションを始めてしまいます。素の main() はこうなります（main が戻ると終了）。代わりに start()・isAsynchronous・isExecuting・isFinished をオーバーライドしましょう。"),
                events: events)
        }
        if let running = seen.whileRunning, running.asynchronous != true || !running.executing {
            return CheckFailure(stateReadsRight, observed: Localized(
                "While the work ran (start() had returned, done not called yet), another thread read isAsynchronous=\(running.asynchronous.map(String.init) ?? "?"), \(running); expected isAsynchronous=true, isExecuting=true, isFinished=false.",
                ja: "処理の実行中（start() は戻り、done はまだ）に別のスレッドから読むと isAsynchronous=\(running.asynchronous.map(String.init) ?? "?")、\(running) でした。期待値は isAsynchronous=true、isExecuting=true、isFinished=false です。"),
                events: events)
        }
        if let failure = judgeFinished(seen) { return failure }
        if let failure = judgeAnnouncements(seen) { return failure }
        if seen.blockedDuringAnnouncement == true {
            return CheckFailure(announcesUnlocked, observed: Localized(
                "While finish() was inside didChangeValue(forKey: \"isFinished\"), a read of isFinished from another thread was still blocked after \(announcementProbeSeconds) s: your code holds the lock its getters take across the announcement. Observers run inside didChangeValue and take locks of their own: on Linux, Foundation's waitUntilFinished() reads isFinished while it holds the lock that didChangeValue(forKey: \"isFinished\") takes next. Let both meet and each thread waits for the other for ever: the queue's waiter holds Foundation's lock and wants yours; finish() holds yours and wants Foundation's. Change the flags under the lock, unlock, then announce (willChangeValue before the lock, didChangeValue after the unlock).",
                ja: "finish() が didChangeValue(forKey: \"isFinished\") の中にいる間、別のスレッドからの isFinished の読み取りは \(announcementProbeSeconds) 秒たっても止まったままでした。ゲッターが取るロックを、通知の間も持ち続けています。監視する側は didChangeValue の中で動き、自分のロックを取ります。Linux では、Foundation の waitUntilFinished() が、didChangeValue(forKey: \"isFinished\") が次に取るロックを持ったまま isFinished を読みます。2 つが出会うと、互いに相手を永久に待ちます。キューの待ち手は Foundation のロックを持ってあなたのロックを待ち、finish() はあなたのロックを持って Foundation のロックを待ちます。フラグはロックの下で変え、アンロックしてから通知しましょう（willChangeValue はロックの前、didChangeValue はアンロックの後）。"),
                events: events)
        }
        if let again = seen.afterSecondDone, again.executing || !again.finished {
            return CheckFailure(finishesOnce, observed: Localized(
                "done was called a second time, and the operation changed: now \(again) (after the first done: \(seen.afterDone.map(String.init(describing:)) ?? "?")). finish() must do nothing the second time: remember under the lock that it ran, and return.",
                ja: "done を 2 回目に呼ぶとオペレーションの状態が変わりました: 今は \(again)（1 回目の done の後: \(seen.afterDone.map(String.init(describing:)) ?? "?")）。2 回目の finish() は何もしてはいけません。実行済みであることをロックの下で覚えておき、すぐ戻りましょう。"),
                events: events)
        }
        if let entries = seen.announcementsAfterSecondDone {
            // Where announcements are seen: the second done must not announce anything again.
            let finishedDids = entries.filter { $0.key == "isFinished" && !$0.prior }.count
            if finishedDids > 1 {
                return CheckFailure(finishesOnce, observed: Localized(
                    "done was called twice and isFinished was announced \(finishedDids) times (\(entries.map(\.description).joined(separator: ", "))). finish() must do nothing the second time.",
                    ja: "done を 2 回呼ぶと isFinished が \(finishedDids) 回通知されました（\(entries.map(\.description).joined(separator: ", "))）。2 回目の finish() は何もしてはいけません。"),
                    events: events)
            }
        }
        if seen.cancelledWorkCalls > 0 {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "An operation was cancelled and then started; its work ran anyway (\(seen.cancelledWorkCalls) time(s)). In start(), check isCancelled first and, if set, finish() without calling execute().",
                ja: "キャンセルしてから開始したオペレーションの処理が実行されました（\(seen.cancelledWorkCalls) 回）。start() で最初に isCancelled を確認し、true なら execute() を呼ばずに finish() しましょう。"),
                events: events)
        }
        if let flags = seen.cancelledFlags, flags.executing || !flags.finished {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "An operation was cancelled and then started; start() returned and it reads \(flags): it never finished, so a queue holding it would never drain. A cancelled operation still has to finish(), announced like any other.",
                ja: "キャンセルしてから開始したオペレーションは、start() が戻った後 \(flags) でした。終了していないので、それを持つキューは空になりません。キャンセルされたオペレーションも、通知付きで finish() する必要があります。"),
                events: events)
        }
        return nil
    }

    /// After `done`: finished, not executing, and Foundation was told.
    static func judgeFinished(_ seen: Seen) -> CheckFailure? {
        let events = seen.events
        if let record = seen.recordAfterDone, !FoundationRecord.finished(record) {
            return CheckFailure(dependantStarts, observed: Localized(
                "done was called and the operation then read \(seen.afterDone.map(String.init(describing:)) ?? "?"), but Foundation never learned it finished: its own record of the operation still says \"\(record)\", so a queue would never start the dependants. Foundation reads isFinished when you call didChangeValue(forKey: \"isFinished\") — after the flag has changed, with willChangeValue(forKey: \"isFinished\") before.",
                ja: "done が呼ばれ、その後の状態は \(seen.afterDone.map(String.init(describing:)) ?? "?") でしたが、Foundation は終了を知りませんでした。Foundation 自身の記録はまだ \"\(record)\" のままで、キューは依存するオペレーションをいつまでも始めません。Foundation が isFinished を読むのは didChangeValue(forKey: \"isFinished\") が呼ばれたときです。フラグを変えた後に呼び、変える前に willChangeValue(forKey: \"isFinished\") を呼びましょう。"),
                events: events)
        }
        if let entries = seen.announcementsAfterDone, !entries.contains(where: { $0.key == "isFinished" && !$0.prior && $0.value == true }) {
            return CheckFailure(dependantStarts, observed: Localized(
                "done was called, but no didChangeValue(forKey: \"isFinished\") announced isFinished=true (notifications seen: \(entries.map(\.description).joined(separator: ", "))), so a queue never starts the dependants.",
                ja: "done が呼ばれましたが、isFinished=true を知らせる didChangeValue(forKey: \"isFinished\") がありませんでした（見えた通知: \(entries.map(\.description).joined(separator: ", "))）。キューは依存するオペレーションを始めません。"),
                events: events)
        }
        if let after = seen.afterDone, after.executing || !after.finished {
            return CheckFailure(stateReadsRight, observed: Localized(
                "After done, another thread read \(after); expected isExecuting=false, isFinished=true.",
                ja: "done の後、別のスレッドから読むと \(after) でした。期待値は isExecuting=false、isFinished=true です。"),
                events: events)
        }
        return nil
    }

    /// isExecuting (and, on Darwin, every change) announced with will/did around the change.
    static func judgeAnnouncements(_ seen: Seen) -> CheckFailure? {
        let events = seen.events
        if let record = seen.recordAfterStart, record != "executing" {
            return CheckFailure(changesAnnounced, observed: Localized(
                "After start() returned, isExecuting read true, but Foundation was never told: its own record of the operation still says \"\(record)\" instead of \"executing\". Queues and observers learn of the change only through didChangeValue(forKey: \"isExecuting\") after it (with willChangeValue(forKey: \"isExecuting\") before).",
                ja: "start() が戻った後 isExecuting は true でしたが、Foundation には知らされていません。Foundation 自身の記録は \"executing\" ではなく \"\(record)\" のままです。キューや監視者がこの変化を知るのは、変えた後の didChangeValue(forKey: \"isExecuting\")（変える前に willChangeValue(forKey: \"isExecuting\")）だけです。"),
                events: events)
        }
        if let entries = seen.announcements {
            // Darwin: the notifications themselves, in order.
            if !entries.contains(where: { $0.key == "isExecuting" && !$0.prior && $0.value == true }) {
                return CheckFailure(changesAnnounced, observed: Localized(
                    "start() made isExecuting true without announcing it (notifications seen: \(entries.map(\.description).joined(separator: ", ")); expected willChangeValue(isExecuting), didChangeValue(isExecuting)=true).",
                    ja: "start() は isExecuting を true にしましたが通知しませんでした（見えた通知: \(entries.map(\.description).joined(separator: ", "))。期待値は willChangeValue(isExecuting)、didChangeValue(isExecuting)=true）。"),
                    events: events)
            }
            let all = seen.announcementsAfterSecondDone ?? entries
            if let lonely = AnnouncementLog.unpairedDid(all) {
                return CheckFailure(changesAnnounced, observed: Localized(
                    "\(lonely) came without a willChangeValue for the same key before it (notifications seen: \(all.map(\.description).joined(separator: ", "))). Call willChangeValue(forKey:) before each change and didChangeValue(forKey:) after it.",
                    ja: "\(lonely) の前に同じキーの willChangeValue がありませんでした（見えた通知: \(all.map(\.description).joined(separator: ", "))）。変化の前に willChangeValue(forKey:)、後に didChangeValue(forKey:) を呼びましょう。"),
                    events: events)
            }
        }
        return nil
    }

    // MARK: 1. A dependant on a queue

    /// A's work on the trace, from the call until `done`.
    static let aWork = Localized("A: work", ja: "A: 処理")
    /// The lane of what the check itself does.
    static let checkLane = Localized("check", ja: "チェック")
    static let aWorkStarting = Localized("A's work to start after the queue got A", ja: "キューが A を受け取った後の A の処理の開始")

    static func checkDependant(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let state = QuietState<(calls: Int, done: (@Sendable () -> Void)?, bStarted: Bool)>((0, nil, false))
        let a = make { done in
            trace.begin(aWork, lane: "A")
            state.update { $0.calls += 1; $0.done = done }
        }
        let b = BlockOperation {
            trace.record(Localized("B starts", ja: "B が始まる"), lane: "B")
            state.update { $0.bStarted = true }
        }
        b.addDependency(a)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        queue.addOperations([a, b], waitUntilFinished: false)
        defer { withExtendedLifetime((a, b)) {} }
        guard state.wait(seconds: options.deadlockSeconds, until: { $0.calls > 0 || $0.bStarted }) else {
            return .deadlock(trace: trace, options: options, doing: aWorkStarting)
        }
        observationWindow()
        let now = state.current
        if now.bStarted {
            release(now.done, trace: trace)
            return CheckFailure(now.calls == 0 ? runsTheWork : dependantWaits, observed: now.calls == 0 ? Localized(
                "On a queue, B depends on A. A's work was never called, and B started: A counted as finished without doing its work.",
                ja: "キュー上で B は A に依存しています。A の処理は一度も呼ばれず、B が始まりました。A は処理をせずに終了扱いになっています。") : Localized(
                "B depends on A. A's work had started but not called done, and B started anyway: the queue thought A was finished. That is what a plain `main()` does — it is finished when main returns. Override `start()`, `isAsynchronous`, `isExecuting` and `isFinished` instead.",
                ja: "B は A に依存しています。A の処理は始まったものの done を呼んでいないのに、B が始まりました。キューは A が終わったと判断しています。素の `main()` はこうなります（main が戻った時点で終了）。代わりに `start()`・`isAsynchronous`・`isExecuting`・`isFinished` をオーバーライドしましょう。"),
                events: trace.events)
        }
        release(now.done, trace: trace)
        let waitSeconds = min(options.deadlockSeconds, 2)
        guard state.wait(seconds: waitSeconds, until: { $0.bStarted }) else {
            trace.record(Localized("B never started", ja: "B は始まらない"), lane: "B")
            return CheckFailure(dependantStarts, observed: Localized(
                "A's work called done, but B — which depends on A — never started (waited \(formatSeconds(waitSeconds).en)); A reads isFinished=\(a.isFinished). The queue only learns that A finished from key-value notifications: wrap every change of isFinished (and isExecuting) in willChangeValue(forKey: \"isFinished\") / didChangeValue(forKey: \"isFinished\").",
                ja: "A の処理は done を呼びましたが、A に依存する B が始まりませんでした（\(formatSeconds(waitSeconds).ja)待機）。A の isFinished は \(a.isFinished) です。キューが A の終了を知る手段は KVO 通知だけです。isFinished（と isExecuting）の変更をすべて willChangeValue(forKey: \"isFinished\") / didChangeValue(forKey: \"isFinished\") で囲みましょう。"),
                events: trace.events)
        }
        return nil
    }

    /// Calls a held `done` (the reply of the fake work) on this thread.
    static func release(_ done: (@Sendable () -> Void)?, trace: Trace) {
        guard let done else { return }
        trace.end(aWork, lane: "A")
        trace.record("A: done()", lane: "A")
        done()
    }

    // MARK: 2. done inside start()

    static func checkDoneInsideStart(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let doneReturned = QuietState(false)
        let a = make { done in
            trace.record(Localized("A: work calls done() at once", ja: "A: 処理がすぐ done() を呼ぶ"), lane: "A")
            done()
            doneReturned.update { $0 = true }
        }
        defer { withExtendedLifetime(a) {} }
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span(.verbatim("A.start()"), lane: checkLane) { a.start() } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "start() of an operation whose work calls done at once", ja: "処理がすぐ done を呼ぶオペレーションの start()"))
        }
        // start() may have handed the work to another thread: wait until done has returned there.
        guard doneReturned.wait(seconds: options.deadlockSeconds, until: { $0 }) else {
            return CheckFailure(runsTheWork, observed: Localized(
                "start() returned, and the work was never called (waited \(formatSeconds(options.deadlockSeconds).en)).",
                ja: "start() は戻りましたが、処理は一度も呼ばれませんでした（\(formatSeconds(options.deadlockSeconds).ja)待機）。"),
                events: trace.events)
        }
        let flags = Flags(executing: a.isExecuting, finished: a.isFinished)
        let record = FoundationRecord.state(of: a)
        if flags.executing || !flags.finished {
            return CheckFailure(stateReadsRight, observed: Localized(
                "A's work called done at once, inside start(); after start() returned, A reads \(flags); expected isExecuting=false, isFinished=true. Set executing (announced) before calling execute(), not after: the work may finish before execute() returns.",
                ja: "A の処理は start() の中ですぐ done を呼びました。start() が戻った後、A は \(flags) でした。期待値は isExecuting=false、isFinished=true です。executing は execute() を呼ぶ前に（通知付きで）設定しましょう。後ではいけません。処理は execute() が戻る前に終わることがあります。"),
                events: trace.events)
        }
        if let record, !FoundationRecord.finished(record) {
            return CheckFailure(dependantStarts, observed: Localized(
                "A's work called done at once, inside start(); A reads \(flags), but Foundation never learned it finished: its own record still says \"\(record)\", so a queue would never start A's dependants. Announce the change with didChangeValue(forKey: \"isFinished\") after setting the flag.",
                ja: "A の処理は start() の中ですぐ done を呼びました。A は \(flags) ですが、Foundation は終了を知りません。Foundation 自身の記録は \"\(record)\" のままで、キューは A に依存するオペレーションを始めません。フラグを変えた後に didChangeValue(forKey: \"isFinished\") で通知しましょう。"),
                events: trace.events)
        }
        return nil
    }

    // MARK: 3. Cancelled before it starts

    static func checkCancelledBeforeStart(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let workRan = QuietState(false)
        let a = make { done in
            workRan.update { $0 = true }
            trace.record(Localized("A: work runs", ja: "A: 処理を実行"), lane: "A")
            done()
        }
        a.cancel()
        trace.record(Localized("A cancelled, then added to the queue", ja: "キャンセルした A を追加"), lane: checkLane)
        let queue = OperationQueue()
        queue.addOperation(a)
        defer { withExtendedLifetime(a) {} }
        let drained = returnsWithin(seconds: min(options.deadlockSeconds, 2)) { queue.waitUntilAllOperationsAreFinished() }
        if workRan.current {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "A was cancelled before it was added to a queue, and its work ran anyway. In start(), check isCancelled first and, if set, finish() without calling execute().",
                ja: "A はキューに追加する前にキャンセルされたのに、処理が実行されました。start() で最初に isCancelled を確認し、true なら execute() を呼ばずに finish() しましょう。"),
                events: trace.events)
        }
        guard drained, a.isFinished else {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "A was cancelled before it started; the queue never saw it finish, so it never drained (A reads isFinished=\(a.isFinished)). A cancelled operation still has to finish (announced with willChangeValue/didChangeValue(forKey: \"isFinished\")).",
                ja: "A は開始前にキャンセルされましたが、キューは A の終了を知らず、空になりませんでした（A の isFinished は \(a.isFinished)）。キャンセルされたオペレーションも終了する必要があります（willChangeValue/didChangeValue(forKey: \"isFinished\") で通知）。"),
                events: trace.events)
        }
        return nil
    }

    /// C depends on A, whose work is held; C is cancelled while it waits. A cancelled operation
    /// stops waiting for its dependencies, so the queue starts C at once: C must finish without
    /// running its work, while A is still out.
    static func checkCancelledWhileWaiting(_ make: @escaping Make, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let held = QuietState<(@Sendable () -> Void)?>(nil)
        let a = make { done in
            trace.begin(aWork, lane: "A")
            held.update { $0 = done }
        }
        let cWorkRan = QuietState(false)
        let c = make { done in
            cWorkRan.update { $0 = true }
            trace.record(Localized("C: work runs", ja: "C: 処理を実行"), lane: "C")
            done()
        }
        c.addDependency(a)
        let queue = OperationQueue()
        queue.addOperations([a, c], waitUntilFinished: false)
        defer { withExtendedLifetime((a, c)) {} }
        guard held.wait(seconds: options.deadlockSeconds, until: { $0 != nil }) else {
            return .deadlock(trace: trace, options: options, doing: aWorkStarting)
        }
        trace.record(Localized("C.cancel() while C waits for A", ja: "C.cancel()（C は A を待機中）"), lane: checkLane)
        c.cancel()
        let waitSeconds = min(options.deadlockSeconds, 2)
        let cFinished = returnsWithin(seconds: waitSeconds) { c.waitUntilFinished() }
        let cFlags = Flags(executing: c.isExecuting, finished: c.isFinished)
        trace.end(aWork, lane: "A")
        held.current?()
        if cWorkRan.current {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "C depends on A; C was cancelled while A's work was still out, and C's work ran anyway. In start(), check isCancelled first and, if set, finish() without calling execute().",
                ja: "C は A に依存しています。A の処理の途中で C をキャンセルしたのに、C の処理が実行されました。start() で最初に isCancelled を確認し、true なら execute() を呼ばずに finish() しましょう。"),
                events: trace.events)
        }
        guard cFinished, cFlags.finished else {
            return CheckFailure(cancelledSkipsWork, observed: Localized(
                "C depends on A; C was cancelled while A's work was still out. A cancelled operation no longer waits for its dependencies, so the queue started C — but C never finished (waited \(formatSeconds(waitSeconds).en); it reads \(cFlags)). A cancelled operation still has to finish(), announced.",
                ja: "C は A に依存しています。A の処理の途中で C をキャンセルしました。キャンセルされたオペレーションは依存先を待たないので、キューは C を開始しましたが、C は終了しませんでした（\(formatSeconds(waitSeconds).ja)待機、\(cFlags)）。キャンセルされたオペレーションも、通知付きで finish() する必要があります。"),
                events: trace.events)
        }
        guard returnsWithin(seconds: options.deadlockSeconds, { queue.waitUntilAllOperationsAreFinished() }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "the queue after A's work called done", ja: "A の処理が done を呼んだ後のキュー"))
        }
        return nil
    }

    // MARK: 4. Under load

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
        defer { withExtendedLifetime(operations) {} }
        guard returnsWithin(seconds: options.deadlockSeconds, { queue.waitUntilAllOperationsAreFinished() }) else {
            let done = order.current.map(\.count).reduce(0, +)
            trace.record(Localized("\(done) of \(chains * length) works started", ja: "処理 \(chains * length) 件中 \(done) 件が開始"))
            return .deadlock(trace: trace, options: options, doing: Localized(
                "\(chains) chains of \(length) operations finishing from other threads (\(done) of \(chains * length) works started)",
                ja: "別スレッドから終わる \(length) 個のオペレーションのチェーン \(chains) 本（処理 \(chains * length) 件中 \(done) 件が開始）"))
        }
        let wrong = order.current.enumerated().filter { $0.element != Array(0..<length) }
        guard wrong.isEmpty else {
            return CheckFailure(dependantWaits, observed: Localized(
                "In \(wrong.count) of \(chains) chains of dependent operations the works ran out of order (e.g. \(wrong[0].element)).",
                ja: "依存関係でつないだ \(chains) 本のチェーンのうち \(wrong.count) 本で、処理の順序が崩れました（例: \(wrong[0].element)）。"))
        }
        return nil
    }
}
