import Dispatch
import Synchronization
import WorkbookExplorer

let realSleepCorpus: [CorpusCase] = [
    CorpusCase(name: "realSleep.sleepAsSync", shape: "plain Task.sleep(for:) used as synchronisation", items: [4],
               expectation: .fails("the 500 ms sleep ends before the 500 ms save has stored the draft"), traps: false, body: sleepAsSync),
    CorpusCase(name: "realSleep.awaitsSave", shape: "plain Task.sleep(for:) used as synchronisation", items: [4],
               expectation: .passes, traps: false, body: awaitsSave),
    CorpusCase(name: "realSleep.radioOverlaps", shape: "Task.sleep(nanoseconds:) inside an actor method", items: [4],
               expectation: .fails("a second transmission starts while the first sleeps (actor reentrancy)"), traps: false,
               body: radioOverlaps),
    CorpusCase(name: "realSleep.radioSerialQueue", shape: "Task.sleep(nanoseconds:) inside an actor method", items: [4, 6],
               expectation: .passes, traps: false, body: radioSerialQueue),
    CorpusCase(name: "realSleep.pollGivesUp", shape: "ContinuousClock polling", items: [4],
               expectation: .fails("three 10 ms polls give up before the 50 ms job is done"), traps: false, body: pollGivesUp),
    CorpusCase(name: "realSleep.pollUntilDone", shape: "ContinuousClock polling", items: [4],
               expectation: .passes, traps: false, body: pollUntilDone),
    CorpusCase(name: "foreignCallback.slowDuplicateLookup", shape: "slow Dispatch callback wrapped in a continuation", items: [4],
               expectation: .fails("two geocoder lookups for one address while the first 0.5 s callback is pending"),
               traps: false, body: slowDuplicateLookup),
    CorpusCase(name: "foreignCallback.slowSharedLookup", shape: "slow Dispatch callback wrapped in a continuation", items: [4],
               expectation: .passes, traps: false, body: slowSharedLookup),
]

private actor Drafts {
    private(set) var saved: String?
    func save(_ text: String) { saved = text }
}

/// The save and the body both sleep 500 ms; either can wake first, and the body reads before the save.
@Sendable private func sleepAsSync() async throws -> String {
    let drafts = Drafts()
    let save = Task {
        nameTask("save")
        try await Task.sleep(for: .milliseconds(500))  // the disk
        await drafts.save("draft")
    }
    try await Task.sleep(for: .milliseconds(500))  // "long enough for the save"
    guard let saved = await drafts.saved else { throw InvariantViolation("draft not saved after sleeping 500 ms") }
    try await save.value
    return "saved \(saved)"
}

/// Correct: a real 500 ms sleep, but the body awaits the save itself instead of guessing its duration.
@Sendable private func awaitsSave() async throws -> String {
    let drafts = Drafts()
    let save = Task {
        nameTask("save")
        try await Task.sleep(for: .milliseconds(500))  // the disk
        await drafts.save("draft")
    }
    try await save.value
    guard let saved = await drafts.saved else { throw InvariantViolation("draft not saved after the save finished") }
    return "saved \(saved)"
}

/// A radio that must send one packet at a time; sending takes 20 ms of real time.
private actor Radio {
    private var sending = 0
    private(set) var overlaps = 0
    private(set) var sent: [Int] = []

    func transmit(_ packet: Int) async throws {
        sending += 1
        if sending > 1 { overlaps += 1 }
        try await Task.sleep(nanoseconds: 20_000_000)
        sending -= 1
        sent.append(packet)
    }
}

/// Packet 1 sleeps inside `transmit`; the actor is free, so packet 2 starts transmitting too.
@Sendable private func radioOverlaps() async throws -> String {
    let radio = Radio()
    async let first: Void = radio.transmit(1)
    async let second: Void = radio.transmit(2)
    _ = try await (first, second)
    let overlaps = await radio.overlaps
    guard overlaps == 0 else { throw InvariantViolation("\(overlaps) overlapping transmissions") }
    return "no overlap"
}

