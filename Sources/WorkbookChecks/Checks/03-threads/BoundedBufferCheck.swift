import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/BoundedBuffer. Every interleaving a wrong answer needs is made to
/// happen on purpose: each blocked call is started on a thread of its own and the check waits
/// until that thread is asleep inside it before it changes anything.
///
/// 0. No data race: two threads take turns calling `put` and `take` (`runInTurns`, calls that
///    never block), so a read of `items` outside the lock is an unordered pair that
///    ThreadSanitizer reports every run.
/// 1. First in, first out, with values nobody can guess.
/// 2. `take` on an empty buffer waits until a `put`; `put` on a full one until a `take` — and
///    while it waits, its thread sleeps: a call that polls (sleep and look again, or spin)
///    wakes up dozens of times or burns CPU in the same span.
/// 3. A wake-up reaches the waiter that can go on: a thread of the check waits on the answer's
///    condition first, as a thread of the other kind would, then the real call waits. A
///    `signal()` wakes the one that waited longest — the check's — and the call sleeps on with
///    its item in the buffer; `broadcast()` wakes both.
/// 4. A woken waiter looks again: two `put`s wait on a full buffer and one `take` makes room for
///    one; two `take`s wait on an empty buffer and one `put` brings one item. Both are woken,
///    and the one that finds its turn taken must wait again (`while`, not `if`).
/// 5. Under load: three producers and two consumers move 900 items through a buffer of two; no
///    item is lost, duplicated or invented, and each producer's items keep their order.
public enum BoundedBufferCheck {
    public static let fifo = Property(
        id: "not-fifo",
        name: Localized("first in, first out", ja: "先入れ先出し"),
        rule: Localized("take returns the oldest item.", ja: "take は最も古い要素を返す。"))
    public static let takeWaits = Property(
        id: "take-did-not-wait",
        name: Localized("take waits while empty", ja: "空の間 take は待つ"),
        rule: Localized("take on an empty buffer returns only after a put.", ja: "空のバッファに対する take は、put の後にだけ戻る。"))
    public static let putWaits = Property(
        id: "put-did-not-wait",
        name: Localized("put waits while full", ja: "満杯の間 put は待つ"),
        rule: Localized("put on a full buffer returns only after a take.", ja: "満杯のバッファに対する put は、take の後にだけ戻る。"))
    public static let sleepsWhileWaiting = Property(
        id: "polling",
        name: Localized("waits by sleeping on the condition, not by polling", ja: "ポーリングではなく条件変数でスリープして待つ"),
        rule: Localized("While a take waits on an empty buffer (or a put on a full one), its thread sleeps until another thread changes the buffer: it does not wake up again and again, or spin, while nothing changes.",
                        ja: "空のバッファで take が（満杯のバッファで put が）待つ間、そのスレッドは別のスレッドがバッファを変えるまでスリープする。何も変わらないのに何度も起きたり、スピンしたりしない。"))
    public static let wakesTheRightWaiter = Property(
        id: "missed-wakeup",
        name: Localized("every change wakes the waiters that can go on", ja: "変化のたびに、先へ進める待機スレッドが起こされる"),
        rule: Localized("After a put, a waiting take returns; after a take, a waiting put returns — even when a thread of the other kind waits on the same condition.",
                        ja: "put の後には待っている take が戻り、take の後には待っている put が戻る。同じ条件変数で別の種類のスレッドが待っていても。"))
    public static let looksAgain = Property(
        id: "recheck-after-wake",
        name: Localized("a woken waiter looks again", ja: "起こされた待機スレッドはもう一度確かめる"),
        rule: Localized("A waiter that wakes up checks the buffer again before it goes on: a wake-up means \"look again\", not \"your turn\".",
                        ja: "起きた待機スレッドは、先へ進む前にもう一度バッファを確かめる。起こされたことは「もう一度確かめよ」であって「あなたの番」ではない。"))
    public static let everyItemOnce = Property(
        id: "lost-item",
        name: Localized("every item exactly once, in each producer's order", ja: "各要素がちょうど 1 回、生産者ごとの順序で"),
        rule: Localized("Every item put is taken exactly once, and one producer's items come out in the order it put them.",
                        ja: "put したすべての要素がちょうど 1 回 take され、同じ生産者の要素は put した順に出てくる。"))
    /// Needs the thread's wake-ups (`/proc`, `getrusage(RUSAGE_THREAD)`): a wait that sleeps a
    /// millisecond and looks again burns almost no CPU, so only its wake-ups give it away.
    public static let platformProbes = [
        PlatformProbe("polls-with-sleeps", Localized(
            "a take or put that polls with short sleeps instead of waiting on a condition (counted from the thread's wake-ups)",
            ja: "take や put が条件変数で待たず、短いスリープを挟んでポーリングしていないか（スレッドの起床回数で数える）"), needs: [.threadObservation]),
    ]

