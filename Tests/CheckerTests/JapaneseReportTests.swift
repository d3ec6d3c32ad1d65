import Foundation
import JapaneseTextRules
import Testing
import WorkbookChecks
import WorkbookCore

/// Every exercise report a learner with `LANG=ja_JP.UTF-8` can get — a stub's "not started",
/// a failing answer's property, rule, what was seen, trace and hint — is in Japanese: no English
/// words outside code names (the rules the chapters' output is held to, `EnglishWords`).
@Suite("Exercise reports in Japanese", .workbookSelfTest)
struct JapaneseReportTests {
    /// Code names the reports use bare, beyond the chapters' (`EnglishWords.allowed`): the
    /// exercises' parameters, callbacks and stage names as their code spells them, and the
    /// operation state names the glossary keeps in English.
    static let codeNames: Set<String> = Set([
        // The stress-test tool the tally is styled after (結果の集計（jcstress 形式）).
        "jcstress",
        // Operation states (docs/ja/glossary.md: 状態名は英語のまま).
        "executing", "finished",
        // FanOut: the callback and the group calls by their names in the code.
        "completion", "leave", "enter",
        // AsyncOperation: the callback handed to the work.
        "done",
        // CooperativeCancellation: the publisher's method.
        "publish",
        // ImagePipeline's stages (download, decode, thumbnail and save are the chapters' too).
        "metadata",
        // BoundedBuffer / Worker: the condition's calls.
        "signal", "broadcast",
        // The exercises' methods and parameters, which the rules and hints name bare
        // (「take は待つ」「start・submit・shutdown・cancel はすぐに戻る」「結果は ids の順」).
        "increment", "put", "take", "start", "submit", "shutdown", "cancel", "join", "ids", "append",
        // Chapter 07's account holders and users, by the names the checks give them.
        "Aiko", "Ben", "Chie", "Daiki", "Sato",
        // Types and parameters the fakes' steps name: CancellableRequest's `Payload`, the
        // weather client's completion `(data, error)`.
        "Payload", "data",
    ]).union(ReferenceCatalog.catalog.exercises.map(\.id))  // the exercises' type names: `◻ Worker — 未着手`

    /// Lines that quote code or another program, which stay as they are: a source line
    /// (`    15 | counts[page] = …`), a place in the learner's file that waits
    /// (`    exercises/…/Worker.swift:40  condition.wait()`), and the runtime's own messages
    /// (`exercises/…/Worker.swift:40: Precondition failed: …`, `Fatal error: …`, `SWIFT TASK CONTINUATION MISUSE: …`,
    /// `*** Program crashed: …`, `Thread 3 "worker" crashed:`, libdispatch's `BUG IN CLIENT …`).
    /// Not the workbook's explanation of a libdispatch trap (`libdispatch: …`): that is ours.
    static func isQuoted(_ line: String) -> Bool {
        let patterns = [#"^\s+\d+ \| "#, #"^\s+\S+\.swift:\d+  "#, #"^\s*\S+\.swift:\d+(:\d+)?: "#,
                        #"^\s*(BUG IN CLIENT OF LIBDISPATCH|SWIFT TASK CONTINUATION MISUSE|Fatal error|fatal error|Precondition failed|Assertion failed|\*\*\* Program crashed|ERROR: ThreadSanitizer)"#,
                        #"^\s*Thread \d+ .*crashed:$"#]
        return patterns.contains { line.range(of: $0, options: .regularExpression) != nil }
    }

    static func offending(_ report: String) -> [(line: String, words: [String])] {
        EnglishWords.offendingLines(report, alsoAllowed: codeNames, isQuoted: isQuoted)
    }

    static func checker(_ runner: String) throws -> ExerciseChecker {
        let runner = try #require(ChildProcess.sibling(named: runner))
        var checker = ExerciseChecker(packageRoot: ListedVariant.packageRoot, catalog: ReferenceCatalog.catalog, runner: runner,
                                      terminal: Terminal(usesColor: false, usesUnicode: true, width: 100), language: .ja)
        checker.confirmsWithoutSanitizer = false
        return checker
    }

    @Test("the rule lets the reports' code names and quoted lines through, and nothing else")
    func theRule() {
        #expect(Self.offending("  観測: T1 は口座 2 を持ち、口座 1 を待っています").isEmpty)
        #expect(Self.offending("    15 | counts[page, default: 0]").isEmpty)
        #expect(!Self.offending("  libdispatch: `sync` onto a serial queue this thread is already running would wait").isEmpty)
        #expect(Self.offending("    exercises/Exercises/03-threads/Worker.swift:40  while queue.isEmpty { condition.wait() }").isEmpty)
        #expect(Self.offending("  T1    ●increment(\"home\") paused after its release 1").map(\.words) == [["paused", "after", "its", "release"]])
        #expect(Self.offending("依存先が なし の状態で completion を呼び、done() の後 finished になる").isEmpty)
        #expect(Self.offending("  caller  ●fetchAll(…) called").map(\.words) == [["caller", "called"]])
        #expect(Self.offending("T1  ┣transfer(52, from: 1, to: 2)┫·····●口座 1 を保持").isEmpty)
        #expect(Self.offending("◻ Worker — 未着手（todo() が exercises/Exercises/03-threads/Worker.swift:29 に残っています）").isEmpty)
    }

    @Test("a stub's report (not started) in ja", arguments: ReferenceCatalog.catalog.exercises.map(\.id))
    func stub(_ exercise: String) async throws {
        let checker = try Self.checker(RunnerProtocol.executableName)
        let verdict = await onDedicatedThread { withCheckSlot { checker.check(exercise) } }
        let offending = Self.offending(verdict.report)
        #expect(offending.isEmpty, "\(exercise) (\(verdict.status)) reports English in ja:\n\(EnglishWords.report(offending))\n\nThe report:\n\(verdict.report)")
    }
}
