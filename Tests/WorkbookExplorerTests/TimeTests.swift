import Foundation
import Testing
import WorkbookExplorer

/// Sleeps, clocks and the main actor under the explorer.
@Suite("Time and the main actor under the explorer", .workbookSelfTest)
struct TimeTests {
    @Test("a polling loop starved by an unfair chooser is not a livelock", arguments: [
        Explorer.Strategy.pct(seed: 1, depth: 3), .pct(seed: 2, depth: 2), .random(seed: 3), .exhaustive(maxPreemptions: 2),
    ])
    func starvationIsNotLivelock(strategy: Explorer.Strategy) async {
        let result = await Explorer.explore(strategy, budget: .init(maxSchedules: 300, maxStepsPerSchedule: 400)) { try await pollingConsumer() }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
    }

    @Test("a cancelled sleep ends at once with CancellationError, in every schedule")
    func cancelledSleep() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let sleeper = Task { () -> String in
                do {
                    try await Task.sleep(for: .seconds(3600))
                    return "slept"
                } catch {
                    return "cancelled"
                }
            }
            sleeper.cancel()
            let outcome = await sleeper.value
            if outcome != "cancelled" { throw InvariantViolation("the sleep was not cancelled: \(outcome)") }
            return outcome
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.map(\.outcome) == ["cancelled"])
    }

    @Test("a debounce that cancels the previous sleep fires only the last value")
    func debounce() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let debouncer = LastValueDebouncer()
            for value in 1...3 { await debouncer.send(value) }
            try await ExplorerClock().sleep(for: .seconds(1))
            let fired = await debouncer.fired
            if fired != [3] { throw InvariantViolation("fired \(fired)") }
            return "fired \(fired)"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
    }

    @Test("two timers due together are explored in both orders")
    func equalDeadlines() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1)) {
            let log = Log()
            async let first: Void = { try? await Task.sleep(for: .milliseconds(10)); await log.append("first") }()
            async let second: Void = { try? await Task.sleep(for: .milliseconds(10)); await log.append("second") }()
            _ = await (first, second)
            return await log.entries.joined(separator: ",")
        }
        #expect(Set(result.outcomes.map(\.outcome)) == ["first,second", "second,first"])
    }

    @Test("a reply and a timeout due at the same moment race: the search explores both")
    func timeoutAtTheMomentOfTheReply() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let winner = Winner()
            let reply = Task { try? await ExplorerClock().sleep(for: .milliseconds(10)); await winner.claim("reply") }
            let timeout = Task { try? await ExplorerClock().sleep(for: .milliseconds(10)); await winner.claim("timeout") }
            _ = await (reply.value, timeout.value)
            return await winner.first ?? "none"
        }
        #expect(Set(result.outcomes.map(\.outcome)) == ["reply", "timeout"])
    }

    @Test("a real half-second sleep costs no real time and is not a deadlock")
    func realSleep() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 200)) {
            try await Task.sleep(nanoseconds: 500_000_000)
            try await ContinuousClock().sleep(for: .milliseconds(500))
            return "awake"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        // The search's own time: waiting for the process's one exploration at a time is not it.
        #expect(result.seconds < 5)
    }

    @Test("main-actor code runs under the explorer, isolated to the main actor")
    func mainActor() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let model = ViewModel()
            async let a: Void = model.load(1)
            async let b: Void = model.load(2)
            _ = await (a, b)
            return "\(await model.items.sorted())"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.map(\.outcome) == ["[1, 2]"])
        #expect(result.uncontrolled.isEmpty, "\(result.uncontrolled)")
        #expect(result.schedulesRun > 1, "the main actor's jobs are choices of the search")
    }

    @Test("a Task.yield() in a Task {} after an actor hop stays in the run")
    func yieldAfterHopInUnstructuredTask() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let log = Log()
            let worker = Task {
                await log.append("a")
                await Task.yield()
                await log.append("b")
            }
            await worker.value
            return await log.entries.joined()
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.uncontrolled.isEmpty, "\(result.uncontrolled)")
        #expect(result.sharedState == nil, "\(String(describing: result.sharedState))")
    }

    @Test("a sleep in a Task {} after an actor hop is virtual time too")
    func sleepAfterHopInUnstructuredTask() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1), budget: .init(maxSchedules: 20)) {
            let log = Log()
            let worker = Task {
                await log.append("a")
                try? await Task.sleep(for: .milliseconds(300))
                await log.append("b")
            }
            await worker.value
            return await log.entries.joined()
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.uncontrolled.isEmpty, "\(result.uncontrolled)")
        #expect(result.seconds < 2)
    }

    @Test("a hop from one idle actor to another is a choice for child tasks")
    func hopBetweenActorsInChildTask() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2)) {
            let (rows, index) = (Log(), Log())
            async let writer: Void = { await rows.append("row"); await index.append("row") }()
            async let reader = (await rows.entries.count, await index.entries.count)
            _ = await writer
            let (rowCount, indexCount) = await reader
            if rowCount != indexCount { throw InvariantViolation("reader saw \(rowCount) rows, \(indexCount) index entries") }
            return "consistent"
        }
        #expect(result.failure != nil, "the reader between the two hops is a schedule the search must find")
    }

    @Test("the main actor runs its jobs one at a time, in the order they arrived")
    func mainActorInOrder() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 3)) {
            let log = MainActorLog()
            await log.startThree()
            await log.allDone
            return await log.entries.joined(separator: " ")
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.map(\.outcome) == ["1 2 3"])
        #expect(result.uncontrolled.isEmpty, "\(result.uncontrolled)")
    }
}

/// A consumer polls with `Task.yield()` until the producer sets the flag: correct, but a
/// chooser that keeps picking the consumer never lets the producer run.
@Sendable func pollingConsumer() async throws -> String {
    let flag = LockedFlag()
    async let consumer: Int = {
        var polls = 0
        while !flag.isSet {
            polls += 1
            await Task.yield()
        }
        return polls
    }()
    async let producer: Void = flag.set()
    _ = await (consumer, producer)
    return "done"
}

/// A flag behind a lock: polling it is no actor hop, so the poller stays the same ready task.
final class LockedFlag: @unchecked Sendable {  // `value` under `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

actor Winner {
    private(set) var first: String?
    func claim(_ who: String) { if first == nil { first = who } }
}

actor Log {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}

/// Keeps the last value; fires it after 100 ms without a newer one.
actor LastValueDebouncer {
    private(set) var fired: [Int] = []
    private var pending: Task<Void, Never>?
    func send(_ value: Int) {
        pending?.cancel()
        pending = Task {
            do { try await ExplorerClock().sleep(for: .milliseconds(100)) } catch { return }
            fire(value)
        }
    }
    private func fire(_ value: Int) { fired.append(value) }
}

@MainActor final class MainActorLog {
    private(set) var entries: [String] = []
    private var started: [Task<Void, Never>] = []
    nonisolated init() {}
    /// Three main-actor tasks, made in order from the main actor.
    func startThree() {
        for number in 1...3 { started.append(Task { @MainActor in self.entries.append("\(number)") }) }
    }
    var allDone: Void { get async { for task in started { await task.value } } }
}

@MainActor final class ViewModel {
    private(set) var items: [Int] = []
    nonisolated init() {}
    func load(_ value: Int) async {
        MainActor.assertIsolated()
        try? await Task.sleep(for: .milliseconds(5))
        items.append(value)
    }
}
