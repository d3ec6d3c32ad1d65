import WorkbookCore
import WorkbookExplorer

/// One stream per consumer: `stream()` registers a new consumer, `send` yields to each of them.
/// A consumer whose stream ends is forgotten (`onTermination`).
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var consumers: [Int: AsyncStream<Element>.Continuation] = [:]
        var next = 0
    }
    private let state = Locked(State())

    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id = state.withLock { state in
            state.next += 1
            state.consumers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [state] _ in state.withLock { _ = $0.consumers.removeValue(forKey: id) } }
        return stream
    }

    func send(_ element: Element) { for consumer in state.current.consumers.values { consumer.yield(element) } }

    func finish() { for consumer in state.current.consumers.values { consumer.finish() } }
}

extension Chapter06 {
    /// Two tasks iterate one `AsyncStream` while a producer yields 1–6, `pause` apart. Returns
    /// `A=[…] B=[…]`.
    static func twoConsumersOfOneStream(pause: @escaping @Sendable () async -> Void, log: VirtualLog? = nil) async -> String {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        nameNextTasks("A", "B")
        let consumers = ["A", "B"].map { name in
            Task {
                var got: [Int] = []
                for await value in stream {
                    log?.point(.verbatim("\(value)"), lane: .verbatim(name))
                    got.append(value)
                }
                return got
            }
        }
        await pause()                                   // let both reach the loop
        for value in 1...6 {
            log?.point(.verbatim("yield(\(value))"), lane: Localized("producer", ja: "生産者"))
            continuation.yield(value)
            await pause()
        }
        continuation.finish()
        let a = await consumers[0].value, b = await consumers[1].value
        return "A=\(listed(a)) B=\(listed(b))"
    }

    /// The same two consumers, each with a stream of its own from a `Broadcast`.
    static func twoConsumersBroadcast() async -> String {
        let broadcast = Broadcast<Int>()
        let streams = [broadcast.stream(), broadcast.stream()]   // subscribed before anything is sent
        let consumers = streams.map { stream in
            Task {
                var got: [Int] = []
                for await value in stream { got.append(value) }
                return got
            }
        }
        for value in 1...6 { broadcast.send(value) }
        broadcast.finish()
        let a = await consumers[0].value, b = await consumers[1].value
        return "A=\(listed(a)) B=\(listed(b))"
    }

