import WorkbookExplorer

// Chapter 06: AsyncStream buffering, termination, and the one-consumer rule.

let streamCorpus0608: [CorpusBody] = [
    CorpusBody("stream0608.newestOneExpectsEvery", shape: "AsyncStream with bufferingNewest(1) and a slow consumer",
               .fails("quotes are dropped: the chart takes 25 ms per quote, the ticker yields every 10 ms"),
               body: newestOneExpectsEvery),
    CorpusBody("stream0608.newestOneOrderedWithLast", shape: "AsyncStream with bufferingNewest(1) and a slow consumer",
               .passes, body: newestOneOrderedWithLast),
    CorpusBody("stream0608.breakLeavesProducerRunning", shape: "AsyncStream producer stopped by onTermination",
               .fails("the GPS stays on after the consumer breaks out: nothing stops the producer task"),
               body: breakLeavesProducerRunning),
    CorpusBody("stream0608.breakStopsProducer", shape: "AsyncStream producer stopped by onTermination",
               .passes, body: breakStopsProducer),
    CorpusBody("stream0608.cancelSwallowedByProducer", shape: "AsyncStream producer stopped by onTermination",
               .fails("the producer goes on taking fixes after the consumer is cancelled: `try?` swallows its cancelled sleep"),
               body: cancelSwallowedByProducer),
    CorpusBody("stream0608.cancelStopsProducer", shape: "AsyncStream producer stopped by onTermination",
               .passes, body: cancelStopsProducer),
    CorpusBody("stream0608.twoConsumersOneStream", shape: "two consumers of AsyncStream",
               .fails("the two screens split the messages between them instead of each seeing all"),
               body: twoConsumersOneStream),
    CorpusBody("stream0608.streamPerConsumer", shape: "two consumers of AsyncStream",
               .passes, body: streamPerConsumer),
]

// MARK: buffering

