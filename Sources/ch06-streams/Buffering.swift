import WorkbookCore
import WorkbookExplorer

extension Chapter06 {
    /// How a fast producer and a slow consumer met.
    struct BufferRun: Sendable, Equatable {
        var received: [Int] = []
        var dropped: [Int] = []
        var producerDone = 0
        var consumerDone = 0
    }

    /// The ways to let a fast producer meet a slow consumer.
    enum Pacing: Sendable, CaseIterable {
        case unbounded, newest, oldest, backPressure

        var name: String {
            switch self {
            case .unbounded: ".unbounded"
            case .newest: ".bufferingNewest(1)"
            case .oldest: ".bufferingOldest(2)"
            case .backPressure: "PacedChannel"
            }
        }
    }

    /// A producer sends 1–8, one every 2 ms; the consumer takes 5 ms per value. In virtual time.
    /// For a buffering policy, each `yield`'s result says what was dropped: with
    /// `bufferingNewest` the oldest buffered value goes, with `bufferingOldest` the new one.
    static func fastProducer(_ pacing: Pacing, log: VirtualLog?) async -> BufferRun {
        let clock = ExplorerClock()
        let run = Locked(BufferRun())
        let producerLane = Localized("producer", ja: "生産者"), consumerLane = Localized("consumer", ja: "消費者")
        nameTask(Localized("consumer", ja: "消費者"))
        func consume<S: AsyncSequence>(_ values: S) async where S.Element == Int, S.Failure == Never {
            for await value in values {
                let start = log?.nanoseconds ?? 0
                try? await clock.sleep(for: .milliseconds(5))     // slow work on each value
                log?.span(.verbatim("\(value)"), lane: consumerLane, from: start)
                run.withLock { $0.received.append(value) }
            }
            run.withLock { $0.consumerDone = milliseconds(clock.now.offset) }
        }
        nameNextTasks(BilingualLabel.join("producer", "生産者"))
        switch pacing {
        case .backPressure:
            let channel = PacedChannel<Int>()
            let producer = Task {
                for value in 1...8 {
                    let start = log?.nanoseconds ?? 0
                    await channel.send(value)                       // waits for the consumer
                    log?.span(.verbatim("send(\(value))"), lane: producerLane, from: start)
                    try? await clock.sleep(for: .milliseconds(2))
                }
                channel.finish()
                run.withLock { $0.producerDone = milliseconds(clock.now.offset) }
            }
            await consume(channel)
            await producer.value
        default:
            let policy: AsyncStream<Int>.Continuation.BufferingPolicy = switch pacing {
            case .newest: .bufferingNewest(1)
            case .oldest: .bufferingOldest(2)
            default: .unbounded
            }
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: policy)
            let producer = Task {
                for value in 1...8 {
                    let result = continuation.yield(value)          // never waits
                    if case let .dropped(lost) = result {
                        run.withLock { $0.dropped.append(lost) }
                        log?.point(Localized("yield(\(value)): \(lost) dropped", ja: "yield(\(value)): \(lost) を捨てた"), lane: producerLane)
                    } else {
                        log?.point(.verbatim("yield(\(value))"), lane: producerLane)
                    }
                    try? await clock.sleep(for: .milliseconds(2))
                }
                continuation.finish()
                run.withLock { $0.producerDone = milliseconds(clock.now.offset) }
            }
            await consume(stream)
            await producer.value
        }
        return run.current
    }

    static let buffering = Scenario(
        slug: "buffering",
        title: Localized("Buffering policies and back-pressure: a fast producer, a slow consumer",
                         ja: "バッファリングのポリシーとバックプレッシャー: 速い生産者、遅い消費者"),
        narration: Localized(
            """
            A producer sends 1 to 8, one every 2 ms; the consumer spends 5 ms on each. In virtual time, so every run is the same. \
            `yield` never waits: what the consumer has not taken yet waits in the stream's *buffer*, and the buffering policy says what happens when it is full. \
            `.unbounded` keeps everything (the buffer grows as long as the producer is ahead); `.bufferingNewest(1)` keeps the latest value and drops older ones — right for a position or a progress value; \
            `.bufferingOldest(2)` keeps the first two and drops new values while full. `yield` returns `.dropped(value)` for each loss. \
            *Back-pressure* is the third way: `PacedChannel`, a small channel of our own shaped like `AsyncChannel` (swift-async-algorithms), makes `send` wait until the consumer takes the value, \
            so the producer slows to the consumer's pace and nothing is buffered or dropped. The timeline draws `.bufferingNewest(1)`.
            """,
            ja: """
            生産者は 1 から 8 を 2 ms ごとに送り、消費者は 1 つに 5 ms かけます。仮想時間で実行するので、毎回同じ結果になります。\
            `yield` は待ちません。消費者がまだ受け取っていない値はストリームの *バッファ* で待ち、満杯の時にどうするかをバッファリングのポリシーが決めます。\
            `.unbounded` はすべてを保持します（生産者が先行している間、バッファは大きくなります）。`.bufferingNewest(1)` は最新の値を残して古い値を捨てます。位置や進捗の値に向いています。\
            `.bufferingOldest(2)` は最初の 2 つを残し、満杯の間は新しい値を捨てます。値を捨てるたびに `yield` は `.dropped(value)` を返します。\
            3 つ目のやり方が *バックプレッシャー* です。`AsyncChannel`（swift-async-algorithms）の形をした自作の小さなチャネル `PacedChannel` では、消費者が値を受け取るまで `send` が待つので、\
            生産者は消費者のペースまで遅くなり、何もためず、何も捨てません。タイムラインは `.bufferingNewest(1)` を描きます。
            """),
        prediction: .init(
            question: Localized(
                "With `.bufferingNewest(1)`, which values does the consumer get?\n  A) all eight\n  B) only 8\n  C) some, always including 1 and 8\n  D) the first and then nothing",
                ja: "`.bufferingNewest(1)` では、消費者が受け取るのはどの値？\n  A) 8 つすべて\n  B) 8 だけ\n  C) 一部で、1 と 8 は必ず含む\n  D) 最初の値だけ"),
            explanation: Localized(
                "C. The consumer was already waiting when 1 came, so 1 went straight to it. While it worked, each new value replaced the one in the one-place buffer, and when it asked again it got the latest. The last value, 8, is never replaced.",
                ja: "C です。1 が来た時、消費者はすでに待っていたので、1 はそのまま渡りました。消費者が作業している間、新しい値が来るたびに 1 つだけのバッファの中身が入れ替わり、次に尋ねた時には最新の値を受け取りました。最後の値 8 は入れ替わりません。"),
            observe: { $0.noted("newest: answer") ?? "" },
            isPossible: { $0 == "C" })
    ) { context in
        var runs: [Pacing: BufferRun] = [:]
        for pacing in Pacing.allCases {
            let log = pacing == .newest ? VirtualLog() : nil
            let result = Locked(BufferRun())
            _ = await inVirtualTime {
                let run = await fastProducer(pacing, log: log)
                result.withLock { $0 = run }
                return listed(run.received)
            }
            runs[pacing] = result.current
            if let log { draw(log.events, on: context.trace) }
        }
        // The last column is not padded: the widest line (the header) is 80 columns.
        let widths = [21, 26, 14, 9]
        context.show(tableRow([Localized("policy", ja: "ポリシー"), Localized("received", ja: "受け取った値"), Localized("dropped", ja: "捨てた値"),
                               Localized("producer", ja: "生産者"), Localized("consumer", ja: "消費者")].map(context.text), widths: widths))
        for pacing in Pacing.allCases {
            let run = runs[pacing]!
            context.show(tableRow([pacing.name, listed(run.received), run.dropped.isEmpty ? "—" : listed(run.dropped),
                                   "\(run.producerDone) ms", "\(run.consumerDone) ms"], widths: widths))
            context.note("\(pacing.name) received", listed(run.received))
            context.note("\(pacing.name) dropped", listed(run.dropped))
            context.note("\(pacing.name) producer done", String(run.producerDone))
            context.note("\(pacing.name) consumer done", String(run.consumerDone))
        }
        let newest = runs[.newest]!.received
        let answer = newest.count == 8 ? "A" : newest == [8] ? "B" : newest.first == 1 && newest.last == 8 ? "C" : "D"
        context.note("newest: answer", answer)
        context.say(Localized(
            "The producer and consumer columns say when each finished (virtual ms). Buffering lets the producer finish early; back-pressure makes it wait for the consumer; dropping loses values but keeps the latest.",
            ja: "生産者と消費者の列は、それぞれが終わった時刻（仮想時間の ms）です。バッファリングでは生産者が早く終わり、バックプレッシャーでは消費者を待ち、値を捨てるやり方では値を失う代わりに最新の値が残ります。"))
    }
}