    static let twoConsumers = Scenario(
        slug: "two-consumers",
        title: Localized("Two consumers of one stream split the values", ja: "1 つのストリームを 2 つの消費者で読むと、値が分かれる"),
        narration: Localized(
            """
            Two tasks, A and B, iterate the same `AsyncStream` while a producer yields 1 to 6. Each value goes to one waiting iterator, not to both: the consumers split the values. \
            1) In virtual time, the default schedule, drawn. 2) In real time, `repeats` times (1 ms apart), tallied: which splits happened on this machine. \
            3) A broadcast: one stream per consumer (`Broadcast`, a few lines of our own), and each consumer gets every value.
            """,
            ja: """
            A と B の 2 つのタスクが同じ `AsyncStream` を回し、生産者が 1 から 6 を `yield` します。値は待っているイテレータの 1 つにだけ届き、両方には届きません。消費者で値が分かれます。\
            1) 仮想時間で、既定のスケジュールを描きます。2) 実時間で `repeats` 回（1 ms 間隔）実行し、このマシンでどの分かれ方が起きたかを数えます。\
            3) ブロードキャスト: 消費者ごとに 1 本のストリーム（自作の数行の `Broadcast`）を用意すると、どちらの消費者もすべての値を受け取ります。
            """),
        knobs: [.init("repeats", default: 50, range: 1...500, help: Localized("real-time runs to tally", ja: "数える実時間の実行回数"))],
        prediction: .init(
            question: Localized(
                "Two tasks iterate one AsyncStream; the producer yields 1…6. What do they get?\n  A) both get 1…6\n  B) they split the values between them\n  C) a crash",
                ja: "2 つのタスクが 1 つの AsyncStream を回し、生産者が 1…6 を送ります。受け取るのは？\n  A) 両方が 1…6\n  B) 2 つで値を分け合う\n  C) クラッシュ"),
            explanation: Localized(
                "B. An AsyncStream has one buffer and hands each value to one waiting `next()`. With two iterators the values are shared out — which goes where depends on who is waiting. To give every consumer every value, give each its own stream.",
                ja: "B です。AsyncStream のバッファは 1 つで、各値を待っている `next()` の 1 つに渡します。イテレータが 2 つあると値は分配され、どちらに行くかは、その時に誰が待っているかで決まります。すべての消費者にすべての値を渡すには、それぞれにストリームを用意します。"),
            observe: { $0.noted("split answer") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        // 1) Virtual time, drawn.
        let log = VirtualLog()
        let virtual = await inVirtualTime {
            await twoConsumersOfOneStream(pause: { try? await ExplorerClock().sleep(for: .milliseconds(1)) }, log: log)
        }
        draw(log.events, on: context.trace)
        context.note("virtual split", virtual.outcomeText)
        context.say(Localized("1) Virtual time, default schedule: \(virtual.outcomeText).", ja: "1) 仮想時間、既定のスケジュール: \(virtual.outcomeText)。"))

        // 2) Real time, tallied.
        var tally = OutcomeTally { outcome in outcome == "A=[1, 2, 3, 4, 5, 6] B=[1, 2, 3, 4, 5, 6]" ? .acceptable : .interesting }
        for _ in 0..<context.knob("repeats") {
            tally.record(await twoConsumersOfOneStream(pause: { try? await Task.sleep(for: .milliseconds(1)) }))
        }
        let splits = tally.outcomes
        context.note("real outcomes", splits.map { "\($0.outcome): \($0.count)" }.joined(separator: " | "))
        let everyoneGotAll = splits.contains { $0.outcome == "A=[1, 2, 3, 4, 5, 6] B=[1, 2, 3, 4, 5, 6]" }
        context.note("split answer", everyoneGotAll ? "A" : "B")
        context.say(Localized("2) Real time, \(context.knob("repeats")) runs:", ja: "2) 実時間で \(context.knob("repeats")) 回:"))
        for (outcome, count) in splits.sorted(by: { $0.count > $1.count }) {
            context.show("   \(padded(String(count), to: 4)) \(outcome)")
        }

        // The explorer: every schedule within one preemption, with Task.yield() between values.
        let explored = await onDedicatedThread {
            Explorer.explore(.exhaustive(maxPreemptions: 1), budget: .init(maxSchedules: 2_000, maxSeconds: 10)) {
                await twoConsumersOfOneStream(pause: { await Task.yield() })
            }
        }
        let kinds = explored.outcomes.map(\.outcome)
        context.note("explored outcomes", kinds.joined(separator: " | "))
        context.note("explored both got all", String(kinds.contains("A=[1, 2, 3, 4, 5, 6] B=[1, 2, 3, 4, 5, 6]")))
        context.say(Localized(
            "   The explorer, \(explored.schedulesRun) schedules within one preemption: \(kinds.count) different splits, none where both got every value; e.g. \(kinds.prefix(3).joined(separator: "; ")).",
            ja: "   エクスプローラでプリエンプション 1 回以内のスケジュール \(explored.schedulesRun) 個: 分かれ方は \(kinds.count) 通りで、両方がすべての値を受け取ったものはなし。例: \(kinds.prefix(3).joined(separator: "、"))。"))

        // 3) Broadcast.
        let broadcast = await twoConsumersBroadcast()
        context.note("broadcast", broadcast)
        context.say(Localized("3) One stream per consumer: \(broadcast).", ja: "3) 消費者ごとに 1 本のストリーム: \(broadcast)。"))
    }
}
