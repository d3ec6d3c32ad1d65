import Foundation
import WorkbookCore

/// A callback source that delivers many values: a sensor with `start(_:)` and `stop()`, calling
/// its handler from a thread of its own every 2 ms — `reading` 1, 2, 3, … — and, if it has a
/// `limit`, `nil` after the last one (finished).
final class Sensor: Sendable {
    private struct State {
        var running = false
        var delivered = 0
        var stops = 0
    }
    private let state = Locked(State())
    private let limit: Int?
    private let trace: Trace
    private let lane: Localized

    init(limit: Int? = nil, trace: Trace, lane: Localized) {
        self.limit = limit
        self.trace = trace
        self.lane = lane
    }

    var delivered: Int { state.current.delivered }
    var stops: Int { state.current.stops }
    var isRunning: Bool { state.current.running }

    func start(_ handler: @escaping @Sendable (Int?) -> Void) {
        state.withLock { $0.running = true }
        trace.record(.verbatim("start()"), lane: lane)
        let thread = Thread { [self] in
            var reading = 0
            while state.current.running {
                Thread.sleep(forTimeInterval: 0.002)
                reading += 1
                if let limit, reading > limit {
                    state.withLock { $0.running = false }
                    handler(nil)
                    return
                }
                // Decided under the lock: after `stop()` nothing new is delivered.
                guard state.withLock({ state -> Bool in
                    guard state.running else { return false }
                    state.delivered += 1
                    return true
                }) else { return }
                handler(reading)
            }
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.running = false; $0.stops += 1 }
        trace.record(.verbatim("stop()"), lane: lane)
    }
}

