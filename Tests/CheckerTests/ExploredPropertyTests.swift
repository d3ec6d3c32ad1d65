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
    @Test("rejects a deposit split across await, with the schedule, a replay token and a tally")
    func rejectsSplitDeposit() async throws {
        let failure = try #require(await splitDepositFailure())
        #expect(failure.property == noLostDeposit)
        let schedule = try #require(failure.schedule)
        #expect(schedule.deviations <= 1)
        #expect(ReplayToken(schedule.token.description) != nil)
        #expect(failure.tally?.forbiddenCount ?? 0 > 0)
        let report = Report.failed("Ledger", failure, terminal: .plain, language: .en)
        #expect(report.range(of: #"Replay token \(case \d+\): w1d:"#, options: .regularExpression) != nil, "\(report)")
        #expect(report.contains("A read 0"))
        #expect(Report.failed("Ledger", failure, terminal: .plain, language: .ja).contains("リプレイトークン"))
    }

    @Test("passes a deposit made in one actor call, in every schedule within two preemptions")
    func passesAtomicDeposit() async {
        let failure = await onDedicatedThread {
            checkExplored(noLostDeposit, observed: { Localized.verbatim($0) },
                          classify: { $0 == "balance=20" ? .acceptable : .forbidden }) {
                try await twoDeposits(splitAcrossAwait: false)
            }
        }
        #expect(failure == nil)
    }

    @Test("reports a continuation that is never resumed as a deadlock")
    func reportsDeadlock() async throws {
        let failure = try #require(await onDedicatedThread {
            checkExplored(noLostDeposit, observed: { Localized.verbatim($0) },
                          budget: .init(maxSchedules: 10, maxSeconds: 1, foreignWaitSeconds: 0.05)) {
                checkpoint("waits for a callback that never comes")
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                return "done"
            }
        })
        #expect(failure.property == .finishes)
    }
}

@Suite("A failure report fits the terminal", .workbookSelfTest)
struct ReportWidthTests {
    static let longRule = Localized(
        "A pair equal to the one sent just before it is not sent again (a field set to the text it already had), whatever the order the fields change in.",
        ja: "直前に送ったペアと等しいペアは、もう一度は送らない（すでにあるのと同じ文字列がフィールドに入った場合）。フィールドが変わる順序によらない。")

    @Test("Rule and Seen are wrapped under their label, the tally's outcomes inside their column", arguments: Language.allCases)
    func wrapped(_ language: Language) async throws {
        let failure = try #require(await splitDepositFailure())
        var tally = OutcomeTally { $0 == "balance=20" ? .acceptable : .forbidden }
        for _ in 0..<40 { tally.record("balance=20") }
        tally.record(BilingualLabel.join("lost-update|" + Self.longRule.en, "lost-update|" + Self.longRule.ja))
        let long = CheckFailure(Property(id: "lost-update", name: Localized("no lost deposit", ja: "入金が失われない"), rule: Self.longRule),
                                observed: Localized(Self.longRule.en + " " + Self.longRule.en, ja: Self.longRule.ja + Self.longRule.ja),
                                tally: tally, schedule: failure.schedule, exploredCase: failure.exploredCase)
        for width in [60, 80, 100] {
            let report = Report.failed("Ledger", long, terminal: Terminal(usesColor: false, usesUnicode: true, width: width), language: language,
                                       hint: Self.longRule)
            let lines = report.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { displayWidth($0) <= width }, "\(width):\n\(report)")
            let label = language == .en ? "  Rule: " : "  ルール: "
            let rule = try #require(lines.firstIndex { $0.hasPrefix(label) })
            #expect(lines[rule + 1].hasPrefix(String(repeating: " ", count: displayWidth(label))), "\(report)")
            #expect(report.contains(language == .en ? "Outcome tally (jcstress style):" : "結果の集計（jcstress 形式）:"))
        }
        // A tally of the one failing run adds nothing to what was seen: one line says so.
        let report = Report.failed("Ledger", failure, terminal: .plain, language: language)
        #expect(report.contains(language == .en ? "Outcome tally: 1 run; its outcome, seen above, is FORBIDDEN." : "結果の集計: 実行は 1 回で") == (failure.tally?.total == 1))
    }
}

/// The check's failure for two deposits split across `await`, explored on a thread of its own:
/// the search waits for the process's one exploration at a time, which must not hold one of the
/// cooperative pool's few threads meanwhile.
func splitDepositFailure(observed: @escaping @Sendable (String) -> Localized = { Localized.verbatim($0) }) async -> CheckFailure? {
    await onDedicatedThread {
        checkExplored(noLostDeposit, observed: observed, classify: { $0 == "balance=20" ? .acceptable : .forbidden }) {
            try await twoDeposits(splitAcrossAwait: true)
        }
    }
}

@Test(.workbookSelfTest) func printExploredReport() async throws {
    guard ProcessInfo.processInfo.environment["SHOW_REPORT"] != nil else { return }
    let failure = try #require(await splitDepositFailure(observed: { Localized("A deposit was lost: \($0).", ja: "入金が失われました: \($0)。") }))
    print(Report.failed("Ledger", failure, terminal: Terminal(usesColor: false, usesUnicode: true, width: 90), language: .en))
}
