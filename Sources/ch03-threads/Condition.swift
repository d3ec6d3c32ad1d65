import Foundation
import WorkbookCore

extension Chapter03 {
    /// `NSCondition`: a lock plus a way to sleep until another thread says the state changed.
    static let condition = Scenario(
        slug: "condition",
        title: Localized("NSCondition: producer and consumer", ja: "NSCondition: 生産者と消費者"),
        narration: Localized(
            """
            A producer thread puts the numbers 1…`items` into a buffer that holds at most `capacity`; a consumer thread takes them out, a little more slowly (0.3 ms per item). \
            One `NSCondition` guards the buffer. It is a lock (`lock`/`unlock`) with two more calls: `wait()` releases the lock and sleeps until signalled, then takes the lock again before returning; \
            `signal()` wakes one waiting thread, `broadcast()` all of them. \
            The producer, holding the lock, checks `while buffer.count == capacity { wait() }`; the consumer `while buffer.isEmpty { wait() }`. \
            After changing the buffer each calls `broadcast()`. The consumer starts only once the producer has filled the buffer and is waiting, so the first wait is always visible on the timeline. \
            Why `while` and not `if`: a thread may wake up without a signal (a spurious wake-up is allowed), or another thread may have taken the item first; after waking, the condition must be checked again. \
            Forgetting the `broadcast()` leaves the other thread asleep for ever; calling `wait()` without holding the lock is undefined behaviour.
            """,
            ja: """
            生産者のスレッドが 1…`items` の数を、最大 `capacity` 個まで入るバッファに入れ、消費者のスレッドが少しゆっくり（1 個あたり 0.3 ms）取り出します。\
            バッファは 1 つの `NSCondition` で守ります。これはロック（`lock`/`unlock`）に 2 つの呼び出しを足したものです。`wait()` はロックを手放して合図までスリープし、戻る前にロックを取り直します。\
            `signal()` は待っているスレッドを 1 本、`broadcast()` は全部起こします。\
            生産者はロックを持ったまま `while buffer.count == capacity { wait() }`、消費者は `while buffer.isEmpty { wait() }` と確かめます。\
            バッファを変えたら、どちらも `broadcast()` を呼びます。消費者は生産者がバッファを満たして待ち始めてから開始するので、最初の待ちは必ずタイムラインに現れます。\
            `if` ではなく `while` なのは、スレッドは合図なしに起床することがあり（スプリアスウェイクアップは仕様上起こり得ます）、別のスレッドが先に取っていることもあるからです。起床したら条件をもう一度確かめます。\
            `broadcast()` を忘れると相手は永遠にスリープしたままです。ロックを持たずに `wait()` を呼ぶのは未定義動作です。
            """),
        knobs: [
            .init("capacity", default: 2, range: 1...16, help: Localized("items the buffer holds", ja: "バッファに入る個数")),
            .init("items", default: 6, range: 1...200, help: Localized("items produced", ja: "生産する個数")),
        ]
    ) { context in
        try await blocking { try runCondition(context) }
    }

    /// A bounded FIFO guarded by one `NSCondition`, recording its items and waits on the trace,
    /// on the lanes of the producer and the consumer.
    private final class Buffer: @unchecked Sendable {  // `items` and counters are guarded by `condition`
        private let condition = NSCondition()
        private var items: [Int] = []
        private let capacity: Int
        private let trace: Trace
        private let lanes: (producer: String, consumer: String)
        private(set) var fullWaits = 0
        private(set) var emptyWaits = 0
        /// Signalled the first time the producer waits because the buffer is full.
        let firstFullWait = DispatchSemaphore(value: 0)

        init(capacity: Int, trace: Trace, lanes: (producer: String, consumer: String)) {
            self.capacity = capacity
            self.trace = trace
            self.lanes = lanes
        }

        func put(_ item: Int) {
            condition.lock()
            defer { condition.unlock() }
            while items.count == capacity {
                fullWaits += 1
                if fullWaits == 1 { firstFullWait.signal() }
                trace.span(Localized("wait: full", ja: "待つ: 満杯"), lane: lanes.producer) { condition.wait() }
            }
            items.append(item)
            trace.record("\(item)", lane: lanes.producer)
            condition.broadcast()
        }

        func take() -> Int {
            condition.lock()
            defer { condition.unlock() }
            while items.isEmpty {
                emptyWaits += 1
                trace.span(Localized("wait: empty", ja: "待つ: 空"), lane: lanes.consumer) { condition.wait() }
            }
            let item = items.removeFirst()
            trace.record("\(item)", lane: lanes.consumer)
            condition.broadcast()
            return item
        }

        var waits: (full: Int, empty: Int) {
            condition.lock()
            defer { condition.unlock() }
            return (fullWaits, emptyWaits)
        }
    }

    private static func runCondition(_ context: ScenarioContext) throws {
        let capacity = context.knob("capacity"), count = context.knob("items")
        let stuck = Localized("a thread did not end", ja: "スレッドが終わりませんでした")
        context.trace.record(Localized("start producer", ja: "生産者を開始"))
        // The lanes are named after the threads' roles; their instants are the items put and taken.
        let lanes = (producer: context.text(Localized("producer", ja: "生産者")), consumer: context.text(Localized("consumer", ja: "消費者")))
        let buffer = Buffer(capacity: capacity, trace: context.trace, lanes: lanes)
        let producer = StartedThread {
            for item in 1...count { buffer.put(item) }
        }
        // Start the consumer once the producer waits on a full buffer (if it ever will).
        if count > capacity {
            try wait(for: buffer.firstFullWait, Localized("the producer never filled the buffer", ja: "生産者がバッファを満たしませんでした"))
        } else {
            try producer.join(stuck)
        }
        context.trace.record(Localized("start consumer", ja: "消費者を開始"))
        let received = Locked<[Int]>([])
        let consumer = StartedThread {
            for _ in 1...count {
                let item = buffer.take()
                received.withLock { $0.append(item) }
                spin(microseconds: 300)  // the consumer is the slower side
            }
        }
        try producer.join(stuck)
        try consumer.join(stuck)

        let got = received.current, waits = buffer.waits
        let inOrder = got == Array(1...count)
        context.note("received in order", String(inOrder))
        context.note("full waits", String(waits.full))
        context.say(Localized(
            """
            consumer received: \(got.map(String.init).joined(separator: " ")) — \(inOrder ? "every item once, in order" : "NOT every item once, in order").
            the producer waited on a full buffer \(waits.full) time(s); the consumer waited on an empty one \(waits.empty) time(s).
            """,
            ja: """
            消費者が受け取ったもの: \(got.map(String.init).joined(separator: " ")) — \(inOrder ? "どれも 1 回ずつ、順番どおり" : "1 回ずつ順番どおりではない")。
            生産者は満杯のバッファで \(waits.full) 回、消費者は空のバッファで \(waits.empty) 回待ちました。
            """))
    }
}