extension Chapter06 {
    /// The bridge: the sensor's readings as an `AsyncStream`. `onTermination` stops the sensor
    /// when the stream ends for any reason: the sensor finished, the consumer's task was
    /// cancelled, or the stream and its iterator were released (a loop that broke out).
    static func readings(from sensor: Sensor, trace: Trace, lane: Localized) -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        continuation.onTermination = { reason in
            trace.record(.verbatim("onTermination(\(reason == .finished ? ".finished" : ".cancelled"))"), lane: lane)
            sensor.stop()
        }
        sensor.start { reading in
            if let reading {
                continuation.yield(reading)
            } else {
                continuation.finish()
            }
        }
        return stream
    }

    /// The hasty bridge: no `onTermination`, so nothing stops the sensor when the consumer goes.
    static func readingsWithoutTermination(from sensor: Sensor) -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        sensor.start { reading in
            if let reading { continuation.yield(reading) } else { continuation.finish() }
        }
        return stream
    }

    /// Takes `count` readings and breaks; the stream is this function's, released when it returns.
    static func firstReadings(_ count: Int, of stream: AsyncStream<Int>) async -> [Int] {
        var taken: [Int] = []
        for await reading in stream {
            taken.append(reading)
            if taken.count == count { break }
        }
        return taken
    }

    /// Polls `condition` every millisecond for up to a second.
    static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    static let callbackStream = Scenario(
        slug: "async-stream",
        title: Localized("AsyncStream: a callback source of many values, stopped by onTermination",
                         ja: "AsyncStream: 多くの値を送るコールバックのソースを、onTermination で止める"),
        narration: Localized(
            """
            A sensor calls its handler every 2 ms from its own thread until `stop()`. A continuation can be resumed only once (chapter 05); \
            a source of many values becomes a *stream*: `AsyncStream.makeStream(of: Int.self)` returns the stream and its continuation; \
            the handler calls `continuation.yield(reading)`, the end calls `finish()`, and `continuation.onTermination` stops the sensor when the stream ends. \
            1) The loop takes 3 readings and breaks, in a function that owns the stream: `onTermination(.cancelled)` runs when the function returns and releases the stream. \
            Kept in a variable after the `break`, the stream does not end, and the sensor goes on. \
            2) The consuming task is cancelled: the loop ends and `onTermination(.cancelled)` runs. Without `onTermination`, the sensor goes on after the cancel. \
            3) A sensor with 3 readings finishes: `finish()` ends the loop after the last reading, and `onTermination(.finished)` runs. \
            4) `yield` after the end returns `.terminated`: the value reaches no one.
            """,
            ja: """
            センサーは `stop()` まで、自分のスレッドから 2 ms ごとにハンドラを呼びます。継続の再開は 1 回だけです（第 05 章）。\
            多くの値を送るソースは *ストリーム* にします。`AsyncStream.makeStream(of: Int.self)` はストリームとその継続を返します。\
            ハンドラは `continuation.yield(reading)` を呼び、終わりでは `finish()` を呼びます。ストリームが終わると、`continuation.onTermination` がセンサーを止めます。\
            1) ループは 3 つの読み取り値を受け取って `break` します。ストリームを持つ関数の中で行うと、関数が戻ってストリームを手放した時に `onTermination(.cancelled)` が実行されます。\
            `break` の後もストリームを変数に持ち続けると、ストリームは終わらず、センサーは動き続けます。\
            2) 消費するタスクをキャンセル: ループが終わり、`onTermination(.cancelled)` が実行されます。`onTermination` がなければ、キャンセルの後もセンサーは動き続けます。\
            3) 読み取り値が 3 つのセンサーが完了: `finish()` により最後の値の後でループが終わり、`onTermination(.finished)` が実行されます。\
            4) 終わった後の `yield` は `.terminated` を返します。その値は誰にも届きません。
            """)
    ) { context in
        let sensorLane = Localized("sensor", ja: "センサー"), loop = Localized("loop", ja: "ループ"), stream = Localized("stream", ja: "ストリーム")

        // 1) break in a function that owns the stream; then a stream kept after break.
        let owned = Sensor(trace: context.trace, lane: sensorLane)
        let taken = await firstReadings(3, of: readings(from: owned, trace: context.trace, lane: stream))
        context.trace.record(Localized("returned \(listed(taken))", ja: "\(listed(taken)) で戻った"), lane: loop)
        let ownedStopped = await eventually { owned.stops == 1 }
        context.note("break: taken", listed(taken))
        context.note("break: sensor stopped", String(ownedStopped))

        let keptSensor = Sensor(trace: context.trace, lane: sensorLane)
        var kept: AsyncStream<Int>? = readings(from: keptSensor, trace: context.trace, lane: stream)
        var keptTaken: [Int] = []
        for await reading in kept! {
            keptTaken.append(reading)
            if keptTaken.count == 3 { break }
        }
        context.trace.record(Localized("break; the stream is kept", ja: "ループを抜けた。ストリームは保持したまま"), lane: loop)
        let afterBreak = keptSensor.delivered
        let stillRunning = await eventually { keptSensor.delivered >= afterBreak + 3 }
        context.note("kept: still running after break", String(stillRunning && keptSensor.stops == 0))
        kept = nil
        let keptStopped = await eventually { keptSensor.stops == 1 }
        context.note("kept: stopped once released", String(keptStopped))
        context.say(Localized(
            """
            1) Took \(listed(taken)) and broke out in a function that owns the stream: the sensor was \(ownedStopped ? "stopped once the function returned" : "NOT stopped"). \
            Broke out but kept the stream: the sensor went on (\(stillRunning ? "3 more readings for nobody" : "no more readings")) until the stream was released, then it was stopped.
            """,
            ja: """
            1) \(listed(taken)) を受け取り、ストリームを持つ関数の中でループを抜けた: センサーは\(ownedStopped ? "関数が戻った時点で止まった" : "止まらなかった")。\
            ループを抜けたがストリームを保持した: ストリームを手放すまでセンサーは動き続け（\(stillRunning ? "誰も読まない値があと 3 つ" : "それ以上の値はなし")）、手放した後に止まった。
            """))

        // 2) The consuming task cancelled; and the hasty bridge without onTermination.
        let cancelled = Sensor(trace: context.trace, lane: sensorLane)
        let values = readings(from: cancelled, trace: context.trace, lane: stream)
        let gotTwo = OneShotSignal()
        let consumer = Task {
            var count = 0
            for await _ in values {
                count += 1
                if count == 2 { gotTwo.fire() }
            }
            return count
        }
        try await gotTwo.wait(Localized("the consumer got no readings", ja: "消費者に読み取り値が届きませんでした"))
        context.trace.record(.verbatim("consumer.cancel()"), lane: loop)
        consumer.cancel()
        let consumed = await consumer.value
        let cancelStopped = await eventually { cancelled.stops == 1 }
        context.note("cancel: sensor stopped", String(cancelStopped))

        let hasty = Sensor(trace: context.trace, lane: Localized("hasty sensor", ja: "急いだ版のセンサー"))
        let hastyValues = readingsWithoutTermination(from: hasty)
        let hastyConsumer = Task { for await _ in hastyValues {} }
        _ = await eventually { hasty.delivered >= 2 }
        hastyConsumer.cancel()
        await hastyConsumer.value
        let atCancel = hasty.delivered
        let hastyRanOn = await eventually { hasty.delivered >= atCancel + 3 }
        hasty.stop()                               // the scenario's own cleanup
        context.note("hasty: running after cancel", String(hastyRanOn))
        context.say(Localized(
            """
            2) The consumer was cancelled after \(consumed) readings: its loop ended and onTermination \(cancelStopped ? "stopped the sensor" : "did NOT stop the sensor"). \
            Without onTermination, the sensor \(hastyRanOn ? "went on delivering after the cancel (the scenario stopped it by hand)" : "stopped delivering").
            """,
            ja: """
            2) 消費者を \(consumed) 個の値の後でキャンセル: ループが終わり、onTermination が\(cancelStopped ? "センサーを止めた" : "センサーを止めなかった")。\
            onTermination がないと、センサーは\(hastyRanOn ? "キャンセルの後も値を送り続けた（シナリオが手で止めた）" : "値を送るのをやめた")。
            """))

        // 3) The source finishes.
        let finite = Sensor(limit: 3, trace: context.trace, lane: sensorLane)
        var all: [Int] = []
        for await reading in readings(from: finite, trace: context.trace, lane: stream) { all.append(reading) }
        context.trace.record(Localized("loop ended", ja: "ループ終了"), lane: loop)
        context.note("finished: readings", listed(all))
        context.say(Localized("3) A sensor with 3 readings: the loop got \(listed(all)) and ended at finish().",
                              ja: "3) 読み取り値 3 つのセンサー: ループは \(listed(all)) を受け取り、finish() で終わった。"))

        // 4) Yield after termination.
        let (ended, continuation) = AsyncStream.makeStream(of: Int.self)
        continuation.finish()
        let result = continuation.yield(9)
        let answer = if case .terminated = result { ".terminated" } else { "\(result)" }
        context.trace.record(.verbatim("yield(9): \(answer)"), lane: stream)
        _ = ended
        context.note("yield after finish", answer)
        context.say(Localized("4) yield(9) after finish() → \(answer).", ja: "4) finish() の後の yield(9) → \(answer)。"))
    }
}
