import Foundation
import Testing
@testable import WorkbookExplorer
import WorkbookCore

@Suite("The explorer finds", .workbookSelfTest)
struct ExplorerFinds {
    @Test("a lost update on an actor across await, with at most one preemption")
    func lostUpdate() async throws {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await twoIncrements(atomic: false) }
        let failure = try #require(result.failure)
        #expect(failure.outcome == .failed("lost update: balance is 1 after two increments"))
        #expect(failure.deviations <= 1)
    }

    @Test("a reader getting a stale token while a refresh is in flight")
    func staleToken() async throws {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await refreshWhileReading(awaitsRefresh: false) }
        let failure = try #require(result.failure)
        #expect(failure.outcome == .failed("stale token: the reader got \"old\" while a refresh was in flight"))
        #expect(failure.deviations <= 1)
        #expect(failure.steps.contains { $0.entity == "reader" })
    }

    @Test("a deadlock when a continuation is never resumed, naming where the task waits")
    func leakedContinuationDeadlocks() async throws {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(foreignWaitSeconds: 0.05)) { try await leakedContinuation() }
        let failure = try #require(result.failure)
        guard case let .deadlock(waiting) = failure.outcome else {
            Issue.record("expected a deadlock, got \(failure.outcome)")
            return
        }
        #expect(waiting.contains { $0.contains("waits for a callback") })
        #expect(failure.deviations == 0)
    }

    @Test("a bug that needs three preemptions: the deepening search goes past two")
    func deepBug() async throws {
        let shallow = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await reversedArrivals() }
        #expect(shallow.failure == nil && shallow.exhausted)
        let deep = await Explorer.explore(.deepening(seed: 1), budget: .init(maxSchedules: 20_000, maxSeconds: 10)) { try await reversedArrivals() }
        let failure = try #require(deep.failure)
        #expect(failure.deviations >= 3)
        #expect((deep.depth.completeBound ?? 0) >= 2)
    }

    @Test("a trap in explored code leaves its schedule in the journal: the step it died in and a token")
    func trapJournal() throws {
        let probe = try #require(ChildProcess.sibling(named: "explorer-benchmark"))
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        var environment = ProcessInfo.processInfo.environment
        environment[ScheduleJournal.environmentKey] = journal
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let outcome = try ChildProcess(executable: probe, arguments: ["--trap-probe"], environment: environment).run(timeoutSeconds: 30)
        guard case .signalled = outcome.termination else {
            Issue.record("the probe did not trap: \(outcome.termination)")
            return
        }
        #expect(outcome.standardError.contains("resume"))
        let token = try #require(ScheduleJournal.read(path: journal))
        #expect(token.configuration == .current)
        #expect(!token.choices.isEmpty)

        // The same schedule replays step by step up to the trap, and stops there alive.
        let replay = try ChildProcess(executable: probe, arguments: ["--trap-probe-replay", token.description], environment: environment)
            .run(timeoutSeconds: 30)
        guard case .exited(0) = replay.termination else {
            Issue.record("the replay did not stop before the trap: \(replay.termination) \(replay.standardError)")
            return
        }
        let lines = replay.standardOutput.split(separator: "\n")
        #expect(lines.count == token.choices.count, "\(replay.standardOutput)")
        #expect(lines.last?.hasPrefix("step \(token.choices.count) would run: ") == true, "\(replay.standardOutput)")
        #expect(lines.last?.hasSuffix("(stopped before step \(token.choices.count))") == true, "\(replay.standardOutput)")
    }

    @Test("state that outlives a schedule is reported, not carried silently")
    func sharedState() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1)) { try await countsOnTheSingleton() }
        #expect(result.sharedState != nil)
        let fresh = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await twoIncrements(atomic: true) }
        #expect(fresh.sharedState == nil)
    }

    @Test("the lost update with random and PCT schedules too", arguments: [
        Explorer.Strategy.random(seed: 1), .random(seed: 99), .pct(seed: 1, depth: 2), .pct(seed: 42, depth: 3),
    ])
    func otherStrategies(strategy: Explorer.Strategy) async {
        let result = await Explorer.explore(strategy, budget: .init(maxSchedules: 2_000)) { try await twoIncrements(atomic: false) }
        #expect(result.failure != nil, "\(strategy) found nothing in \(result.schedulesRun) schedules")
    }
}

@Suite("The explorer raises no false alarm", .workbookSelfTest)
struct ExplorerNoFalseAlarm {
    @Test("on an atomic increment, in every schedule within two preemptions")
    func atomicIncrement() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await twoIncrements(atomic: true) }
        #expect(result.failure == nil)
        #expect(result.exhausted)
        #expect(result.outcomes.map(\.outcome) == ["balance=2"])
    }

    @Test("on a refresh that readers await, in every schedule within two preemptions")
    func awaitedRefresh() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await refreshWhileReading(awaitsRefresh: true) }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.exhausted)
        #expect(result.schedulesRun > 10)
    }

    @Test("on continuations, yields, unstructured and detached tasks, groups and virtual sleep")
    func everything() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await everythingControlled() }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.map(\.outcome) == ["15"])
        #expect(result.uncontrolled.isEmpty)
        #expect(result.seconds < 30)  // a minute of virtual sleep, many times
    }
}

