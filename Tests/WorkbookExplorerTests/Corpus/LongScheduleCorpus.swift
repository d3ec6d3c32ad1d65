import WorkbookExplorer

let longScheduleCorpus: [CorpusCase] = [
    CorpusCase(name: "longSchedule.splitTallyInLoop", shape: "loops over many awaits", items: [10],
               expectation: .fails("scores are lost: each of 20 additions per grader reads and writes in two calls"),
               traps: false, body: splitTallyInLoop),
    CorpusCase(name: "longSchedule.tallyInOneCall", shape: "loops over many awaits", items: [10],
               expectation: .passes, traps: false, body: tallyInOneCall),
    CorpusCase(name: "longSchedule.streamOfHopsOutOfOrder", shape: "loops over many awaits", items: [10],
               expectation: .fails("the merged log interleaves two graders' batches"), traps: false, body: streamOfHopsOutOfOrder),
    CorpusCase(name: "longSchedule.streamOfHopsPerBatch", shape: "loops over many awaits", items: [10],
               expectation: .passes, traps: false, body: streamOfHopsPerBatch),
]

private actor Tally {
    private(set) var total = 0
    func read() -> Int { total }
    func write(_ value: Int) { total = value }
    func add(_ value: Int) { total += value }
}

/// A nonisolated async helper: whether a call to it costs a step can depend on the optimiser.
private func score(_ answer: Int) async -> Int {
    await Task.yield()
    return answer % 3
}

private func grade(tally: Tally, split: Bool) async -> Void {
    for answer in 0..<20 {
        let points = await score(answer)
        if split {
            let total = await tally.read()
            await tally.write(total + points)
        } else {
            await tally.add(points)
        }
    }
}

private let expectedTotal = 2 * (0..<20).reduce(0) { $0 + $1 % 3 }

/// A reads the total; B reads the same total before A writes it back; the later write drops the other's points.
@Sendable private func splitTallyInLoop() async throws -> String {
    let tally = Tally()
    async let first: Void = { nameTask("A"); await grade(tally: tally, split: true) }()
    async let second: Void = { nameTask("B"); await grade(tally: tally, split: true) }()
    _ = await (first, second)
    let total = await tally.total
    guard total == expectedTotal else { throw InvariantViolation("total \(total), expected \(expectedTotal)") }
    return "total \(total)"
}

/// Correct: each addition is one actor call, however many steps the loops take.
@Sendable private func tallyInOneCall() async throws -> String {
    let tally = Tally()
    async let first: Void = { nameTask("A"); await grade(tally: tally, split: false) }()
    async let second: Void = { nameTask("B"); await grade(tally: tally, split: false) }()
    _ = await (first, second)
    let total = await tally.total
    guard total == expectedTotal else { throw InvariantViolation("total \(total), expected \(expectedTotal)") }
    return "total \(total)"
}

private actor BatchLog {
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
    func append(batch: [String]) { lines += batch }
}

/// Each grader writes a batch of 10 lines, one await per line.
private func writeBatches(perLine: Bool) async -> [String] {
    let log = BatchLog()
    await withTaskGroup(of: Void.self) { group in
        for grader in ["A", "B"] {
            group.addTask {
                nameTask(grader)
                let batch = (0..<10).map { "\(grader)\($0)" }
                if perLine {
                    for line in batch { await log.append(line) }
                } else {
                    await log.append(batch: batch)
                }
            }
        }
    }
    return await log.lines
}

/// Lines are appended one hop at a time, so B's lines can land inside A's batch.
@Sendable private func streamOfHopsOutOfOrder() async throws -> String {
    let lines = await writeBatches(perLine: true)
    let graders = lines.map { $0.prefix(1) }
    guard graders == graders.sorted() || graders == graders.sorted(by: >) else {
        throw InvariantViolation("batches interleaved: \(lines.joined(separator: " "))")
    }
    return "batches whole"
}

/// Correct: a batch is appended in one call, so it lands whole.
@Sendable private func streamOfHopsPerBatch() async throws -> String {
    let lines = await writeBatches(perLine: false)
    let graders = lines.map { $0.prefix(1) }
    guard graders == graders.sorted() || graders == graders.sorted(by: >) else {
        throw InvariantViolation("batches interleaved: \(lines.joined(separator: " "))")
    }
    return "batches whole"
}
