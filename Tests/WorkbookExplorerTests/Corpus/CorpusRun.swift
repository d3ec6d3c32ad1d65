import Foundation
import Testing
import WorkbookExplorer

/// Runs the corpus through today's explorer and prints one line per case. Disagreements are
/// printed, not failed: the explorer is known to be wrong on the issue's items 1–11.
///
///     WORKBOOK_EXPLORER_CORPUS=1 swift test --skip-build --filter Corpus
///
/// `WORKBOOK_EXPLORER_CORPUS_ONLY=name1,prefix2` runs only cases whose name starts so;
/// `WORKBOOK_EXPLORER_CORPUS_TRAPS=1` runs the trapping cases too (the process dies at the first
/// one, so pair it with `_ONLY`); `WORKBOOK_EXPLORER_CORPUS_PLAIN=1` (alone, in a process of its
/// own) runs every correct body once without the explorer, as a sanity check of the corpus.
@Suite("Explorer regression corpus", .serialized, .workbookSelfTest)
struct CorpusRun {
    static let environment = ProcessInfo.processInfo.environment

    @Test("the corpus is well formed")
    func wellFormed() {
        let names = explorerCorpus.map(\.name)
        #expect(Set(names).count == names.count, "duplicate names: \(Dictionary(grouping: names) { $0 }.filter { $1.count > 1 }.keys.sorted())")
        #expect(explorerCorpus.count >= 40)
        let buggy = explorerCorpus.filter { $0.expectation.failureKind != nil }
        let fixed = explorerCorpus.filter { $0.expectation.failureKind == nil }
        #expect(buggy.count >= 20 && fixed.count >= 20, "\(buggy.count) buggy, \(fixed.count) fixed")
        let covered = Set(explorerCorpus.flatMap(\.items))
        #expect(covered.isSuperset(of: 1...11), "items not covered: \(Set(1...11).subtracting(covered).sorted())")
        #expect(covered.isSubset(of: 1...11), "unknown items: \(covered.subtracting(1...11).sorted())")
        for shape in Set(explorerCorpus.map(\.shape)) {
            let kinds = explorerCorpus.filter { $0.shape == shape }.map { $0.expectation.failureKind == nil }
            #expect(kinds.contains(true) && kinds.contains(false), "shape \"\(shape)\" lacks a buggy/fixed pair")
        }
        for corpusCase in explorerCorpus {
            #expect(corpusCase.traps == (corpusCase.expectation.failureKind == .trap), "\(corpusCase.name): traps and \"trap:\" disagree")
        }
    }

    @Test("every case, with the explorer's verdict", .enabled(if: environment["WORKBOOK_EXPLORER_CORPUS"] == "1"))
    func run() {
        let runsTraps = Self.environment["WORKBOOK_EXPLORER_CORPUS_TRAPS"] == "1"
        var disagreements: [String] = []
        for corpusCase in Self.selected {
            let expected = Self.describe(corpusCase.expectation)
            if corpusCase.traps && !runsTraps {
                Self.report("CORPUS \(corpusCase.name) | \(expected) | skipped: traps, needs a child process | SKIPPED")
                continue
            }
            if corpusCase.traps { Self.report("CORPUS \(corpusCase.name) | \(expected) | running; the process is expected to die") }
            let (said, agrees) = Self.verdict(corpusCase)
            if !agrees { disagreements.append(corpusCase.name) }
            Self.report("CORPUS \(corpusCase.name) | \(expected) | \(said) | \(agrees ? "AGREES" : "DISAGREES")")
        }
        Self.report("CORPUS disagreements (\(disagreements.count)): \(disagreements.joined(separator: ", "))")
    }

    @Test("every correct body, once, without the explorer", .enabled(if: environment["WORKBOOK_EXPLORER_CORPUS_PLAIN"] == "1"))
    func plain() async {
        for corpusCase in Self.selected where corpusCase.expectation.failureKind == nil {
            let started = ContinuousClock.now
            let said: String
            do { said = "returned \"\(try await corpusCase.body())\"" } catch { said = "THREW \(error)" }
            Self.report("PLAIN \(corpusCase.name) | \(said) | \(ContinuousClock.now - started)")
        }
    }

    static var selected: [CorpusCase] {
        let only = environment["WORKBOOK_EXPLORER_CORPUS_ONLY"]?.split(separator: ",").map(String.init) ?? []
        return explorerCorpus.filter { corpusCase in only.isEmpty || only.contains(where: corpusCase.name.hasPrefix) }
    }

    /// Writes one line unbuffered, so a case that hangs still leaves the lines before it.
    static func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func describe(_ expectation: CorpusCase.Expectation) -> String {
        switch expectation.failureKind {
        case nil: "passes"
        case let kind?: "fails (\(kind.rawValue))"
        }
    }

    /// What a check runs: the deepening search (exhaustive 0, 1, 2, … preemptions for half the
    /// budget, then random, then PCT). A body that keeps state across schedules (item 9) is
    /// right to be reported as such, whatever else it does: no other verdict about it holds.
    static func verdict(_ corpusCase: CorpusCase) -> (said: String, agrees: Bool) {
        let started = Date()
        let result = Explorer.explore(.deepening(seed: 1), budget: .init(maxSchedules: 5_000, maxSeconds: 3), corpusCase.body)
        let depth = result.depth
        var runs = "\(result.schedulesRun) schedules (complete to bound \(depth.completeBound.map(String.init) ?? "-")\(depth.everySchedule ? ", all" : ""), random \(depth.randomSchedules), PCT \(depth.pctSchedules))"
        let found = result.failure
        let uncontrolled = result.uncontrolled
        if let shared = result.sharedState {
            runs += ", SHARED STATE: \(shared.prefix(100))"
            if corpusCase.items.contains(9) { return ("shared state reported after \(runs)", true) }
        }
        let seconds = String(format: "%.1f s", Date().timeIntervalSince(started))
        var notes = uncontrolled.first.map { ", \(uncontrolled.count) uncontrolled (\($0.prefix(80)))" } ?? ""
        if corpusCase.items.contains(11) {
            // How the first step of a schedule names the tasks (the failing one, or the default one).
            let steps = found?.steps ?? Explorer.play(choose: { _ in nil }, corpusCase.body).steps
            let named = steps.first { $0.ready.count > 1 } ?? steps.first
            if let named { notes += ", step \(named.number) ran \(named.entity) of \(named.ready)" }
        }
        guard let failure = found else {
            return ("clean after \(runs)\(notes), \(seconds)", corpusCase.expectation.failureKind == nil)
        }
        let kind: CorpusCase.Expectation.FailureKind
        let what: String
        switch failure.outcome {
        case .failed(let message): (kind, what) = (.invariant, "failed \"\(message)\"")
        case .deadlock(let waiting): (kind, what) = (.deadlock, "deadlock [\(waiting.joined(separator: "; "))]")
        case .livelock(let steps): (kind, what) = (.livelock, "livelock at \(steps) steps")
        case .completed(let outcome): (kind, what) = (.invariant, "completed \"\(outcome)\" reported as a failure")
        case .stopped(let step): (kind, what) = (.invariant, "stopped before step \(step), reported as a failure")
        case .blocked(let step): (kind, what) = (.deadlock, "blocked in step \(step)")
        }
        let short = what.count > 160 ? what.prefix(157) + "…" : Substring(what)
        let said = "\(short) at \(failure.deviations) preemption(s) in \(failure.steps.count) steps, \(failure.strategy), "
            + "after \(runs)\(notes), \(seconds)"
        return (said, corpusCase.expectation.failureKind == kind)
    }
}
