import WorkbookExplorer

let timerCorpus: [CorpusCase] = [
    CorpusCase(name: "timers.heartbeatAtExpiry", shape: "timers with equal deadlines", items: [3],
               expectation: .fails("the expiry timer, due at the same instant, fires before the heartbeat"),
               traps: false, body: heartbeatAtExpiry),
    CorpusCase(name: "timers.heartbeatBeforeExpiry", shape: "timers with equal deadlines", items: [3],
               expectation: .passes, traps: false, body: heartbeatBeforeExpiry),
    CorpusCase(name: "timers.remindersDueTogether", shape: "timers with equal deadlines", items: [3],
               expectation: .fails("a badge increment is lost: both reminders wake at the same instant and read the badge before either writes"),
               traps: false, body: remindersDueTogether),
    CorpusCase(name: "timers.remindersBumpInOneCall", shape: "timers with equal deadlines", items: [3],
               expectation: .passes, traps: false, body: remindersBumpInOneCall),
    CorpusCase(name: "timeout.equalToWork", shape: "timeout racing work", items: [2, 3],
               expectation: .fails("the 100 ms timeout fires before the 100 ms fetch returns"), traps: false, body: timeoutEqualToWork),
    CorpusCase(name: "timeout.withMargin", shape: "timeout racing work", items: [2, 3],
               expectation: .passes, traps: false, body: timeoutWithMargin),
    CorpusCase(name: "timeout.deadlinePassedExpectsValue", shape: "timeout racing ready work", items: [3],
               expectation: .fails("a deadline already passed fires before the ready fetch completes"),
               traps: false, body: deadlinePassedExpectsValue),
    CorpusCase(name: "timeout.deadlinePassedFallsBack", shape: "timeout racing ready work", items: [3],
               expectation: .passes, traps: false, body: deadlinePassedFallsBack),
]

private actor LiveSession {
    private(set) var valid = true
    func expire() { valid = false }
}

/// Sends a heartbeat at `due` while the session expires at 3 s; the heartbeat asserts the session is live.
private func heartbeat(at due: Duration) async throws -> String {
    let clock = ExplorerClock()
    let session = LiveSession()
    let beater = Task {
        nameTask("heartbeat")
        try await clock.sleep(for: due)
        guard await session.valid else { throw InvariantViolation("heartbeat at \(due) found the session expired") }
        return "beat at \(due)"
    }
    let expiry = Task {
        nameTask("expiry")
        try await clock.sleep(for: .seconds(3))
        await session.expire()
    }
    let beat = try await beater.value
    try await expiry.value
    return beat
}

/// Both timers are due at 3 s; firing expiry first is as legal as firing the heartbeat first.
@Sendable private func heartbeatAtExpiry() async throws -> String {
    try await heartbeat(at: .seconds(3))
}

/// Correct: the heartbeat is due at 2.5 s, strictly before the expiry.
@Sendable private func heartbeatBeforeExpiry() async throws -> String {
    try await heartbeat(at: .milliseconds(2_500))
}

private actor Badge {
    private(set) var count = 0
    func read() -> Int { count }
    func write(_ value: Int) { count = value }
    func bump() { count += 1 }
}

/// Two reminders due at the same instant each bump the app badge.
private func twoReminders(splitBump: Bool) async throws -> String {
    let clock = ExplorerClock()
    let badge = Badge()
    let reminders = ["standup", "lunch"].map { name in
        Task {
            nameTask(name)
            try await clock.sleep(for: .seconds(1))
            if splitBump {
                let shown = await badge.read()
                await badge.write(shown + 1)
            } else {
                await badge.bump()
            }
        }
    }
    for reminder in reminders { try await reminder.value }
    let count = await badge.count
    guard count == 2 else { throw InvariantViolation("badge shows \(count) after two reminders") }
    return "badge 2"
}

/// Both timers are due at 1 s and both tasks wake; standup reads 0, lunch reads 0, both write 1.
@Sendable private func remindersDueTogether() async throws -> String {
    try await twoReminders(splitBump: true)
}

/// Correct: each bump is one actor call, so waking together cannot lose one.
@Sendable private func remindersBumpInOneCall() async throws -> String {
    try await twoReminders(splitBump: false)
}

/// Runs `operation` against a timer in a task group; nil if the timer wins.
private func withTimeout<Value: Sendable>(
    until deadline: ExplorerClock.Instant, clock: ExplorerClock, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value? {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { nameTask("operation"); return try await operation() }
        group.addTask { nameTask("timeout"); try await clock.sleep(until: deadline); return nil }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

private actor ProfileStore {
    func load() -> String { "profile" }
}

private func fetchProfile(clock: ExplorerClock, store: ProfileStore) async throws -> String {
    try await clock.sleep(for: .milliseconds(100))  // the network
    return await store.load()
}

/// The fetch and the timeout are both due at 100 ms; the timeout may fire first.
@Sendable private func timeoutEqualToWork() async throws -> String {
    let clock = ExplorerClock()
    let store = ProfileStore()
    let deadline = clock.now.advanced(by: .milliseconds(100))
    guard let profile = try await withTimeout(until: deadline, clock: clock, { try await fetchProfile(clock: clock, store: store) }) else {
        throw InvariantViolation("timed out on a fetch that takes exactly the timeout")
    }
    return profile
}

/// Correct: the fetch is due at 100 ms, the timeout at 1 s; the cancelled timer ends at once.
@Sendable private func timeoutWithMargin() async throws -> String {
    let clock = ExplorerClock()
    let store = ProfileStore()
    let deadline = clock.now.advanced(by: .seconds(1))
    guard let profile = try await withTimeout(until: deadline, clock: clock, { try await fetchProfile(clock: clock, store: store) }) else {
        throw InvariantViolation("timed out although the fetch is due 900 ms earlier")
    }
    return profile
}

/// The request deadline was set before a 200 ms warm-up, so it has passed when the ready fetch starts.
@Sendable private func deadlinePassedExpectsValue() async throws -> String {
    let clock = ExplorerClock()
    let store = ProfileStore()
    let deadline = clock.now.advanced(by: .milliseconds(150))
    try await clock.sleep(for: .milliseconds(200))  // warm-up
    guard let profile = try await withTimeout(until: deadline, clock: clock, { await store.load() }) else {
        throw InvariantViolation("the passed deadline beat a fetch that was ready")
    }
    return profile
}

/// Correct: a timeout is an expected outcome here; the screen falls back to the cached profile.
@Sendable private func deadlinePassedFallsBack() async throws -> String {
    let clock = ExplorerClock()
    let store = ProfileStore()
    let deadline = clock.now.advanced(by: .milliseconds(150))
    try await clock.sleep(for: .milliseconds(200))  // warm-up
    let profile = try await withTimeout(until: deadline, clock: clock, { await store.load() }) ?? "cached profile"
    guard profile == "profile" || profile == "cached profile" else { throw InvariantViolation("showed \(profile)") }
    return profile
}
