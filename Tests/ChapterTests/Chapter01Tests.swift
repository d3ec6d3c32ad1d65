import Testing
import WorkbookExplorer
import WorkbookCore
@testable import ch01_gcd

private func scenario(_ slug: String) -> Scenario { Chapter01.chapter.scenario(slug) }

@Suite("Chapter 1: GCD & QoS", .workbookSelfTest)
struct Chapter01Tests {
    @Test("the scenarios keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter01.chapter.scenarios.map(\.slug) == [
            "serial-vs-concurrent", "counter-race", "sync-vs-async", "queues", "qos", "sync-deadlock",
            "barrier", "async-after", "suspend-resume", "group", "semaphore", "task-counter-race",
        ])
        #expect(Chapter01.chapter.games.map(\.slug) == ["task-counter-race"])
    }

    @Test("the task counter race loses an update in some explored schedule and never with one actor call")
    func taskCounterRace() {
        let lost = Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let outcome = try await Chapter01.twoTaskIncrements()
            if Chapter01.classifyCounter(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(lost.failure != nil)
    }

    @Test("the serial queue always prints ABC", arguments: 1...5)
    func serialQueueIsFIFO(attempt: Int) async throws {
        let context = try await run(scenario("serial-vs-concurrent"))
        #expect(context.noted("serial") == "ABC")
    }

    @Test("the counter-race fix never loses an update")
    func serialQueueFixesTheRace() async throws {
        let context = try await run(scenario("counter-race"), knobs: ["iterations": 500, "window": 50])
        #expect(context.noted("fixed lost updates") == "0")
    }

    @Test("sync returns only after its block ran: A B C", arguments: 1...3)
    func syncOrder(attempt: Int) async throws {
        let context = try await run(scenario("sync-vs-async"))
        #expect(context.noted("sync") == "ABC")
    }

    @Test("a suspended queue finishes its running block and starts nothing new until resumed", arguments: 1...3)
    func suspendResume(attempt: Int) async throws {
        let context = try await run(scenario("suspend-resume"))
        #expect(context.emitted.joined() == "ASBRC")
    }

    @Test("no block overlaps a barrier write", arguments: [(4, 1), (8, 3), (3, 0)])
    func barrierWritesRunAlone(readers: Int, writers: Int) async throws {
        let context = try await run(scenario("barrier"), knobs: ["readers": readers, "writers": writers])
        #expect(context.noted("overlaps with write") == "0")
        #expect(Int(context.noted("max readers") ?? "") ?? 0 >= 1)
    }

    @Test("the group's notify fires exactly once, after the last leave; a held group times out")
    func groupNotifiesOnce() async throws {
        let context = try await run(scenario("group"), knobs: ["tasks": 20])
        #expect(context.noted("notifications") == "1")
        #expect(context.noted("notify after last leave") == "true")
        #expect(context.noted("held waits") == "timedOut success")
    }

    @Test("the semaphore never lets more than width requests be in flight", arguments: [1, 3, 8])
    func semaphoreLimitsWidth(width: Int) async throws {
        let context = try await run(scenario("semaphore"), knobs: ["tasks": 24, "width": width])
        let most = try #require(Int(context.noted("max in flight") ?? ""))
        #expect(most >= 1 && most <= width)
    }

    @Test("the two-queue deadlock is detected by the deadline, and the same-queue sync kills only the child")
    func deadlocks() async throws {
        let context = try await run(scenario("sync-deadlock"))
        #expect(context.noted("two-queue deadlock") == "deadlocked")
        if ChildProcess.sibling(named: "ch01-gcd") != nil {
            #expect(context.noted("child signal") != nil)
        }
    }
}