/// A ticker yields quotes 1…5 every 10 ms into a `bufferingNewest(1)` stream; the chart draws each
/// in 25 ms. Returns what the chart drew.
private func drawQuotes() async -> [Int] {
    let (quotes, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let ticker = Task {
        nameTask("ticker")
        for quote in 1...5 {
            if quote > 1 {
                do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
            }
            continuation.yield(quote)
        }
        continuation.finish()
    }
    var drawn: [Int] = []
    for await quote in quotes {
        drawn.append(quote)
        do { try await Task.sleep(for: .milliseconds(25)) } catch { break }
    }
    await ticker.value
    return drawn
}

/// Quote 2 (10 ms) is replaced by 3 (20 ms) before the chart asks again at 25 ms; 4 by 5 likewise.
@Sendable private func newestOneExpectsEvery() async throws -> String {
    let drawn = await drawQuotes()
    guard drawn == [1, 2, 3, 4, 5] else { throw InvariantViolation("the chart drew \(drawn) of 1…5") }
    return "drew \(drawn)"
}

/// Correct: newest-only buffering may skip quotes, but what is drawn is in order and ends with 5.
@Sendable private func newestOneOrderedWithLast() async throws -> String {
    let drawn = await drawQuotes()
    guard drawn.last == 5, zip(drawn, drawn.dropFirst()).allSatisfy({ $0 < $1 }) else {
        throw InvariantViolation("the chart drew \(drawn)")
    }
    return "drew \(drawn)"
}

// MARK: termination

private actor GPS {
    private(set) var isOn = false
    private(set) var fixes = 0
    func powerOn() { isOn = true }
    func powerOff() { isOn = false }
    func fix() -> Int {
        fixes += 1
        return fixes
    }
}

private enum Stopping: Sendable {
    /// No `onTermination`: the producer runs its whole 200 ms walk.
    case never
    /// `onTermination` cancels the producer, but its `try?` sleep swallows the cancellation.
    case cancelSwallowed
    /// `onTermination` cancels the producer; the cancelled sleep ends the loop.
    case onTermination
}

/// Location updates every 10 ms for a 200 ms walk; the GPS is on while the producer runs.
private func locationUpdates(from gps: GPS, _ stopping: Stopping) -> AsyncStream<Int> {
    let (updates, continuation) = AsyncStream.makeStream(of: Int.self)
    let producer = Task {
        nameTask("gps producer")
        await gps.powerOn()
        for _ in 0..<20 {
            continuation.yield(await gps.fix())
            if stopping == .cancelSwallowed {
                try? await Task.sleep(for: .milliseconds(10))
            } else {
                do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
            }
        }
        await gps.powerOff()
        continuation.finish()
    }
    if stopping != .never {
        continuation.onTermination = { _ in producer.cancel() }
    }
    return updates
}

/// After the consumer has stopped, waits 55 ms and checks the GPS is off and took no fixes for nobody.
private func checkStopped(_ gps: GPS, received: [Int]) async throws -> String {
    try await Task.sleep(for: .milliseconds(55))
    let (isOn, fixes) = await (gps.isOn, gps.fixes)
    guard !isOn, fixes <= received.count + 1 else {
        throw InvariantViolation("55 ms after the consumer stopped the GPS is \(isOn ? "on" : "off") and took \(fixes) fixes for \(received.count) received")
    }
    return "received \(received), GPS off after \(fixes) fixes"
}

/// The map screen takes three fixes and breaks out of its loop.
private func firstThreeFixes(_ stopping: Stopping) async throws -> String {
    let gps = GPS()
    let map = Task {
        nameTask("map")
        var received: [Int] = []
        for await fix in locationUpdates(from: gps, stopping) {
            received.append(fix)
            if received.count == 3 { break }
        }
        return received
    }
    return try await checkStopped(gps, received: await map.value)
}

/// The map breaks out at 20 ms; with no onTermination the producer walks on to 200 ms, GPS on.
@Sendable private func breakLeavesProducerRunning() async throws -> String {
    try await firstThreeFixes(.never)
}

/// Correct: leaving the loop drops the only iterator, the stream terminates, onTermination cancels the producer.
@Sendable private func breakStopsProducer() async throws -> String {
    try await firstThreeFixes(.onTermination)
}

/// The map screen listens until it is closed at 35 ms (its task is cancelled).
private func closedAfter35ms(_ stopping: Stopping) async throws -> String {
    let gps = GPS()
    let map = Task {
        nameTask("map")
        var received: [Int] = []
        for await fix in locationUpdates(from: gps, stopping) { received.append(fix) }
        return received
    }
    try await Task.sleep(for: .milliseconds(35))
    map.cancel()
    return try await checkStopped(gps, received: await map.value)
}

/// Cancelled at 35 ms, onTermination cancels the producer, but each `try?` sleep returns at once and
/// the loop runs on through all 20 fixes with nobody listening.
@Sendable private func cancelSwallowedByProducer() async throws -> String {
    try await closedAfter35ms(.cancelSwallowed)
}

/// Correct: the cancelled sleep throws, the loop ends, the GPS is switched off.
@Sendable private func cancelStopsProducer() async throws -> String {
    try await closedAfter35ms(.onTermination)
}

// MARK: one consumer per stream

/// Messages 1…4 arrive every 10 ms; two screens (inbox and badge) each must see all of them.
private func twoScreens(streamPerConsumer: Bool) async throws -> String {
    let shared = AsyncStream.makeStream(of: Int.self)
    let streams = streamPerConsumer ? [AsyncStream.makeStream(of: Int.self), AsyncStream.makeStream(of: Int.self)] : [shared, shared]
    let screens = ["inbox", "badge"].enumerated().map { index, name in
        let messages = streams[index].stream
        return Task {
            nameTask(name)
            var seen: [Int] = []
            for await message in messages { seen.append(message) }
            return seen
        }
    }
    let server = Task {
        nameTask("server")
        for message in 1...4 {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
            if streamPerConsumer {
                for stream in streams { stream.continuation.yield(message) }
            } else {
                shared.continuation.yield(message)
            }
        }
        for stream in streams { stream.continuation.finish() }
    }
    await server.value
    let seen = [await screens[0].value, await screens[1].value]
    guard seen.allSatisfy({ $0 == [1, 2, 3, 4] }) else {
        throw InvariantViolation("inbox saw \(seen[0]), badge saw \(seen[1]); each should see [1, 2, 3, 4]")
    }
    return "inbox and badge each saw \(seen[0])"
}

/// Each yielded message resumes one of the two waiting iterations, so the screens split them.
@Sendable private func twoConsumersOneStream() async throws -> String {
    try await twoScreens(streamPerConsumer: false)
}

/// Correct: one stream per screen, and the server yields every message into each.
@Sendable private func streamPerConsumer() async throws -> String {
    try await twoScreens(streamPerConsumer: true)
}
