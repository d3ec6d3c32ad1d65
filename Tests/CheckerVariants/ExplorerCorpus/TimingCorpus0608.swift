import WorkbookExplorer

// Chapter 07: two increments of shared class state started 1 ms apart, protected by nothing but the
// head start: an update is lost only if the first is still in progress 1 ms later. Swift 6 accepts
// the class only through `@unchecked Sendable` (a promise nobody keeps).

let timingCorpus0608: [CorpusBody] = [
    CorpusBody("timing0608.loopHeadStart", shape: "increments 1 ms apart on unprotected class state",
               .fails("data race: both syncs read and write DailyStats.steps with no synchronisation, only a 1 ms head start; a step count is lost if the first is still parsing 1 ms later"),
               body: loopHeadStart),
    CorpusBody("timing0608.loopInActor", shape: "increments 1 ms apart on unprotected class state",
               .passes, body: loopInActor),
    CorpusBody("timing0608.hopHeadStart", shape: "increments 1 ms apart on unprotected class state",
               // Written as "data race:" by its author, who took it that virtual time never lets the phone's
               // 1 ms timer fire while the watch's sync is under way; work takes time now (a timer within
               // 2 ms may fire while work is ready), so the lost update itself is found, as on a device.
               .fails("a step count is lost: the phone's sync reads the steps while the watch's is at the bonus service, 1 ms in"),
               body: hopHeadStart),
    CorpusBody("timing0608.hopThenActorCall", shape: "increments 1 ms apart on unprotected class state",
               .passes, body: hopThenActorCall),
]

/// "Only ever touched by one sync at a time" — by timing, not by anything the compiler checks.
private final class DailyStats: @unchecked Sendable {
    var steps = 0
}

/// Parsing a workout file: a few thousand iterations of real work, no suspension.
private func parseWorkout(_ steps: Int) -> Int {
    var checksum = 0
    for sample in 0..<4_000 { checksum = checksum &+ sample &* 31 }
    return steps + (checksum == -1 ? 1 : 0)
}

/// A bonus service on an actor of its own.
private actor BonusRules {
    func bonus(for steps: Int) -> Int { steps >= 1_000 ? 100 : 0 }
}

private actor StepStore {
    private(set) var steps = 0
    func addParsed(_ raw: Int) {
        let before = steps
        steps = before + parseWorkout(raw)
    }
    func add(_ amount: Int) { steps += amount }
}

/// The watch syncs at 0 ms, the phone 1 ms later; each adds its steps.
private func twoSyncs(_ sync: @escaping @Sendable (Int) async -> Void, total: @escaping @Sendable () async -> Int,
                      expected: Int) async throws -> String {
    let watch = Task {
        nameTask("watch sync")
        await sync(1_000)
    }
    let phone = Task {
        nameTask("phone sync")
        try await Task.sleep(for: .milliseconds(1))
        await sync(2_000)
    }
    await watch.value
    try await phone.value
    let steps = await total()
    guard steps == expected else { throw InvariantViolation("\(steps) steps after syncs adding up to \(expected)") }
    return "steps: \(steps)"
}

/// Read, parse (a loop), write on the class, 1 ms apart.
@Sendable private func loopHeadStart() async throws -> String {
    let stats = DailyStats()
    return try await twoSyncs({ raw in
        let before = stats.steps
        stats.steps = before + parseWorkout(raw)
    }, total: { stats.steps }, expected: 3_000)
}

/// Correct: read, parse and write are one actor call.
@Sendable private func loopInActor() async throws -> String {
    let store = StepStore()
    return try await twoSyncs({ raw in await store.addParsed(raw) }, total: { await store.steps }, expected: 3_000)
}

/// Read, await the bonus service (another actor), write on the class, 1 ms apart.
@Sendable private func hopHeadStart() async throws -> String {
    let stats = DailyStats()
    let rules = BonusRules()
    return try await twoSyncs({ raw in
        let before = stats.steps
        let bonus = await rules.bonus(for: raw)
        stats.steps = before + raw + bonus
    }, total: { stats.steps }, expected: 3_200)
}

/// Correct: the bonus is fetched first; the addition is one actor call.
@Sendable private func hopThenActorCall() async throws -> String {
    let store = StepStore()
    let rules = BonusRules()
    return try await twoSyncs({ raw in
        let bonus = await rules.bonus(for: raw)
        await store.add(raw + bonus)
    }, total: { await store.steps }, expected: 3_200)
}
