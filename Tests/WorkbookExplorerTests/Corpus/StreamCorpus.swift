import WorkbookExplorer

let streamCorpus: [CorpusCase] = [
    CorpusCase(name: "stream.consumerNotAwaited", shape: "AsyncStream producer/consumer", items: [],
               expectation: .fails("the readings are checked before the consumer has handled them all"),
               traps: false, body: consumerNotAwaited),
    CorpusCase(name: "stream.consumerAwaited", shape: "AsyncStream producer/consumer", items: [],
               expectation: .passes, traps: false, body: consumerAwaited),
    CorpusCase(name: "stream.newestOneExpectsAll", shape: "AsyncStream with bufferingNewest(1)", items: [7],
               expectation: .fails("a temperature is dropped when the producer yields twice before the consumer reads"),
               traps: false, body: newestOneExpectsAll),
    CorpusCase(name: "stream.newestOneKeepsLatest", shape: "AsyncStream with bufferingNewest(1)", items: [7],
               expectation: .passes, traps: false, body: newestOneKeepsLatest),
    CorpusCase(name: "stream.producerIgnoresCancel", shape: "producer running until its consumer cancels", items: [8],
               expectation: .fails("livelock: the producer loops `while true` and never stops after cancel"),
               traps: false, body: producerIgnoresCancel),
    CorpusCase(name: "stream.producerStopsOnCancel", shape: "producer running until its consumer cancels", items: [8],
               expectation: .passes, traps: false, body: producerStopsOnCancel),
]

private actor ReadingLog {
    private(set) var entries: [Int] = []
    func append(_ reading: Int) { entries.append(reading) }
}

private func sensorPipeline(awaitsConsumer: Bool) async throws -> String {
    let (readings, continuation) = AsyncStream.makeStream(of: Int.self)
    let log = ReadingLog()
    let consumer = Task {
        nameTask("consumer")
        for await reading in readings { await log.append(reading) }
    }
    let producer = Task {
        nameTask("producer")
        for reading in 1...3 {
            continuation.yield(reading)
            await Task.yield()
        }
        continuation.finish()
    }
    await producer.value
    if awaitsConsumer { await consumer.value }
    let entries = await log.entries
    guard entries == [1, 2, 3] else { throw InvariantViolation("log holds \(entries) after the stream finished") }
    await consumer.value
    return "logged \(entries)"
}

/// The producer yields 3 and finishes while the consumer is still appending 2.
@Sendable private func consumerNotAwaited() async throws -> String {
    try await sensorPipeline(awaitsConsumer: false)
}

/// Correct: the log is read after the consumer's loop has ended.
@Sendable private func consumerAwaited() async throws -> String {
    try await sensorPipeline(awaitsConsumer: true)
}

/// Yields four temperatures into a `bufferingNewest(1)` stream; returns what the display saw.
private func thermometer() async -> [Int] {
    let (temperatures, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    let producer = Task {
        nameTask("sensor")
        for temperature in [20, 21, 22, 23] {
            continuation.yield(temperature)
            await Task.yield()
        }
        continuation.finish()
    }
    var shown: [Int] = []
    for await temperature in temperatures { shown.append(temperature) }
    await producer.value
    return shown
}

/// sensor yields 21 and then 22 before the display asks again: 21 is replaced in the buffer.
@Sendable private func newestOneExpectsAll() async throws -> String {
    let shown = await thermometer()
    guard shown == [20, 21, 22, 23] else { throw InvariantViolation("display showed \(shown)") }
    return "showed \(shown)"
}

/// Correct: with newest-only buffering the display may skip values, but it sees them in order and always the last.
@Sendable private func newestOneKeepsLatest() async throws -> String {
    let shown = await thermometer()
    guard shown.last == 23, shown == shown.sorted(), Set(shown).count == shown.count else {
        throw InvariantViolation("display showed \(shown)")
    }
    return "display ends at 23"
}

/// A ticker that yields until cancelled; returns the first three ticks a consumer read.
private func tickUntilCancelled(checksCancellation: Bool) async -> [Int] {
    let (ticks, continuation) = AsyncStream.makeStream(of: Int.self)
    let producer = Task {
        nameTask("ticker")
        var tick = 0
        while !checksCancellation || !Task.isCancelled {
            continuation.yield(tick)
            tick += 1
            await Task.yield()
        }
        continuation.finish()
    }
    let consumer = Task {
        nameTask("reader")
        var read: [Int] = []
        for await tick in ticks {
            read.append(tick)
            if read.count == 3 { break }
        }
        return read
    }
    let read = await consumer.value
    producer.cancel()
    await producer.value
    return read
}

/// After the reader has its three ticks the ticker is cancelled, but its loop never looks.
@Sendable private func producerIgnoresCancel() async throws -> String {
    let read = await tickUntilCancelled(checksCancellation: false)
    return "read \(read)"
}

/// Correct: the ticker runs until cancelled, then stops; a fair schedule lets the reader read three.
@Sendable private func producerStopsOnCancel() async throws -> String {
    let read = await tickUntilCancelled(checksCancellation: true)
    guard read == [0, 1, 2] else { throw InvariantViolation("reader got \(read)") }
    return "read \(read)"
}
