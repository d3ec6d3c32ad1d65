import WorkbookExplorer

let taskGroupCorpus: [CorpusCase] = [
    CorpusCase(name: "taskGroup.limitOffByOne", shape: "task group with at most N in flight", items: [],
               expectation: .fails("three downloads in flight with a limit of two"), traps: false, body: limitOffByOne),
    CorpusCase(name: "taskGroup.limitOfTwo", shape: "task group with at most N in flight", items: [],
               expectation: .passes, traps: false, body: limitOfTwo),
    CorpusCase(name: "taskGroup.completionOrder", shape: "task group collecting results in order", items: [],
               expectation: .fails("pages collected in completion order, not page order"), traps: false, body: completionOrder),
    CorpusCase(name: "taskGroup.indexedResults", shape: "task group collecting results in order", items: [],
               expectation: .passes, traps: false, body: indexedResults),
]

/// Counts downloads in flight and remembers the peak.
private actor InFlight {
    private var now = 0
    private(set) var peak = 0
    func enter() { now += 1; peak = max(peak, now) }
    func leave() { now -= 1 }
}

private func download(_ number: Int, tracker: InFlight, clock: ExplorerClock) async -> Int {
    await tracker.enter()
    try? await clock.sleep(for: .milliseconds(10 * (number % 3 + 1)))
    await tracker.leave()
    return number * 10
}

/// Downloads five files; from file `firstToWait` on, waits for one to finish before starting the next.
private func downloadAll(firstToWait: Int) async -> (peak: Int, total: Int) {
    let tracker = InFlight()
    let clock = ExplorerClock()
    let total = await withTaskGroup(of: Int.self) { group in
        var total = 0
        for number in 0..<5 {
            if number >= firstToWait, let finished = await group.next() { total += finished }
            group.addTask { await download(number, tracker: tracker, clock: clock) }
        }
        for await finished in group { total += finished }
        return total
    }
    return (await tracker.peak, total)
}

/// Waits from file 3 instead of file 2 (an off-by-one): files 0, 1 and 2 all start before anything is awaited.
@Sendable private func limitOffByOne() async throws -> String {
    let (peak, total) = await downloadAll(firstToWait: 3)
    guard peak <= 2 else { throw InvariantViolation("\(peak) downloads in flight, limit 2") }
    return "peak \(peak), total \(total)"
}

/// Correct: from the third file on, one finishes before the next starts.
@Sendable private func limitOfTwo() async throws -> String {
    let (peak, total) = await downloadAll(firstToWait: 2)
    guard peak <= 2, total == 100 else { throw InvariantViolation("peak \(peak), total \(total)") }
    return "peak \(peak), total \(total)"
}

private actor PageAPI {
    func fetch(page: Int) async -> String {
        await Task.yield()  // the network
        return "page \(page)"
    }
}

/// Page 2 completes before page 1, and `for await` hands results over in completion order.
@Sendable private func completionOrder() async throws -> String {
    let api = PageAPI()
    let pages = await withTaskGroup(of: String.self) { group in
        for page in 1...3 { group.addTask { await api.fetch(page: page) } }
        var pages: [String] = []
        for await page in group { pages.append(page) }
        return pages
    }
    guard pages == ["page 1", "page 2", "page 3"] else { throw InvariantViolation("pages out of order: \(pages)") }
    return pages.joined(separator: ", ")
}

/// Correct: every child returns its index, and results go into their own slot.
@Sendable private func indexedResults() async throws -> String {
    let api = PageAPI()
    let pages = await withTaskGroup(of: (Int, String).self) { group in
        for page in 1...3 { group.addTask { (page, await api.fetch(page: page)) } }
        var pages = [String](repeating: "", count: 3)
        for await (page, text) in group { pages[page - 1] = text }
        return pages
    }
    guard pages == ["page 1", "page 2", "page 3"] else { throw InvariantViolation("pages out of order: \(pages)") }
    return pages.joined(separator: ", ")
}
