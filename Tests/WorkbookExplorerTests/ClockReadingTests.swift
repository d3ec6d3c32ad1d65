import Foundation
import Interposing
import Testing
@testable import WorkbookExplorer

/// `ContinuousClock.now` and `SuspendingClock.now` read by the code under exploration (Linux:
/// `PlatformMechanism.clockReadings`; elsewhere, or with the mechanisms off, they read real time).
@Suite("Clock readings under the explorer", .workbookSelfTest, .serialized,
       .enabled(if: workbook_linux_mechanisms_enabled(), "virtual clock readings are a Linux mechanism"))
struct ClockReadingTests {
    @Test("inside a run, readings a sleep apart differ by exactly that sleep, and every schedule reads the same instants")
    func readingsAreVirtual() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 50)) {
            let start = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(50))
            let afterSleep = ContinuousClock().now
            try await Task.sleep(until: .now + .milliseconds(7), clock: .continuous)
            let afterDeadline = ContinuousClock.Instant.now
            let suspendingStart = SuspendingClock.now
            busy(for: .milliseconds(4))  // a slow step before a generic sleep: its reading still tells it apart
            try await Task.sleep(for: .microseconds(2_500))
            let suspendingEnd = SuspendingClock.Instant.now
            return "\(start.duration(to: afterSleep)) \(afterSleep.duration(to: afterDeadline)) \(suspendingStart.duration(to: suspendingEnd)) \(SuspendingClock().now.duration(to: .now))"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.count == 1, "\(result.outcomes)")
        #expect(result.outcomes.first?.outcome == "0.05 seconds 0.007 seconds 0.0025 seconds 0.0 seconds", "\(result.outcomes)")
    }

    @Test("a debounce that compares readings with its interval fires once, in every schedule")
    func debounceByReadings() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 500)) {
            let gate = ReadingDebouncer()
            async let first: Void = gate.send(1)
            async let second: Void = { try? await Task.sleep(for: .milliseconds(20)); await gate.send(2) }()
            _ = await (first, second)
            try await Task.sleep(for: .milliseconds(100))
            let fired = await gate.fired
            if fired != [2] { throw InvariantViolation("fired \(fired)") }
            return "fired \(fired)"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.schedulesRun > 1)
    }

    @Test("a deadline taken through a generic clock (a real reading) is still a timer of the run")
    func genericClockDeadline() async {
        let result = await Explorer.explore(.exhaustive(maxPreemptions: 1), budget: .init(maxSchedules: 20)) {
            try await sleepOn(ContinuousClock(), for: .milliseconds(300))
            return "woke"
        }
        #expect(result.failure == nil, "\(String(describing: result.failure?.outcome))")
        #expect(result.outcomes.map(\.outcome) == ["woke"])
        #expect(result.seconds < 3)  // the search's own time, not its wait for its turn
    }

    @Test("outside a run the clocks read real time")
    func outsideARun() {
        let reading = ContinuousClock.now
        #expect(!ClockReadings.isVirtual(unsafeBitCast(reading, to: Duration.self)))
        let later = ContinuousClock.now
        #expect(reading <= later)
    }
}

private func busy(for duration: Duration) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(duration.components.attoseconds / 1_000_000_000)
    while DispatchTime.now().uptimeNanoseconds < end {}
}

private func sleepOn<C: Clock>(_ clock: C, for duration: C.Duration) async throws {
    try await clock.sleep(for: duration)
}

/// Fires a value only once `interval` passed without a newer one: each send notes when it came,
/// sleeps the interval, and fires if no send came since.
private actor ReadingDebouncer {
    private var lastSend = ContinuousClock.now
    private(set) var fired: [Int] = []
    func send(_ value: Int) async {
        let sentAt = ContinuousClock.now
        lastSend = sentAt
        try? await Task.sleep(for: .milliseconds(50))
        if lastSend == sentAt, ContinuousClock.now - sentAt >= .milliseconds(50) { fired.append(value) }
    }
}

@Suite("A guaranteed bound", .workbookSelfTest)
struct GuaranteedBoundTests {
    @Test("every schedule with one preemption runs however little time the budget gives: the lost update is found")
    func boundBeforeTime() async {
        var budget = Explorer.Budget(maxSchedules: 5_000, maxSeconds: 0.000_001)
        budget.guaranteedBound = 1
        let result = await Explorer.explore(.deepening(seed: 1), budget: budget) { try await twoIncrements(atomic: false) }
        #expect(result.failure != nil, "a lost update needs one preemption")
        // Without the guarantee, the same budget stops at its first check of the time: one
        // schedule (which one the runtime's default order makes may already lose the update).
        let starved = await Explorer.explore(.deepening(seed: 1), budget: .init(maxSchedules: 5_000, maxSeconds: 0.000_001)) {
            try await twoIncrements(atomic: false)
        }
        #expect(starved.failure != nil || starved.schedulesRun <= 2, "without the guarantee a budget this small stops at once")
    }
}