@Suite("The explorer is deterministic", .workbookSelfTest)
struct ExplorerDeterminism {
    @Test("the same seed gives the same schedule, 100 times")
    func sameSeed() async {
        let first = await Explorer.explore(.random(seed: 7), budget: .init(maxSchedules: 50)) { try await twoIncrements(atomic: false) }
        for _ in 0..<100 {
            let again = await Explorer.explore(.random(seed: 7), budget: .init(maxSchedules: 50)) { try await twoIncrements(atomic: false) }
            #expect(again.failure?.token == first.failure?.token)
            #expect(again.failure?.steps == first.failure?.steps)
        }
    }

    @Test("a replay token reproduces its failure, 100 times")
    func replay() async throws {
        let failure = try #require(await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await refreshWhileReading(awaitsRefresh: false) }.failure)
        #expect(ReplayToken(failure.token.description) == failure.token)
        for _ in 0..<100 {
            let again = await Explorer.replay(failure.token) { try await refreshWhileReading(awaitsRefresh: false) }
            #expect(again.outcome == failure.outcome)
            #expect(again.steps == failure.steps)
        }
    }

    @Test("replay tokens round-trip through text", arguments: [[], [0], [0, 0, 0, 1, 2, 2, 0], Array(repeating: 3, count: 40)])
    func tokens(choices: [Int]) {
        let token = ReplayToken(choices: choices)
        #expect(ReplayToken(token.description) == token)
    }

    @Test("malformed tokens are rejected", arguments: ["", "w2:0", "w1:0", "w1d:a", "w1d:0x", "w1d:-1", "w1d:1x0", "w1x:0"])
    func badTokens(text: String) {
        #expect(ReplayToken.parse(text) == .failure(.malformed))
    }

    @Test("a token from the other build configuration is refused, not replayed")
    func otherConfiguration() {
        let other: ReplayToken.Configuration = ReplayToken.Configuration.current == .debug ? .release : .debug
        let text = ReplayToken(choices: [0, 1, 0], configuration: other).description
        #expect(ReplayToken.parse(text) == .failure(.otherConfiguration(other)))
        #expect(ReplayToken(text) == nil)
    }
}

@Suite("The explorer reports", .workbookSelfTest)
struct ExplorerReports {
    @Test("a continuation resumed from a Dispatch thread as uncontrolled, not as a failure")
    func uncontrolled() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1), budget: .init(maxSchedules: 20, foreignWaitSeconds: 2)) {
            let value: Int = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    // Resume only once the body has really suspended and the driver waits for
                    // outside work; resuming earlier lets the body carry on in the same job,
                    // and nothing uncontrolled happens at all.
                    let giveUp = Date(timeIntervalSinceNow: 2)
                    while DriverThread.activeRun?.isAwaitingForeignWork != true && Date() < giveUp { usleep(500) }
                    continuation.resume(returning: 7)
                }
            }
            return "\(value)"
        }
        #expect(result.failure == nil)
        #expect(!result.uncontrolled.isEmpty)
        #expect(result.outcomes.map(\.outcome) == ["7"])
    }

    @Test("a task that never stops yielding as a livelock at the step cap")
    func livelock() async throws {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 0), budget: .init(maxStepsPerSchedule: 500)) {
            while true { await Task.yield() }
        }
        let failure = try #require(result.failure)
        #expect(failure.outcome == .livelock(steps: 500))
    }

    @Test("the schedule as numbered steps naming the task and the checkpoints it passed")
    func namedSteps() async throws {
        let failure = try #require(await Explorer.explore(.exhaustive(maxPreemptions: 2)) { try await twoIncrements(atomic: false) }.failure)
        #expect(failure.steps.map(\.number) == Array(1...failure.steps.count))
        #expect(failure.steps.contains { $0.entity == "A" && $0.checkpoints == ["read 0"] })
        #expect(failure.steps.contains { $0.entity == "B" && $0.checkpoints == ["read 0"] })
        #expect(failure.strategy == "exhaustive search")
    }
}

@Suite("The explorer's choices", .workbookSelfTest)
struct ExplorerChoices {
    @Test("a task that has not run yet is listed as a task, numbered, never as an actor")
    func unstartedTasksAreTasks() async {
        let seen = QuietLocked<[[Entity]]>([])
        _ = await Explorer.play(choose: { point in
            seen.withLock { $0.append(point.ready.map(\.who)) }
            return nil
        }) {
            async let a: Int = { 1 }()
            async let b: Int = { 2 }()
            return "\(await a + b)"
        }
        let first = seen.current.first ?? []
        #expect(first.count == 2)
        #expect(!first.contains(.actor), "\(first)")
        #expect(first == [.task(2), .task(3)], "\(first)")
    }
}
