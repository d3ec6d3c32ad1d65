import WorkbookCore

/// An `AsyncSequence` of our own: counts down from `start` to 1. Each `next()` is an `await`
/// (a suspension point) and says on the trace what it returned; `nil` ends the loop.
struct Countdown: AsyncSequence {
    typealias Element = Int
    let start: Int
    let trace: Trace
    let lane: Localized

    struct AsyncIterator: AsyncIteratorProtocol {
        var current: Int
        let trace: Trace
        let lane: Localized

        mutating func next() async -> Int? {
            await Task.yield()                       // the wait for the next element
            let value: Int? = current > 0 ? current : nil
            trace.record(.verbatim("next() → \(value.map(String.init) ?? "nil")"), lane: lane)
            current -= 1
            return value
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(current: start, trace: trace, lane: lane) }
}

/// A throwing sequence, like `url.lines`: "line 1", "line 2", then the connection drops.
struct DroppingLines: AsyncSequence {
    typealias Element = String
    let trace: Trace
    let lane: Localized

    struct AsyncIterator: AsyncIteratorProtocol {
        var sent = 0
        let trace: Trace
        let lane: Localized

        mutating func next() async throws -> String? {
            await Task.yield()
            sent += 1
            guard sent <= 2 else {
                trace.record(Localized("next() throws .connectionLost", ja: "next() が .connectionLost をスローする"), lane: lane)
                throw StreamError.connectionLost
            }
            trace.record(.verbatim("next() → \"line \(sent)\""), lane: lane)
            return "line \(sent)"
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(trace: trace, lane: lane) }
}

extension Chapter06 {
    static let forAwait = Scenario(
        slug: "for-await",
        title: Localized("for await: each element awaited, nil ends the loop", ja: "`for await`: 要素ごとに待ち、nil でループが終わる"),
        narration: Localized(
            """
            An `AsyncSequence` is a sequence whose iterator's `next()` is `async`: `for await x in sequence` calls `next()`, awaits it, runs the body, and asks again. \
            The loop ends when `next()` returns `nil`. A sequence whose `next()` can throw is iterated with `for try await`, and its error leaves the loop at the `try`. \
            `break` leaves the loop, and `next()` is not called again. \
            1) `Countdown(start: 3)`, a sequence of our own. 2) `DroppingLines`, which gives two lines and then throws `.connectionLost`, as `url.lines` would if the connection dropped. \
            3) `Countdown(start: 5)`, with `break` after the second value. The trace shows the iterator's side and the loop's side.
            """,
            ja: """
            `AsyncSequence` は、イテレータの `next()` が `async` であるシーケンスです。`for await x in sequence` は `next()` を呼んで待ち、本体を実行し、また尋ねます。\
            `next()` が `nil` を返すとループは終わります。`next()` がスローする可能性のあるシーケンスは `for try await` で回し、そのエラーは `try` の所でループを抜けます。\
            `break` はループを抜け、`next()` はもう呼ばれません。\
            1) 自作のシーケンス `Countdown(start: 3)`。2) 2 行を渡した後 `.connectionLost` をスローする `DroppingLines`。接続が切れた時の `url.lines` と同じです。\
            3) `Countdown(start: 5)` を 2 つ目の値の後で `break`。トレースにはイテレータ側とループ側が見えます。
            """),
        prediction: .init(
            question: Localized(
                "Part 3: `for await n in Countdown(start: 5) { if n == 4 { break } }`. How many times is `next()` called?\n  A) 2\n  B) 3\n  C) 5\n  D) 6",
                ja: "パート 3: `for await n in Countdown(start: 5) { if n == 4 { break } }`。`next()` は何回呼ばれる？\n  A) 2\n  B) 3\n  C) 5\n  D) 6"),
            explanation: Localized(
                "A. The loop asks for one element at a time: 5, then 4, and the body breaks. Nothing asks for 3, so nothing computes it — a sequence does its work only when asked, as far as it is asked.",
                ja: "A です。ループは要素を 1 つずつ求めます。5、次に 4 で、本体が break します。3 を求める者はいないので、3 は計算されません。シーケンスは求められた時に、求められた分だけ働きます。"),
            observe: { ["2": "A", "3": "B", "5": "C", "6": "D"][$0.noted("break: next calls") ?? ""] ?? "" },
            isPossible: { $0 == "A" })
    ) { context in
        let iterator = Localized("iterator", ja: "イテレータ"), loop = Localized("loop", ja: "ループ")
        // 1) Until nil.
        var seen: [Int] = []
        for await number in Countdown(start: 3, trace: context.trace, lane: iterator) {
            context.trace.record(.verbatim("body(\(number))"), lane: loop)
            seen.append(number)
        }
        context.trace.record(Localized("loop ended", ja: "ループ終了"), lane: loop)
        context.note("countdown", listed(seen))
        context.say(Localized("1) for await n in Countdown(start: 3): the body ran for \(listed(seen)); the fourth next() returned nil and the loop ended.",
                              ja: "1) `for await n in Countdown(start: 3)`: 本体は \(listed(seen)) で実行され、4 回目の next() が nil を返してループが終わった。"))

        // 2) A throwing sequence.
        var lines: [String] = []
        do {
            for try await line in DroppingLines(trace: context.trace, lane: iterator) {
                context.trace.record(.verbatim("body(\"\(line)\")"), lane: loop)
                lines.append(line)
            }
        } catch {
            context.trace.record(caught(error), lane: loop)
            context.note("lines error", errorName(error))
        }
        context.note("lines", lines.joined(separator: ","))
        context.say(Localized("2) for try await line in DroppingLines(): \(lines.count) lines, then the loop threw \(context.noted("lines error") ?? "nothing").",
                              ja: "2) `for try await line in DroppingLines()`: \(lines.count) 行の後、ループが \(context.noted("lines error") ?? "（なし）") をスローした。"))

        // 3) break.
        let before = context.trace.events.filter { $0.label.hasPrefix("next()") }.count
        for await number in Countdown(start: 5, trace: context.trace, lane: iterator) {
            context.trace.record(.verbatim("body(\(number))"), lane: loop)
            if number == 4 {
                context.trace.record(Localized("break", ja: "ループを抜ける"), lane: loop)
                break
            }
        }
        let calls = context.trace.events.filter { $0.label.hasPrefix("next()") }.count - before
        context.note("break: next calls", String(calls))
        context.say(Localized("3) break after 4: next() was called \(calls) times; 3, 2 and 1 were never asked for.",
                              ja: "3) 4 の後で `break`: next() は \(calls) 回呼ばれた。3、2、1 は一度も求められなかった。"))
    }
}
