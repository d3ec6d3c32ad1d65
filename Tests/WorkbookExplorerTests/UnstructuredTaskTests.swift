import Foundation
@testable import WorkbookExplorer
import Testing

/// `Task {}`, `Task.detached` made by code under exploration run under the explorer's task
/// executor; outside a run nothing changes.
@Suite("Unstructured tasks under the explorer", .workbookSelfTest, .serialized)
struct UnstructuredTaskTests {
    @Test("a Task {} made outside an exploration is left alone: it has no executor preference")
    func outsideARun() async {
        #expect(await Task { hasExecutorPreference() }.value == false)
        #expect(await Task.detached { hasExecutorPreference() }.value == false)
    }

    @Test("a Task {} and a Task.detached made under the explorer are steered, and keep task-local values and cancellation as before")
    func underARun() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1), budget: .init(maxSchedules: 50)) {
            try await Request.$id.withValue("r1") {
                let steered = [await Task { hasExecutorPreference() }.value, await Task.detached { hasExecutorPreference() }.value]
                guard steered == [true, true] else { throw InvariantViolation("executor preference: \(steered)") }
                let inherited = Task { Request.id }
                let detached = Task.detached { Request.id }
                let sleeper = Task { () -> String in
                    do { try await Task.sleep(for: .seconds(60)); return "slept" } catch { return "cancelled" }
                }
                sleeper.cancel()
                let seen = [await inherited.value, await detached.value, await sleeper.value]
                guard seen == ["r1", "none", "cancelled"] else { throw InvariantViolation("seen \(seen)") }
                return seen.joined(separator: ",")
            }
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.uncontrolled.isEmpty, "\(result.uncontrolled)")
    }

    @Test("the hop of a Task {} made in an actor method is a choice: a read-hop-write lost update is found")
    func actorMethodTaskHopIsAChoice() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 2_000)) {
            let shelf = Shelf()
            await shelf.sell()
            await shelf.sell()
            await shelf.finish()
            let left = await shelf.count
            guard left == 3 else { throw InvariantViolation("two sales from 5 left \(left)") }
            return "left \(left)"
        }
        #expect(result.failure != nil, "the lost update was not found in \(result.schedulesRun) schedules")
    }
}

/// Whether the calling task runs with a task executor preference.
private func hasExecutorPreference() -> Bool {
    withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
}

private enum Request {
    @TaskLocal static var id = "none"
}

private actor Catalogue {
    func price() -> Int { 1 }
}

private actor Shelf {
    private(set) var count = 5
    private let catalogue = Catalogue()
    private var sales: [Task<Void, Never>] = []

    func sell() {
        sales.append(Task {
            let before = self.count
            _ = await self.catalogue.price()
            self.count = before - 1
        })
    }

    func finish() async {
        for sale in sales { await sale.value }
    }
}

/// A deadline taken from the real clock reaches the explorer a moment later; the sleep asked for
/// is read back as the roundest duration the moment allows.
@Suite("Deadlines from the real clock")
struct RealDeadlineTests {
    @Test("a sleep is read back as asked, however long the moment between the clock and the explorer", arguments: [
        (asked: Duration.milliseconds(50), late: Duration.microseconds(7)),
        (asked: .milliseconds(50), late: .microseconds(1_400)),   // a preemption past a millisecond
        (asked: .milliseconds(20), late: .milliseconds(4)),
        (asked: .milliseconds(1), late: .microseconds(30)),
        (asked: .milliseconds(300), late: .milliseconds(9)),
        (asked: .seconds(1), late: .microseconds(50)),
        (asked: .microseconds(1_500), late: .microseconds(20)),
    ])
    func readBack(asked: Duration, late: Duration) {
        // The explorer sees `asked - late` left, and knows the deadline was taken at most
        // `late` plus a little before.
        let read = RealDeadline.sleep(atLeast: asked - late, atMost: asked - late + late + .microseconds(3))
        #expect(read == asked)
    }

    @Test("a deadline already passed is now")
    func passed() {
        #expect(RealDeadline.sleep(atLeast: .milliseconds(-3), atMost: .milliseconds(-1)) == .zero)
    }
}

@Suite("Main-actor isolation as the run ran it", .workbookSelfTest)
struct MainActorIsolationTests {
    @MainActor static func onMain() -> Bool? { isRunningOnMainActor }
    nonisolated static func nonisolatedHelper() -> Bool? { isRunningOnMainActor }
    @MainActor static func callsNonisolatedHelper() -> Bool? { nonisolatedHelper() }

    @Test("a main-actor job answers true, a detached task false, a synchronous helper called from the main actor true, outside a run nil",
          arguments: [false, true])
    func isolationOfEachJob(tasksOnOwnThreads: Bool) async {
        #expect(isRunningOnMainActor == nil)
        var budget = Explorer.Budget(maxSchedules: 20)
        budget.tasksOnOwnThreads = tasksOnOwnThreads
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1), budget: budget) {
            let detached = await Task.detached { isRunningOnMainActor }.value
            let main = await Task { @MainActor in MainActorIsolationTests.onMain() }.value
            let helper = await MainActorIsolationTests.callsNonisolatedHelper()
            let inherited = await Task { @MainActor in await Task { isRunningOnMainActor }.value }.value
            return "\(String(describing: detached)) \(String(describing: main)) \(String(describing: helper)) \(String(describing: inherited))"
        }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == ["Optional(false) Optional(true) Optional(true) Optional(true)"], "\(result.outcomes)")
    }
}
