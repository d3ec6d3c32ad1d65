import WorkbookCore

extension Chapter06 {
    /// A download's progress as a stream that can fail: 25, 50, then either 75, 100 and the end,
    /// or `finish(throwing: .connectionLost)`. The progress is reported before anyone reads it,
    /// all at once: what the loop sees is what the stream kept.
    static func downloadProgress(failsHalfway: Bool) -> AsyncThrowingStream<Int, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        continuation.yield(25)
        continuation.yield(50)
        if failsHalfway {
            continuation.finish(throwing: StreamError.connectionLost)
        } else {
            continuation.yield(75)
            continuation.yield(100)
            continuation.finish()
        }
        return stream
    }

    /// What the screen's loop saw: the progress values, then how the loop ended.
    static func showProgress(_ progress: AsyncThrowingStream<Int, any Error>, trace: Trace, lane: Localized) async -> (values: [Int], ending: String) {
        var values: [Int] = []
        do {
            for try await percent in progress {
                trace.record(.verbatim("\(percent)%"), lane: lane)
                values.append(percent)
            }
            trace.record(Localized("loop ended", ja: "ループ終了"), lane: lane)
            return (values, "ended")
        } catch {
            trace.record(caught(error), lane: lane)
            return (values, errorName(error))
        }
    }

    static let throwingStream = Scenario(
        slug: "throwing-stream",
        title: Localized("AsyncThrowingStream: progress, then finish(throwing:)", ja: "AsyncThrowingStream: 進捗、そして finish(throwing:)"),
        narration: Localized(
            """
            An `async` function returns one outcome; progress along the way is a stream. `AsyncThrowingStream` is `AsyncStream` with an error: \
            `finish(throwing: error)` ends it, and the consumer's `for try await` throws that error once it has taken the values sent before it. \
            1) A download reports 25 %, 50 %, then its connection drops: `finish(throwing: .connectionLost)`. 2) It reports 25, 50, 75, 100 and `finish()`. \
            Both streams were filled before the loop started, so the values waited in the buffer.
            """,
            ja: """
            `async` 関数が返すのは 1 つの結果です。途中の進捗はストリームにします。`AsyncThrowingStream` はエラーを持てる `AsyncStream` です。\
            `finish(throwing: error)` で終わり、消費者の `for try await` は、それより前に送られた値を受け取った後、そのエラーをスローします。\
            1) ダウンロードが 25 %、50 % を報告した後、接続が切れます: `finish(throwing: .connectionLost)`。2) 25、50、75、100 を報告して `finish()`。\
            どちらもループが始まる前にストリームを満たしたので、値はバッファで待っていました。
            """)
    ) { context in
        let failing = await showProgress(downloadProgress(failsHalfway: true), trace: context.trace, lane: Localized("download 1", ja: "ダウンロード 1"))
        let complete = await showProgress(downloadProgress(failsHalfway: false), trace: context.trace, lane: Localized("download 2", ja: "ダウンロード 2"))
        context.note("failing values", listed(failing.values))
        context.note("failing ending", failing.ending)
        context.note("complete values", listed(complete.values))
        context.note("complete ending", complete.ending)
        context.say(Localized(
            """
            1) The loop got \(listed(failing.values)), then `for try await` threw \(failing.ending).
            2) The loop got \(listed(complete.values)) and ended.
            """,
            ja: """
            1) ループは \(listed(failing.values)) を受け取り、その後 `for try await` が \(failing.ending) をスローした。
            2) ループは \(listed(complete.values)) を受け取って終わった。
            """))
    }
}
