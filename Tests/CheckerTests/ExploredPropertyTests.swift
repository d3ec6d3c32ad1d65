import Foundation
import Testing
import WorkbookChecks
import WorkbookCore
import WorkbookExplorer

/// A bank account whose deposit reads and writes in two actor calls (the racy way) or one
/// (the safe way). Stands in for the async exercises of later chapters.
actor Ledger {
    var balance = 0
    func read() -> Int { balance }
    func write(_ value: Int) { balance = value }
    func deposit(_ amount: Int) { balance += amount }
}

@Sendable func twoDeposits(splitAcrossAwait: Bool) async throws -> String {
    let ledger = Ledger()
    await withTaskGroup(of: Void.self) { group in
        for name in ["A", "B"] {
            group.addTask {
                nameTask(name)
                if splitAcrossAwait {
                    let value = await ledger.read()
                    checkpoint("\(name) read \(value)")
                    await ledger.write(value + 10)
                    checkpoint("\(name) wrote \(value + 10)")
                } else {
                    await ledger.deposit(10)
                }
            }
        }
    }
    return "balance=\(await ledger.balance)"
}

let noLostDeposit = Property(
    id: "lost-update",
    name: Localized("no lost deposit", ja: "入金が失われない"),
    rule: Localized("Two deposits of 10 leave a balance of 20.", ja: "10 の入金 2 回で残高は 20 になる。"))

@Suite("An explored property", .workbookSelfTest)
struct ExploredPropertyTests {
    @Test("rejects a deposit split across await, with the schedule, a replay token and a tally, in under 2 s")
    func rejectsSplitDeposit() throws {
        let started = Date()
        let failure = try #require(checkExplored(noLostDeposit, observed: { Localized.verbatim($0) },
                                                 classify: { $0 == "balance=20" ? .acceptable : .forbidden }) {
            try await twoDeposits(splitAcrossAwait: true)
        })
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(failure.property == noLostDeposit)
        let schedule = try #require(failure.schedule)
        #expect(schedule.deviations <= 1)
        #expect(ReplayToken(schedule.token.description) != nil)
        #expect(failure.tally?.forbiddenCount ?? 0 > 0)
        let report = Report.failed("Ledger", failure, terminal: .plain, language: .en)
        #expect(report.contains("Replay token: w1d:"))
        #expect(report.contains("A read 0"))
        #expect(Report.failed("Ledger", failure, terminal: .plain, language: .ja).contains("リプレイトークン"))
    }

    @Test("passes a deposit made in one actor call, in every schedule within two preemptions")
    func passesAtomicDeposit() {
        let failure = checkExplored(noLostDeposit, observed: { Localized.verbatim($0) },
                                    classify: { $0 == "balance=20" ? .acceptable : .forbidden }) {
            try await twoDeposits(splitAcrossAwait: false)
        }
        #expect(failure == nil)
    }

    @Test("reports a continuation that is never resumed as a deadlock")
    func reportsDeadlock() throws {
        let failure = try #require(checkExplored(noLostDeposit, observed: { Localized.verbatim($0) },
                                                 budget: .init(maxSchedules: 10, maxSeconds: 1, foreignWaitSeconds: 0.05)) {
            checkpoint("waits for a callback that never comes")
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return "done"
        })
        #expect(failure.property == .finishes)
    }
}

@Test(.workbookSelfTest) func printExploredReport() throws {
    guard ProcessInfo.processInfo.environment["SHOW_REPORT"] != nil else { return }
    let failure = try #require(checkExplored(noLostDeposit, observed: { Localized("A deposit was lost: \($0).", ja: "入金が失われました: \($0)。") },
                                             classify: { $0 == "balance=20" ? .acceptable : .forbidden }) {
        try await twoDeposits(splitAcrossAwait: true)
    })
    print(Report.failed("Ledger", failure, terminal: Terminal(usesColor: false, usesUnicode: true, width: 90), language: .en))
}
