import WorkbookCore
import WorkbookExplorer

extension Chapter06 {
    // MARK: Game 1: can a stream drop a reading?

    /// A producer yields readings 1, 2, 3 into an `AsyncStream` with `.bufferingNewest(1)`; a
    /// consumer reads them. Returns `received=[…]`.
    @Sendable static func newestOneReadings() async -> String {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        nameTask(Localized("consumer", ja: "消費者"))
        nameNextTasks(BilingualLabel.join("producer", "生産者"))
        let producer = Task {
            for reading in 1...3 {
                let result = continuation.yield(reading)
                if case let .dropped(lost) = result {
                    checkpoint(Localized("producer: yield(\(reading)): \(lost) dropped", ja: "生産者: yield(\(reading)): \(lost) を捨てた"))
                } else {
                    checkpoint(Localized("producer: yield(\(reading))", ja: "生産者: yield(\(reading))"))
                }
                await Task.yield()
            }
            continuation.finish()
        }
        var received: [Int] = []
        checkpoint(Localized("consumer: waits for a reading", ja: "消費者: 読み取り値を待つ"))
        for await reading in stream {
            received.append(reading)
            checkpoint(Localized("consumer: got \(reading)", ja: "消費者: \(reading) を受け取った"))
        }
        await producer.value
        return "received=\(listed(received))"
    }

    static func classifyReadings(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "received=[1, 2, 3]" ? .acceptable : .forbidden
    }

    static let dropGame = Game(
        slug: "drop-a-reading",
        title: Localized("bufferingNewest(1): can you make the consumer miss a reading?", ja: "bufferingNewest(1): 消費者に読み取り値を取り逃させられるか？"),
        narration: Localized(
            """
            A producer yields readings 1, 2, 3 into an `AsyncStream` made with `.bufferingNewest(1)`, with `Task.yield()` after each; \
            a consumer reads them with `for await`. You choose who runs at each step. Every reading matters here (say, a step count). \
            Can you make the consumer miss one?
            """,
            ja: """
            生産者が読み取り値 1、2、3 を `.bufferingNewest(1)` で作った `AsyncStream` に `yield` し、そのたびに `Task.yield()` します。\
            消費者は `for await` で読みます。各ステップで誰を動かすかをあなたが選びます。ここではどの読み取り値も大事です（歩数など）。\
            消費者に 1 つ取り逃させることはできますか？
            """),
        explanation: Localized(
            """
            The producer ran twice while the consumer was not waiting: the second `yield` found the one-place buffer full and replaced the older reading, \
            and `yield` returned `.dropped` with it. `bufferingNewest(1)` is the right policy when only the latest value matters (a position, a progress bar), \
            never when every value counts: then use `.unbounded` or a channel that makes the producer wait (back-pressure, scenario 6).
            """,
            ja: """
            消費者が待っていない間に生産者が 2 回動きました。2 回目の `yield` は 1 つだけのバッファが埋まっているのを見て古い値を置き換え、その値を `.dropped` で返しました。\
            `bufferingNewest(1)` が正しいのは最新の値だけが意味を持つ時（位置、進捗バー）で、すべての値が大事な時には使いません。\
            その時は `.unbounded` か、生産者を待たせるチャネル（バックプレッシャー、シナリオ 6）を使います。
            """),
        classify: classifyReadings,
        body: newestOneReadings)

    // MARK: Game 2: the naive bridge and a cancel

