import WorkbookExplorer

/// Deliberately NOT fresh per body: these use `static let shared` actors, whose state outlives
/// one schedule. Each body is right only if every schedule starts from fresh state (item 9).
let singletonCorpus: [CorpusCase] = [
    CorpusCase(name: "singleton.splitVisitCount", shape: "static let shared singleton actor", items: [9],
               expectation: .fails("a visit is lost: read and write are two calls on the shared counter"), traps: false,
               body: splitVisitCount),
    CorpusCase(name: "singleton.visitInOneCall", shape: "static let shared singleton actor", items: [9],
               expectation: .passes, traps: false, body: visitInOneCall),
    CorpusCase(name: "singleton.pollsForExactValue", shape: "static let shared singleton actor polled", items: [8, 9],
               expectation: .fails("livelock: the poller waits for exactly 2 on the shared progress and misses it"),
               traps: false, body: pollsForExactValue),
    CorpusCase(name: "singleton.pollsForThreshold", shape: "static let shared singleton actor polled", items: [8, 9],
               expectation: .passes, traps: false, body: pollsForThreshold),
]

/// App-wide visit counter, as a learner would write it.
private actor SplitVisitCounter {
    static let shared = SplitVisitCounter()
    private(set) var visits = 0
    func read() -> Int { visits }
    func write(_ value: Int) { visits = value }
}

private actor VisitCounter {
    static let shared = VisitCounter()
    private(set) var visits = 0
    func visit() { visits += 1 }
}

/// Two screens read the shared count (0) before either writes 1 back.
@Sendable private func splitVisitCount() async throws -> String {
    async let home: Void = { nameTask("home"); let n = await SplitVisitCounter.shared.read(); await SplitVisitCounter.shared.write(n + 1) }()
    async let detail: Void = { nameTask("detail"); let n = await SplitVisitCounter.shared.read(); await SplitVisitCounter.shared.write(n + 1) }()
    _ = await (home, detail)
    let visits = await SplitVisitCounter.shared.visits
    guard visits == 2 else { throw InvariantViolation("\(visits) visits counted for two screens") }
    return "2 visits"
}

/// Correct if each schedule starts fresh: two visits in one call each, so the count ends at exactly 2.
@Sendable private func visitInOneCall() async throws -> String {
    async let home: Void = { nameTask("home"); await VisitCounter.shared.visit() }()
    async let detail: Void = { nameTask("detail"); await VisitCounter.shared.visit() }()
    _ = await (home, detail)
    let visits = await VisitCounter.shared.visits
    guard visits == 2 else { throw InvariantViolation("\(visits) visits counted for two screens") }
    return "2 visits"
}

/// App-wide sync progress; a long-lived actor that a stuck job would wedge for everyone after.
private actor SyncProgress {
    static let shared = SyncProgress()
    private(set) var step = 0
    func advance() { step += 1 }
}

private func syncAndPoll(until reached: @escaping @Sendable (Int) -> Bool) async throws -> String {
    let syncer = Task {
        nameTask("syncer")
        for _ in 0..<4 { await SyncProgress.shared.advance() }
    }
    nameTask("poller")
    while !reached(await SyncProgress.shared.step) { await Task.yield() }
    await syncer.value
    let step = await SyncProgress.shared.step
    guard step == 4 else { throw InvariantViolation("sync ended at step \(step)") }
    return "sync done"
}

/// The syncer goes 1, 2, 3 between two polls: step 2 is never seen, so the poller spins for ever.
@Sendable private func pollsForExactValue() async throws -> String {
    try await syncAndPoll { $0 == 2 }
}

/// Correct if each schedule starts fresh: `>=` cannot miss step 2, and the poller yields.
@Sendable private func pollsForThreshold() async throws -> String {
    try await syncAndPoll { $0 >= 2 }
}