/// Chains each transmission behind the previous one.
private actor SerialRadio {
    private let radio = Radio()
    private var last: Task<Void, Error>?

    func enqueue(_ packet: Int) -> Task<Void, Error> {
        let previous = last
        let radio = radio
        let next = Task {
            _ = await previous?.result
            try await radio.transmit(packet)
        }
        last = next
        return next
    }

    var overlaps: Int { get async { await radio.overlaps } }
}

/// Correct: a transmission starts only after the previous task has finished.
@Sendable private func radioSerialQueue() async throws -> String {
    let serial = SerialRadio()
    async let first = { nameTask("A"); return await serial.enqueue(1) }()
    async let second = { nameTask("B"); return await serial.enqueue(2) }()
    for transmission in await [first, second] { try await transmission.value }
    let overlaps = await serial.overlaps
    guard overlaps == 0 else { throw InvariantViolation("\(overlaps) overlapping transmissions") }
    return "no overlap"
}

private actor ExportJob {
    private(set) var done = false
    func finish() { done = true }
}

private func export(polls maximum: Int?) async throws -> String {
    let clock = ContinuousClock()
    let job = ExportJob()
    let worker = Task {
        nameTask("export")
        try await clock.sleep(for: .milliseconds(50))
        await job.finish()
    }
    var polls = 0
    while !(await job.done), polls < (maximum ?? .max) {
        polls += 1
        try await clock.sleep(for: .milliseconds(10))
    }
    guard await job.done else { throw InvariantViolation("gave up after \(polls) polls of 10 ms; the export takes 50 ms") }
    try await worker.value
    return "export done"
}

/// Three polls cover 30 ms; the export needs 50 ms, so the poller gives up first.
@Sendable private func pollGivesUp() async throws -> String {
    try await export(polls: 3)
}

/// Correct: poll every 10 ms until the job reports done.
@Sendable private func pollUntilDone() async throws -> String {
    try await export(polls: nil)
}

/// A legacy geocoder answering on a Dispatch queue after 0.5 s; counts lookups.
private final class SlowGeocoder: Sendable {
    private let count = Mutex(0)
    var lookups: Int { count.withLock { $0 } }

    func geocode(_ address: String, completion: @escaping @Sendable (String) -> Void) {
        count.withLock { $0 += 1 }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { completion("coordinates of \(address)") }
    }

    func geocode(_ address: String) async -> String {
        await withCheckedContinuation { continuation in
            geocode(address) { continuation.resume(returning: $0) }
        }
    }
}

private actor GeocodeCache {
    let geocoder: SlowGeocoder
    let sharesLookups: Bool
    private var results: [String: String] = [:]
    private var pending: [String: Task<String, Never>] = [:]
    init(geocoder: SlowGeocoder, sharesLookups: Bool) {
        self.geocoder = geocoder
        self.sharesLookups = sharesLookups
    }

    func coordinates(of address: String) async -> String {
        if let known = results[address] { return known }
        if sharesLookups, let running = pending[address] { return await running.value }
        let geocoder = geocoder
        let lookup = Task { await geocoder.geocode(address) }
        pending[address] = lookup
        let found = await lookup.value
        results[address] = found
        pending[address] = nil
        return found
    }
}

private func twoPins(sharesLookups: Bool) async throws -> String {
    let geocoder = SlowGeocoder()
    let cache = GeocodeCache(geocoder: geocoder, sharesLookups: sharesLookups)
    async let pin = { nameTask("pin"); return await cache.coordinates(of: "1 Main St") }()
    async let route = { nameTask("route"); return await cache.coordinates(of: "1 Main St") }()
    let answers = await [pin, route]
    guard geocoder.lookups == 1 else { throw InvariantViolation("\(geocoder.lookups) lookups of one address: \(answers)") }
    return answers[0]
}

/// pin misses and waits 0.5 s for the callback; route misses too in the meantime (the task is recorded but never consulted).
@Sendable private func slowDuplicateLookup() async throws -> String {
    try await twoPins(sharesLookups: false)
}

/// Correct: the second request awaits the pending lookup; the 0.5 s Dispatch callback resumes it.
@Sendable private func slowSharedLookup() async throws -> String {
    try await twoPins(sharesLookups: true)
}