    /// The caller awaits a request's reply through the naive bridge; the reply comes at 20 ms,
    /// and the screen cancels the caller at 20 ms. Returns `cancel=before|after answer=…`.
    @Sendable static func naiveBridgeCancelled() async -> String {
        let clock = ExplorerClock()
        let cancelledFirst = Locked<Bool?>(nil)
        let request = FakePublisher<String> { subscriber in
            checkpoint(Localized("request: sent; the reply takes 20 ms", ja: "リクエスト: 送信。応答まで 20 ms"))
            let reply = Task {
                nameTask(Localized("reply", ja: "応答"))
                try? await clock.sleep(for: .milliseconds(20))
                cancelledFirst.withLock { $0 = $0 ?? false }
                checkpoint(Localized("reply: onValue(\"photo\")", ja: "応答: onValue(\"photo\")"))
                subscriber.send("photo")
                subscriber.complete(.finished)
            }
            return { reply.cancel() }
        }
        nameNextTasks(BilingualLabel.join("caller", "呼び出し元"))
        let caller = Task {
            checkpoint(Localized("caller: awaits naiveFirstValue()", ja: "呼び出し元: naiveFirstValue() を待つ"))
            let answer = (try? await request.naiveFirstValue()) ?? "error"
            checkpoint(Localized("caller: goes on with \"\(answer)\" (isCancelled: \(Task.isCancelled))",
                                 ja: "呼び出し元: \"\(answer)\" で続行（isCancelled: \(Task.isCancelled)）"))
            return answer
        }
        nameTask(Localized("screen", ja: "画面"))
        try? await clock.sleep(for: .milliseconds(20))
        cancelledFirst.withLock { $0 = $0 ?? true }
        checkpoint(Localized("screen: closes, calls caller.cancel()", ja: "画面: 閉じて caller.cancel() を呼ぶ"))
        caller.cancel()
        let answer = await caller.value
        return "cancel=\(cancelledFirst.current == true ? "before" : "after") answer=\(answer)"
    }

    static func classifyCancelledBridge(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.hasPrefix("cancel=before answer=photo") ? .forbidden : .acceptable
    }

    static let cancelBridgeGame = Game(
        slug: "cancel-the-naive-bridge",
        title: Localized("The naive bridge and a cancel: does the caller stop?", ja: "素朴なブリッジとキャンセル: 呼び出し元は止まるか？"),
        narration: Localized(
            """
            A caller awaits a request's reply through the naive bridge of scenario 2 (a continuation and a sink, no cancellation handler). \
            The reply takes 20 ms; the screen closes at 20 ms and cancels the caller. Both timers are due together, and you pick which fires first. \
            A cancelled caller should stop. Can you find a schedule where it is cancelled first and still goes on with the reply?
            """,
            ja: """
            呼び出し元が、シナリオ 2 の素朴なブリッジ（継続と `sink` だけで、キャンセルハンドラなし）を通してリクエストの応答を待ちます。\
            応答には 20 ms かかり、画面は 20 ms で閉じて呼び出し元をキャンセルします。2 つのタイマーは同時に満了するので、どちらを先に発火させるかをあなたが選びます。\
            キャンセルされた呼び出し元は止まるべきです。先にキャンセルされたのに、応答を受け取って続行するスケジュールを見つけられますか？
            """),
        explanation: Localized(
            """
            The cancel came first, and the caller went on with the reply anyway: the naive bridge never looks at cancellation, so the cancelled task waited for the publisher \
            with its subscription live. Had the reply taken a minute, the closed screen's task would have waited a minute; had it never come, for ever. \
            The careful bridge adds `withTaskCancellationHandler`, cancels the subscription and throws `CancellationError` at once (scenario 2; chapter 05, §8).
            """,
            ja: """
            キャンセルが先に来たのに、呼び出し元は応答を受け取って続行しました。素朴なブリッジはキャンセルを一切見ないので、キャンセルされたタスクは購読を生かしたままパブリッシャを待ったのです。\
            応答に 1 分かかれば、閉じた画面のタスクは 1 分待ち、応答が来なければ永遠に待ちます。\
            注意深いブリッジは `withTaskCancellationHandler` を加え、購読をキャンセルしてすぐに `CancellationError` をスローします（シナリオ 2、第 05 章 §8）。
            """),
        classify: classifyCancelledBridge,
        body: naiveBridgeCancelled)
}
