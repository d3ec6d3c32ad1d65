import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/BoundedBuffer.
///
/// 1. First in, first out, on one thread.
/// 2. `take` waits on an empty buffer, and `put` waits on a full one: a thread is started on
///    the blocking call and must still be inside it after a window that grows with the machine's
///    load (a thread started after the call must have run, plus 20 ms); the matching `put`/`take`
///    then releases it.
/// 3. Under load: three producers and two consumers move 900 items through a buffer of two; no
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
    public static let everyItemOnce = Property(
        id: "lost-item",
        name: Localized("every item exactly once, in each producer's order", ja: "各要素がちょうど 1 回、生産者ごとの順序で"),
        rule: Localized("Every item put is taken exactly once, and one producer's items come out in the order it put them.",
                        ja: "put したすべての要素がちょうど 1 回 take され、1 つの生産者の要素は put した順に出てくる。"))
    public static let properties = [fifo, takeWaits, putWaits, everyItemOnce, Property.finishes]

    public static func run(_ make: @escaping @Sendable (Int) -> any BoundedBufferProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = checkFIFO(make(2), options: options)
            ?? checkTakeWaits(make(2), options: options)
            ?? checkPutWaits(make(2), options: options)
            ?? stress(make(2), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    static func checkFIFO(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let taken: [Int]? = withDeadline(seconds: options.deadlockSeconds) {
            trace.span("put(1)") { buffer.put(1) }
            trace.span("put(2)") { buffer.put(2) }
            let first = trace.span("take()") { buffer.take() }
            let second = trace.span("take()") { buffer.take() }
            trace.record("took \(first), then \(second)")
            return [first, second]
        }
        guard let taken else { return .deadlock(trace: trace, options: options, doing: "put(1), put(2), take(), take() on one thread (capacity 2)") }
        guard taken == [1, 2] else {
            return CheckFailure(fifo, observed: Localized(
                "put(1), put(2), then take() twice returned \(taken[0]) and \(taken[1]); expected 1 and 2. Append at the end and remove from the front.",
                ja: "put(1)、put(2) の後、take() を 2 回呼ぶと \(taken[0]) と \(taken[1]) が返りました。1 と 2 のはずです。末尾に追加し、先頭から取り出しましょう。"),
                events: trace.events)
        }
        return nil
    }


    static func checkTakeWaits(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let result = Locked<Int?>(nil)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let item = trace.span("take()") { buffer.take() }
            result.withLock { $0 = item }
            returned.signal()
        }
        observationWindow()
        if let early = result.current {
            trace.record("take() returned \(early) from an empty buffer")
            return CheckFailure(takeWaits, observed: Localized(
                "take() on an empty buffer returned \(early) before anything was put. Wait on the condition while the buffer is empty.",
                ja: "空のバッファに対する take() が、何も put されないうちに \(early) を返しました。バッファが空の間は条件変数で待ちましょう。"),
                events: trace.events)
        }
        let put: Bool? = withDeadline(seconds: options.deadlockSeconds) {
            trace.span("put(42)") { buffer.put(42) }
            return true
        }
        guard put != nil,
              returned.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: trace, options: options, doing: "put(42) while a take() waits")
        }
        if result.current != 42 {
            return CheckFailure(everyItemOnce, observed: Localized(
                "A waiting take() got \(result.current.map(String.init) ?? "nothing") after put(42).",
                ja: "待っていた take() が put(42) の後に \(result.current.map(String.init) ?? "何も") を受け取りました。"), events: trace.events)
        }
        return nil
    }

    static func checkPutWaits(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let filled: Bool? = withDeadline(seconds: options.deadlockSeconds) {
            trace.span("put(1)") { buffer.put(1) }
            trace.span("put(2)") { buffer.put(2) }
            return true
        }
        guard filled != nil else {
            return .deadlock(trace: trace, options: options, doing: "put(1), put(2) into an empty buffer of capacity 2")
        }
        let putReturned = Locked(false)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            trace.span("put(3)") { buffer.put(3) }
            putReturned.withLock { $0 = true }
            returned.signal()
        }
        observationWindow()
        if putReturned.current {
            return CheckFailure(putWaits, observed: Localized(
                "The buffer held 2 items (its capacity) and put(3) returned at once. Wait on the condition while the buffer is full.",
                ja: "バッファは容量いっぱいの 2 要素を持っていたのに、put(3) がすぐに戻りました。満杯の間は条件変数で待ちましょう。"),
                events: trace.events)
        }
        let first: Int? = withDeadline(seconds: options.deadlockSeconds) { trace.span("take()") { buffer.take() } }
        guard let first, returned.wait(timeout: .now() + options.deadlockSeconds) == .success else {
            return .deadlock(trace: trace, options: options, doing: "take() while a put(3) waits")
        }
        let rest: [Int]? = withDeadline(seconds: options.deadlockSeconds) { [buffer.take(), buffer.take()] }
        guard let rest else { return .deadlock(trace: trace, options: options, doing: "take() twice") }
        if [first] + rest != [1, 2, 3] {
            return CheckFailure(fifo, observed: Localized(
                "After put(1), put(2) and a waiting put(3), take() returned \([first] + rest); expected [1, 2, 3].",
                ja: "put(1)、put(2)、待っていた put(3) の後、take() は \([first] + rest) を返しました。[1, 2, 3] のはずです。"), events: trace.events)
        }
        return nil
    }

    static func stress(_ buffer: any BoundedBufferProtocol, options: CheckOptions) -> CheckFailure? {
        let producers = 3, perProducer = 300, consumers = 2
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
            let counts = takenBy.current.map(\.count)
            trace.record("consumers finished with \(counts) items")
            return CheckFailure(.finishes, observed: Localized(
                "\(producers) producers and \(consumers) consumers moving \(producers * perProducer) items through a buffer of 2 stopped: every thread waited for a signal that never came. Wait in a while loop and wake everyone who may be waiting (broadcast), after every put and every take.",
                ja: "\(producers) つの生産者と \(consumers) つの消費者が容量 2 のバッファで \(producers * perProducer) 要素を受け渡す途中で止まりました。すべてのスレッドが来ない signal を待っています。while ループで待ち、put と take のたびに待っている可能性のある全員を起こしましょう（broadcast）。"),
                events: trace.events)
        }
        let all = takenBy.current.flatMap { $0 }
        let expected = (0..<producers).flatMap { p in (0..<perProducer).map { p * 1_000 + $0 } }
        var problems: [String] = []
        if all.sorted() != expected.sorted() {
            let missing = Set(expected).subtracting(all).count
            let extra = all.count - Set(all).count
            problems.append("\(missing) item(s) missing, \(extra) duplicated, \(all.filter { !Set(expected).contains($0) }.count) invented")
        }
        for (consumer, items) in takenBy.current.enumerated() {
            for producer in 0..<producers {
                let mine = items.filter { $0 / 1_000 == producer }
                if mine != mine.sorted() { problems.append("consumer \(consumer + 1) got producer \(producer + 1)'s items out of order") }
            }
        }
        guard problems.isEmpty else {
            let text = problems.joined(separator: "; ")
            return CheckFailure(everyItemOnce, observed: Localized(
                "\(producers) producers each put \(perProducer) items; \(consumers) consumers took them: \(text).",
                ja: "\(producers) つの生産者がそれぞれ \(perProducer) 要素を put し、\(consumers) つの消費者が take しました: \(text)。"))
        }
        return nil
    }
}
