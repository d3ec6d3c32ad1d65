import Foundation
import JapaneseTextRules
import Testing
import WorkbookChecks
import WorkbookCore

/// A buggy variant as listed by `variant-runner --list`.
struct ListedVariant: Sendable, CustomTestStringConvertible {
    let name: String
    let exercise: String
    let breaks: String
    let summary: String

    var testDescription: String { "\(exercise): \(summary) → \(breaks)" }

    /// `breaks` of a registered correct answer in another style, which the check must pass.
    static let passes = "none"
    /// What `variant-runner --list` gives as the exercise of the explorer corpus' bodies.
    static let corpusExercise = "Corpus"

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Asks `variant-runner` for its list (this target cannot link the variants: they are
    /// compiled with ThreadSanitizer and run only in that child process).
    static func all() -> [ListedVariant] {
        guard let runner = ChildProcess.sibling(named: "variant-runner"),
              let outcome = try? ChildProcess(executable: runner, arguments: ["--list"]).run(timeoutSeconds: 20) else { return [] }
        return outcome.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            // The explorer corpus (`Corpus.…`) is no exercise's: ExplorerCorpusTests runs it.
            guard fields.count == 4, fields[1] != corpusExercise else { return nil }
            return ListedVariant(name: fields[0], exercise: fields[1], breaks: fields[2], summary: fields[3])
        }
    }
}

@Suite("Each check rejects its buggy variants, for the right reason", .workbookSelfTest)
struct VariantsAreRejected {
    static let variants = ListedVariant.all()

    /// Each variant runs once, reported in Japanese: the verdict's property is the same in both
    /// languages, and the report is held to the Japanese text rules here (`JapaneseReportTests`),
    /// which saves running every variant a second time.
    @Test("the variant fails with the property it was written to break, and reports it in Japanese", arguments: variants)
    func rejected(variant: ListedVariant) async throws {
        let runner = try #require(ChildProcess.sibling(named: "variant-runner"))
        let catalog = try ExerciseCatalog.load(packageRoot: ListedVariant.packageRoot)
        let checker = ExerciseChecker(packageRoot: ListedVariant.packageRoot, catalog: catalog, runner: runner,
                                      terminal: Terminal(usesColor: false, usesUnicode: true, width: 100), language: .ja)
        // A dedicated thread, not a cooperative one: the child run blocks for seconds.
        let verdict = await onDedicatedThread { withCheckSlot { checker.checkVariant(variant.name, exercise: variant.exercise) } }
        // `SHOW_REPORT=1` prints each report, to read them as a learner would.
        if ProcessInfo.processInfo.environment["SHOW_REPORT"] != nil { print("\n" + verdict.report) }
        let english = JapaneseReportTests.offending(verdict.report)
        #expect(english.isEmpty, "\(variant.name) (\(verdict.failedProperty ?? "\(verdict.status)")) reports English in ja:\n\(EnglishWords.report(english))\n\nThe report:\n\(verdict.report)")
        if variant.breaks == ListedVariant.passes {
            // A correct answer in another style: the check must not raise a false alarm.
            #expect(verdict.status == .done, "\(variant.name) is correct but was rejected:\n\(verdict.report)")
            return
        }
        #expect(verdict.status == .failing, "\(variant.name) passed:\n\(verdict.report)")
        if variant.breaks == VerdictProperty.crash {
            let explanations = ["libdispatch:", "Fatal error", "Precondition failed", "Assertion failed"]
            #expect(explanations.contains(where: verdict.report.contains),
                    "\(variant.name): a crash verdict keeps the runtime's explanation:\n\(verdict.report)")
        }
        #expect(verdict.failedProperty == variant.breaks,
                "\(variant.name) failed for the wrong reason (\(verdict.failedProperty ?? "none")):\n\(verdict.report)")
    }

    /// As on Apple platforms: every correct variant, and one buggy variant for each property each
    /// exercise's variants break (the first listed) — every buggy one in the full self-test
    /// (`SelfTest.isFull`).
    static let asOnAppleVariants: [ListedVariant] = {
        if SelfTest.isFull { return variants }
        var seen: Set<String> = []
        return variants.filter { $0.breaks == ListedVariant.passes || seen.insert("\($0.exercise) \($0.breaks)").inserted }
    }()

    @Test("as on Apple platforms, the variant is still rejected, or its done verdict names the probes that did not run",
          arguments: asOnAppleVariants)
    func rejectedOrGapNamedAsOnApplePlatforms(variant: ListedVariant) async throws {
        let runner = try #require(ChildProcess.sibling(named: "variant-runner"))
        let catalog = try ExerciseCatalog.load(packageRoot: ListedVariant.packageRoot)
        var checker = ExerciseChecker(packageRoot: ListedVariant.packageRoot, catalog: catalog, runner: runner, terminal: .plain, language: .en)
        checker.asOnApplePlatforms = true
        let verdict = await onDedicatedThread { [checker] in withCheckSlot { checker.checkVariant(variant.name, exercise: variant.exercise) } }
        if variant.breaks == ListedVariant.passes {
            #expect(verdict.status == .done, "\(variant.name) is correct but was rejected as on Apple platforms:\n\(verdict.report)")
            return
        }
        #expect(verdict.status == .failing || !verdict.notRun.isEmpty,
                "\(variant.name) passed as on Apple platforms without naming a probe that did not run:\n\(verdict.report)")
    }

    @Test("every exercise has at least 8 variants")
    func enoughVariants() throws {
        let catalog = try ExerciseCatalog.load(packageRoot: ListedVariant.packageRoot)
        for entry in catalog.exercises {
            let count = Self.variants.filter { $0.exercise == entry.id && $0.breaks != ListedVariant.passes }.count
            #expect(count >= 8, "\(entry.id) has \(count) buggy variants; it needs at least 8")
        }
    }
}