        public static let properties = [fifo, takeWaits, putWaits, sleepsWhileWaiting, wakesTheRightWaiter, looksAgain, everyItemOnce, Property.finishes]

    static let producers = 3, perProducer = 300, consumers = 2

    public static func run(_ make: @escaping @Sendable (Int) -> any BoundedBufferProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = probeRaces(make, options: options)
            ?? checkFIFO(make(2), options: options)
            ?? checkTakeWaits(make(2), options: options)
            ?? checkPutWaits(make(2), options: options)
            ?? checkWakeUpReachesTakeAmongOthers(make(2), options: options)
            ?? checkWakeUpReachesPutAmongOthers(make(1), options: options)
            ?? checkTwoPutsOneRoom(make(1), options: options)
            ?? checkTwoTakesOneItem(make(2), options: options)
            ?? stress(make(2), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    /// Distinct item values nobody can guess, so no answer can return the expected items without
    /// having stored them.
    static func freshItems(_ count: Int) -> [Int] {
        var items: [Int] = []
        while items.count < count {
            let item = Int.random(in: 100...999_999)
            if !items.contains(item) { items.append(item) }
        }
        return items
    }

    // MARK: 0. Data races

    /// `put` and `take` from two threads in turn; with TSan on, an unguarded access stops the run here.
    static func probeRaces(_ make: @escaping @Sendable (Int) -> any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        // Warm up first: the first call of a generic function fills the Swift runtime's caches
        // under its own locks, and a lock both probe threads take would order their calls for
        // TSan and hide the race.
        let warm = make(2)
        guard returnsWithin(seconds: options.deadlockSeconds, {
            warm.put(1); warm.put(2); _ = warm.take(); _ = warm.take()
        }) else {
            return .deadlock(trace: Trace(), options: options, doing: Localized(
                "put(1), put(2), take(), take() on one thread (capacity 2)", ja: "1 本のスレッドでの put(1), put(2), take(), take()（容量 2）"))
        }
        let buffer = make(2)
        let items = freshItems(4)
        // Never more than two items and never a take on an empty buffer: no call has to wait.
        let calls: [(thread: Int, label: String, body: @Sendable () -> Void)] = [
            (0, "put(\(items[0]))", { buffer.put(items[0]) }),
            (1, "put(\(items[1]))", { buffer.put(items[1]) }),
            (0, "take()", { _ = buffer.take() }),
            (1, "take()", { _ = buffer.take() }),
            (1, "put(\(items[2]))", { buffer.put(items[2]) }),
            (0, "take()", { _ = buffer.take() }),
            (0, "put(\(items[3]))", { buffer.put(items[3]) }),
            (1, "take()", { _ = buffer.take() }),
        ]
        // The probe threads record nothing while they take turns: TSan's ignore annotations
        // (which the trace uses) next to the racing calls hid races in some runs.
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: calls.map { ($0.thread, $0.body) })
        guard let stuck else { return nil }
        let trace = Trace()
        for call in calls[...stuck] { trace.record(call.label, lane: "T\(call.thread + 1)") }
        return .deadlock(trace: trace, options: options, doing: Localized(
            "\(calls[stuck].label) (with never more than 2 items in a buffer of 2, and never on an empty one)",
            ja: "\(calls[stuck].label)（容量 2 のバッファに 2 要素を超えて入れることも、空のバッファから取ることもない）"))
    }

    // MARK: 1. First in, first out

    static func checkFIFO(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let items = freshItems(2)
        let taken: [Int]? = withDeadline(seconds: options.deadlockSeconds) {
            trace.span("put(\(items[0]))") { buffer.put(items[0]) }
            trace.span("put(\(items[1]))") { buffer.put(items[1]) }
            let first = trace.span("take()") { buffer.take() }
            let second = trace.span("take()") { buffer.take() }
            trace.record(Localized("took \(first), then \(second)", ja: "\(first)、\(second) の順に取り出し"))
            return [first, second]
        }
        guard let taken else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[0])), put(\(items[1])), take(), take() on one thread (capacity 2)",
                ja: "1 本のスレッドでの put(\(items[0])), put(\(items[1])), take(), take()（容量 2）"))
        }
        if taken.sorted() != items.sorted() {
            return CheckFailure(everyItemOnce, observed: Localized(
                "put(\(items[0])), put(\(items[1])), then take() twice returned \(taken[0]) and \(taken[1]): take must return the items that were put, each once.",
                ja: "put(\(items[0]))、put(\(items[1])) の後、take() を 2 回呼ぶと \(taken[0]) と \(taken[1]) が返りました。take は put された要素を、それぞれ 1 回ずつ返す必要があります。"),
                events: trace.events)
        }
        if taken != items {
            return CheckFailure(fifo, observed: Localized(
                "put(\(items[0])), put(\(items[1])), then take() twice returned \(taken[0]) and \(taken[1]); expected \(items[0]) first. Append at the end and remove from the front.",
                ja: "put(\(items[0]))、put(\(items[1])) の後、take() を 2 回呼ぶと \(taken[0]) と \(taken[1]) が返りました。先に \(items[0]) のはずです。末尾に追加し、先頭から取り出しましょう。"),
                events: trace.events)
        }
        return nil
    }

    // MARK: 2. Waiting, and sleeping while waiting

    static func checkTakeWaits(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let item = freshItems(1)[0]
        let take = BlockingCall("take()", trace: trace) { buffer.take() }
        take.waitUntilAsleep()
        // Long enough that a call polling every few milliseconds wakes up many times.
        Thread.sleep(forTimeInterval: 0.08)
        if let early = take.value {
            trace.record(Localized("take() returned \(early) from an empty buffer", ja: "空なのに take() が \(early) を返す"))
            return CheckFailure(takeWaits, observed: Localized(
                "take() on an empty buffer returned \(early) before anything was put. Wait on the condition while the buffer is empty.",
                ja: "空のバッファに対する take() が、何も put されないうちに \(early) を返しました。バッファが空の間は条件変数で待ちましょう。"),
                events: trace.events)
        }
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(item))") { buffer.put(item) } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(item)) into an empty buffer while a take() waits", ja: "take() が待つ間の、空のバッファへの put(\(item))"))
        }
        if let failure = wakeFailure(take, in: buffer, after: "put(\(item))", stuck: Localized(
            "take() after put(\(item)) into the empty buffer it waited on", ja: "待っていた空のバッファへの put(\(item)) の後の take()"), trace: trace, options: options) {
            return failure
        }
        if take.value != item {
            return CheckFailure(everyItemOnce, observed: Localized(
                "A take() waiting on an empty buffer got \(take.value.map(String.init) ?? "nothing") after put(\(item)).",
                ja: "空のバッファで待っていた take() が、put(\(item)) の後に \(take.value.map(String.init) ?? "何も") を受け取りました。"), events: trace.events)
        }
        return polling(take, state: Localized("an empty buffer", ja: "空のバッファ"), trace: trace)
    }

    static func checkPutWaits(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let items = freshItems(3)
        let filled = returnsWithin(seconds: options.deadlockSeconds) {
            trace.span("put(\(items[0]))") { buffer.put(items[0]) }
            trace.span("put(\(items[1]))") { buffer.put(items[1]) }
        }
        guard filled else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[0])), put(\(items[1])) into an empty buffer of capacity 2", ja: "容量 2 の空のバッファへの put(\(items[0])), put(\(items[1]))"))
        }
        let put = BlockingCall("put(\(items[2]))", trace: trace) { buffer.put(items[2]) }
        put.waitUntilAsleep()
        Thread.sleep(forTimeInterval: 0.08)
        if put.hasReturned {
            return CheckFailure(putWaits, observed: Localized(
                "The buffer held 2 items (its capacity) and put(\(items[2])) returned without a take. Wait on the condition while the buffer is full.",
                ja: "バッファは容量いっぱいの 2 要素を持っていたのに、put(\(items[2])) が take なしに戻りました。満杯の間は条件変数で待ちましょう。"),
                events: trace.events)
        }
        guard let first = withDeadline(seconds: options.deadlockSeconds, { trace.span("take()") { buffer.take() } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() from a full buffer while a put waits", ja: "put が待つ間の、満杯のバッファからの take()"))
        }
        if let failure = wakeFailure(put, in: buffer, after: "take()", stuck: Localized(
            "put(\(items[2])) after a take() made room in the full buffer it waited on",
            ja: "待っていた満杯のバッファに take() が空きを作った後の put(\(items[2]))"), trace: trace, options: options) {
            return failure
        }
        guard let rest = withDeadline(seconds: options.deadlockSeconds, { [buffer.take(), buffer.take()] }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() twice from a buffer holding 2 items", ja: "2 要素が入ったバッファからの 2 回の take()"))
        }
        let taken = [first] + rest
        if taken.sorted() != items.sorted() {
            return CheckFailure(everyItemOnce, observed: Localized(
                "After put(\(items[0])), put(\(items[1])) and a waiting put(\(items[2])), three take() calls returned \(taken).",
                ja: "put(\(items[0]))、put(\(items[1]))、待っていた put(\(items[2])) の後、3 回の take() は \(taken) を返しました。"), events: trace.events)
        }
        if taken != items {
            return CheckFailure(fifo, observed: Localized(
                "After put(\(items[0])), put(\(items[1])) and a waiting put(\(items[2])), take() returned \(taken); expected \(items).",
                ja: "put(\(items[0]))、put(\(items[1]))、待っていた put(\(items[2])) の後、take() は \(taken) を返しました。\(items) のはずです。"), events: trace.events)
        }
        return polling(put, state: Localized("a full buffer", ja: "満杯のバッファ"), trace: trace)
    }

    /// Waits for a blocked call to return after `change` made its condition true: nil when it
    /// did, a missed wake-up when only an extra broadcast from the check let it out, else a deadlock.
    static func wakeFailure(_ call: BlockingCall<some Sendable>, in buffer: any BoundedBufferProtocol, after change: String, stuck: Localized, trace: Trace, options: CheckOptions) -> CheckFailure? {
        switch call.awaitWake(seconds: options.deadlockSeconds / 2, conditions: LearnerConditions(in: buffer)) {
        case .returned: return nil
        case .onlyAfterExtraBroadcast: return missedWakeup(waiter: call.label, change: change, trace: trace, options: options)
        case .stuck: return .deadlock(trace: trace, options: options, doing: stuck)
        }
    }

    static func polling(_ call: BlockingCall<some Sendable>, state: Localized, trace: Trace) -> CheckFailure? {
        guard let description = call.pollingDescription() else { return nil }
        return CheckFailure(sleepsWhileWaiting, observed: Localized(
            "On \(state.en), \(description.en). Wait with `condition.wait()` in a `while` loop: it sleeps until a broadcast, using no CPU.",
            ja: "\(state.ja)で、\(description.ja)。`while` ループの中で `condition.wait()` を使って待ちましょう。broadcast されるまで CPU を使わずにスリープします。"),
            events: trace.events)
    }

    static let broadcastFromCheck = Localized("broadcast() from the check", ja: "チェックから broadcast()")

    static func missedWakeup(waiter: String, change: String, trace: Trace, options: CheckOptions) -> CheckFailure {
        let seconds = formatSeconds(options.deadlockSeconds / 2)
        trace.record(broadcastFromCheck)
        return CheckFailure(wakesTheRightWaiter, observed: Localized(
            "\(waiter) waited; \(change) returned, but \(waiter) was still waiting \(seconds.en) later. One broadcast() on your condition from the check then let it return at once: nobody had woken it. After every change, call condition.broadcast().",
            ja: "\(waiter) が待っていました。\(change) は戻りましたが、\(seconds.ja)後も \(waiter) は待ったままでした。チェックがあなたの条件変数に broadcast() を 1 回送ると、すぐに戻りました。誰も起こしていなかったのです。変更のたびに condition.broadcast() を呼びましょう。"),
            events: trace.events)
    }

    // MARK: 3. The wake-up reaches the waiter that can go on

    /// A thread of the other kind waits on the answer's condition first (the check's stand-in),
    /// then `take()` waits on the empty buffer; `put` must wake the take.
    static func checkWakeUpReachesTakeAmongOthers(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let conditions = LearnerConditions(in: buffer)
        guard !conditions.isEmpty else { return nil }
        let trace = Trace()
        let item = freshItems(1)[0]
        trace.record(Localized("a thread of the check waits on the buffer's condition", ja: "チェックのスレッドが条件変数で待つ"))
        let decoys = conditions.all.map { DecoyWaiter(on: $0, seconds: options.deadlockSeconds * 2) }
        defer { decoys.forEach { $0.dismiss() } }
        let take = BlockingCall("take()", trace: trace) { buffer.take() }
        take.waitUntilAsleep()
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(item))") { buffer.put(item) } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(item)) into an empty buffer while a take() waits", ja: "take() が待つ間の、空のバッファへの put(\(item))"))
        }
        let wake = take.awaitWake(seconds: options.deadlockSeconds / 2, conditions: conditions)
        return wrongWaiterWoken(wake, waiter: "take()", change: .verbatim("put(\(item))"), standIn: Localized("a producer waiting on a full buffer", ja: "満杯のバッファで待つ生産者"),
                                decoys: decoys, trace: trace, options: options)
    }

    /// The same on the other side: a stand-in waits first, then `put` waits on a full buffer;
    /// `take` must wake the put.
    static func checkWakeUpReachesPutAmongOthers(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let conditions = LearnerConditions(in: buffer)
        guard !conditions.isEmpty else { return nil }
        let trace = Trace()
        let items = freshItems(2)
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(items[0]))") { buffer.put(items[0]) } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[0])) into an empty buffer of capacity 1", ja: "容量 1 の空のバッファへの put(\(items[0]))"))
        }
        trace.record(Localized("a thread of the check waits on the buffer's condition", ja: "チェックのスレッドが条件変数で待つ"))
        let decoys = conditions.all.map { DecoyWaiter(on: $0, seconds: options.deadlockSeconds * 2) }
        defer { decoys.forEach { $0.dismiss() } }
        let put = BlockingCall("put(\(items[1]))", trace: trace) { buffer.put(items[1]) }
        put.waitUntilAsleep()
        guard let first = withDeadline(seconds: options.deadlockSeconds, { trace.span("take()") { buffer.take() } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() from a full buffer of capacity 1 while a put waits", ja: "put が待つ間の、容量 1 の満杯のバッファからの take()"))
        }
        let wake = put.awaitWake(seconds: options.deadlockSeconds / 2, conditions: conditions)
        if let failure = wrongWaiterWoken(wake, waiter: "put(\(items[1]))", change: Localized("take() (which returned \(first))", ja: "take()（\(first) を返した）"),
                                          standIn: Localized("a consumer waiting on an empty buffer", ja: "空のバッファで待つ消費者"),
                                          decoys: decoys, trace: trace, options: options) {
            return failure
        }
        guard let second = withDeadline(seconds: options.deadlockSeconds, { buffer.take() }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() from a buffer holding 1 item", ja: "1 要素が入ったバッファからの take()"))
        }
        if [first, second] != items {
            return CheckFailure(everyItemOnce, observed: Localized(
                "put(\(items[0])) and a waiting put(\(items[1])) into a buffer of capacity 1; two take() calls returned \(first) and \(second).",
                ja: "容量 1 のバッファに put(\(items[0])) と待っていた put(\(items[1]))。2 回の take() は \(first) と \(second) を返しました。"), events: trace.events)
        }
        return nil
    }

    static func wrongWaiterWoken(_ wake: BlockedCallWake, waiter: String, change: Localized, standIn: Localized,
                                 decoys: [DecoyWaiter], trace: Trace, options: CheckOptions) -> CheckFailure? {
        switch wake {
        case .returned:
            return nil
        case .stuck:
            return .deadlock(trace: trace, options: options, doing: Localized("\(waiter) after \(change.en)", ja: "\(change.ja) の後の \(waiter)"))
        case .onlyAfterExtraBroadcast:
            let seconds = formatSeconds(options.deadlockSeconds / 2)
            trace.record(broadcastFromCheck)
            let standInWoken = decoys.contains { $0.wasWoken }
            let who = standInWoken
                ? Localized("The wake-up went to the stand-in, which had waited longer: signal() wakes one waiter, and it was the wrong one.",
                            ja: "起こされたのは、より長く待っていた代役のほうでした。signal() は待機スレッドを 1 本だけ起こし、それが違う相手だったのです。")
                : Localized("Neither waiter had been woken.", ja: "どちらの待機スレッドも起こされていませんでした。")
            return CheckFailure(wakesTheRightWaiter, observed: Localized(
                "A thread of the check waited on your condition first, as \(standIn.en) would; then \(waiter) began to wait. \(change.en) returned, but \(waiter) was still waiting \(seconds.en) later. \(who.en) One broadcast() from the check then let \(waiter) return at once. Producers and consumers wait on one condition: wake them all with broadcast().",
                ja: "まずチェックのスレッドが\(standIn.ja)の代わりにあなたの条件変数で待ち、続いて \(waiter) が待ち始めました。\(change.ja) は戻りましたが、\(seconds.ja)後も \(waiter) は待ったままでした。\(who.ja)チェックが broadcast() を 1 回送ると、\(waiter) はすぐに戻りました。生産者と消費者は 1 つの条件変数で待つので、broadcast() で全員を起こしましょう。"),
                events: trace.events)
        }
    }

    // MARK: 4. A woken waiter looks again

    /// Two puts wait on a full buffer of capacity 1; one take makes room for one of them.
    static func checkTwoPutsOneRoom(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let items = freshItems(3)
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(items[0]))") { buffer.put(items[0]) } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[0])) into an empty buffer of capacity 1", ja: "容量 1 の空のバッファへの put(\(items[0]))"))
        }
        let first = BlockingCall("put(\(items[1]))", trace: trace) { buffer.put(items[1]) }
        first.waitUntilAsleep()
        let second = BlockingCall("put(\(items[2]))", trace: trace) { buffer.put(items[2]) }
        second.waitUntilAsleep()
        let puts = [first, second]
        guard let taken = withDeadline(seconds: options.deadlockSeconds, { trace.span("take()") { buffer.take() } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() from a full buffer while two puts wait", ja: "2 つの put が待つ間の、満杯のバッファからの take()"))
        }
        guard waitForAny(puts, seconds: options.deadlockSeconds / 2) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "either waiting put after take() made room", ja: "take() が空きを作った後の、待っている put のどちらか"))
        }
        observationWindow()
        let returned = puts.filter(\.hasReturned)
        if returned.count == 2 {
            trace.record(Localized("both puts returned", ja: "put が 2 つとも戻る"))
            return CheckFailure(looksAgain, observed: Localized(
                "The buffer (capacity 1) held \(items[0]); \(first.label) and \(second.label) both waited. One take() returned \(taken) and made room for one item, yet both put calls returned: the second one woke up and added its item without looking again, to a buffer that was full. Wait in `while items.count == capacity`, not `if`.",
                ja: "バッファ（容量 1）には \(items[0]) が入っていて、\(first.label) と \(second.label) が両方待っていました。take() が 1 回 \(taken) を返して 1 要素ぶんの空きができただけなのに、put が 2 つとも戻りました。2 つ目は起きた後もう一度確かめずに、満杯のバッファに要素を追加したのです。`if` ではなく `while items.count == capacity` で待ちましょう。"),
                events: trace.events)
        }
        // Drain: the put still waiting gets its room now.
        let drained = withDeadline(seconds: options.deadlockSeconds) { [buffer.take(), buffer.take()] }
        guard let drained, puts.allSatisfy({ $0.waitForReturn(seconds: options.deadlockSeconds) }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "take() twice while the other put waits", ja: "もう一方の put が待つ間の 2 回の take()"))
        }
        let all = [taken] + drained
        if all.sorted() != items.sorted() {
            return CheckFailure(everyItemOnce, observed: Localized(
                "\(items[0]) was in a buffer of capacity 1 and two puts (\(items[1]), \(items[2])) waited; three take() calls returned \(all).",
                ja: "容量 1 のバッファに \(items[0]) があり、2 つの put（\(items[1])、\(items[2])）が待っていました。3 回の take() は \(all) を返しました。"), events: trace.events)
        }
        return nil
    }

    /// Two takes wait on an empty buffer; one put brings one item: one take gets it and the
    /// other must go on waiting (not take from an empty buffer).
    static func checkTwoTakesOneItem(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let items = freshItems(2)
        let first = BlockingCall("take() #1", trace: trace) { buffer.take() }
        first.waitUntilAsleep()
        let second = BlockingCall("take() #2", trace: trace) { buffer.take() }
        second.waitUntilAsleep()
        let takes = [first, second]
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(items[0]))") { buffer.put(items[0]) } }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[0])) while two takes wait", ja: "2 つの take が待つ間の put(\(items[0]))"))
        }
        guard waitForAny(takes, seconds: options.deadlockSeconds / 2) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "either waiting take after put(\(items[0]))", ja: "put(\(items[0])) の後の、待っている take のどちらか"))
        }
        observationWindow()
        let returned = takes.filter(\.hasReturned)
        if returned.count == 2 {
            let values = returned.compactMap(\.value)
            trace.record(Localized("both takes returned: \(values)", ja: "take が 2 つとも戻る: \(values)"))
            return CheckFailure(looksAgain, observed: Localized(
                "Two take() calls waited on an empty buffer; one put(\(items[0])) brought one item, yet both returned (\(values[0]) and \(values[1])): the second woke up and took from a buffer that the first had already emptied. Wait in `while items.isEmpty`, not `if`.",
                ja: "空のバッファで 2 つの take() が待っていました。put(\(items[0])) で入った要素は 1 つなのに、両方が戻りました（\(values[0]) と \(values[1])）。2 つ目は起きた後、1 つ目がすでに空にしたバッファから取り出したのです。`if` ではなく `while items.isEmpty` で待ちましょう。"),
                events: trace.events)
        }
        guard returnsWithin(seconds: options.deadlockSeconds, { trace.span("put(\(items[1]))") { buffer.put(items[1]) } }),
              takes.allSatisfy({ $0.waitForReturn(seconds: options.deadlockSeconds) }) else {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "put(\(items[1])) and the take still waiting", ja: "put(\(items[1])) と、まだ待っている take"))
        }
        let values = takes.compactMap(\.value)
        if values.sorted() != items.sorted() {
            return CheckFailure(everyItemOnce, observed: Localized(
                "Two take() calls waited on an empty buffer; after put(\(items[0])) and put(\(items[1])) they returned \(values).",
                ja: "空のバッファで 2 つの take() が待っていました。put(\(items[0])) と put(\(items[1])) の後、\(values) を返しました。"), events: trace.events)
        }
        return nil
    }

    /// True once any of `calls` has returned, false after `seconds`.
    static func waitForAny(_ calls: [BlockingCall<some Sendable>], seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while !calls.contains(where: \.hasReturned) {
            if MonotonicClock.now() > deadline { return false }
            usleep(200)
        }
        return true
    }

    // MARK: 5. Under load

    static func stress(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let takenBy = Locked<[[Int]]>(Array(repeating: [], count: consumers))
        let finished = runOnThreads(producers + consumers, deadlineSeconds: options.deadlockSeconds) { index in
            if index < producers {
                for i in 0..<perProducer { buffer.put(index * 1_000 + i) }
            } else {
                let mine = (0..<(producers * perProducer / consumers)).map { _ in buffer.take() }
                takenBy.withLock { $0[index - producers] = mine }
            }
        }
        let trace = Trace()
        guard finished else {
            trace.record(Localized("\(producers) producers and \(consumers) consumers did not finish within \(formatSeconds(options.deadlockSeconds).en)",
                                   ja: "生産者 \(producers) 本と消費者 \(consumers) 本が \(formatSeconds(options.deadlockSeconds).ja)以内に終わらない"))
            return CheckFailure(.finishes, observed: Localized(
                "\(producers) producers and \(consumers) consumers moving \(producers * perProducer) items through a buffer of 2 did not finish within \(formatSeconds(options.deadlockSeconds).en): the threads still inside put or take were waiting for a wake-up that never came, or for a lock nobody released.",
                ja: "\(producers) 本の生産者スレッドと \(consumers) 本の消費者スレッドが容量 2 のバッファで \(producers * perProducer) 要素を受け渡す処理が \(formatSeconds(options.deadlockSeconds).ja)以内に終わりませんでした。put や take の中に残ったスレッドは、来ることのない起床の合図か、誰も解放しないロックを待っていました。"),
                events: trace.events)
        }
        let all = takenBy.current.flatMap { $0 }
        let expected = (0..<producers).flatMap { p in (0..<perProducer).map { p * 1_000 + $0 } }
        var problems: [Localized] = []
        if all.sorted() != expected.sorted() {
            let expectedSet = Set(expected), allSet = Set(all)
            let missing = expectedSet.subtracting(allSet).count
            let duplicated = all.count - allSet.count
            let invented = allSet.subtracting(expectedSet).count
            problems.append(Localized("\(missing) item(s) missing, \(duplicated) duplicated, \(invented) invented",
                                      ja: "欠けた要素 \(missing) 個、重複 \(duplicated) 個、存在しない要素 \(invented) 個"))
        }
        for (consumer, items) in takenBy.current.enumerated() {
            for producer in 0..<producers {
                let mine = items.filter { $0 / 1_000 == producer }
                if mine != mine.sorted() {
                    problems.append(Localized("consumer \(consumer + 1) got producer \(producer + 1)'s items out of order",
                                              ja: "消費者 \(consumer + 1) が生産者 \(producer + 1) の要素を順不同で受け取った"))
                }
            }
        }
        guard problems.isEmpty else {
            return CheckFailure(everyItemOnce, observed: Localized(
                "\(producers) producers each put \(perProducer) items; \(consumers) consumers took them: \(problems.map(\.en).joined(separator: "; ")).",
                ja: "\(producers) 本の生産者スレッドがそれぞれ \(perProducer) 要素を put し、\(consumers) 本の消費者スレッドが take しました: \(problems.map(\.ja).joined(separator: "、"))。"))
        }
        return nil
    }
}
