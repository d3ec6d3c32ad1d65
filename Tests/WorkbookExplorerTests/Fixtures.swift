import WorkbookExplorer

/// An account whose increment is split across two actor calls: the read and the write are
/// separate hops, so another task can run in between.
actor SplitAccount {
    private(set) var balance = 0
    func read() -> Int { balance }
    func write(_ value: Int) { balance = value }
    /// The safe way: read and write in one actor call, with no `await` in between.
    func increment() { balance += 1 }
}

/// Two tasks each add one; returns the final balance.
@Sendable func twoIncrements(atomic: Bool) async throws -> String {
    let account = SplitAccount()
    async let first: Void = add(to: account, atomic: atomic, name: "A")
    async let second: Void = add(to: account, atomic: atomic, name: "B")
    _ = await (first, second)
    let balance = await account.balance
    if balance != 2 { throw InvariantViolation("lost update: balance is \(balance) after two increments") }
    return "balance=\(balance)"
}

private func add(to account: SplitAccount, atomic: Bool, name: String) async {
    nameTask(name)
    if atomic {
        await account.increment()
        return
    }
    let value = await account.read()
    checkpoint("read \(value)")
    await account.write(value + 1)
    checkpoint("wrote \(value + 1)")
}

/// A session whose token refresh suspends on the network. The racy way lets a reader see the
/// old token while a refresh is in flight; the safe way stores the refresh task and makes
/// readers await it.
actor TokenSession {
    private let clock = ExplorerClock()
    private let awaitsRefresh: Bool
    private var token = "old"
    private var refreshTask: Task<String, Never>?
    private(set) var refreshInFlight = false

    init(awaitsRefresh: Bool) { self.awaitsRefresh = awaitsRefresh }

    func refresh() async {
        refreshInFlight = true
        checkpoint("refresh started")
        let clock = clock
        let task = Task { () -> String in
            try? await clock.sleep(for: .milliseconds(20))  // the network
            return "new"
        }
        refreshTask = task
        token = await task.value
        refreshTask = nil
        refreshInFlight = false
        checkpoint("refresh stored the new token")
    }

    /// Returns the token and whether a refresh was in flight when it was asked.
    func currentToken() async -> (token: String, refreshWasInFlight: Bool) {
        let inFlight = refreshInFlight
        if awaitsRefresh, let refreshTask {
            return (await refreshTask.value, inFlight)
        }
        return (token, inFlight)
    }
}

@Sendable func refreshWhileReading(awaitsRefresh: Bool) async throws -> String {
    let session = TokenSession(awaitsRefresh: awaitsRefresh)
    async let refresher: Void = {
        nameTask("refresher")
        await session.refresh()
    }()
    async let reader: (String, Bool) = {
        nameTask("reader")
        checkpoint("asks for the token")
        return await session.currentToken()
    }()
    let (token, inFlight) = await reader
    await refresher
    checkpoint("reader got \(token)")
    if inFlight && token == "old" { throw InvariantViolation("stale token: the reader got \"old\" while a refresh was in flight") }
    return "reader got \(token)"
}

/// Awaits a continuation nobody resumes.
@Sendable func leakedContinuation() async throws -> String {
    checkpoint("waits for a callback")
    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
    return "resumed"
}

/// A continuation resumed inside the body, a Task.yield, an unstructured task, a task group and
/// a virtual sleep: everything the explorer controls, with one possible outcome.
@Sendable func everythingControlled() async throws -> String {
    let value: Int = await withCheckedContinuation { $0.resume(returning: 1) }
    await Task.yield()
    let unstructured = Task { value + 1 }
    let detached = Task.detached { 10 }
    let sum = await withTaskGroup(of: Int.self) { group in
        for i in 0..<3 { group.addTask { i } }
        return await group.reduce(0, +)
    }
    try await ExplorerClock().sleep(for: .seconds(60))
    return "\(await unstructured.value + detached.value + sum)"
}

/// Four tasks append their number; the body fails only if they arrive in exactly reverse
/// order — a schedule that needs at least three preemptions.
@Sendable func reversedArrivals() async throws -> String {
    let log = ArrivalLog()
    await withTaskGroup(of: Void.self) { group in
        for number in 0..<4 { group.addTask { await log.arrive(number) } }
    }
    let order = await log.order
    if order == [3, 2, 1, 0] { throw InvariantViolation("arrived in reverse: \(order)") }
    return "arrived"
}

actor ArrivalLog {
    private(set) var order: [Int] = []
    func arrive(_ number: Int) { order.append(number) }
}

/// Counts on a process-wide actor: the first schedule sees 1, the next one 2.
@Sendable func countsOnTheSingleton() async throws -> String {
    let count = await SingletonVisits.shared.visit()
    if count != 1 { throw InvariantViolation("count is \(count), expected 1") }
    return "count=\(count)"
}

actor SingletonVisits {
    static let shared = SingletonVisits()
    private var visits = 0
    func visit() -> Int {
        visits += 1
        return visits
    }
}
