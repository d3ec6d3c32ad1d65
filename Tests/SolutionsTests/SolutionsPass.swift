import Foundation
import Testing
import WorkbookChecks
import WorkbookCore

/// The reference solutions pass their checks through the learner's own path — `exercise-runner`
/// in a child process, under ThreadSanitizer, read by the verdict library — every time. This
/// proves the path with correct answers: a check or a probe that raced, hung or crashed on
/// correct code would fail here.
@Suite("Reference solutions pass", .workbookSelfTest)
struct ReferenceSolutionsPass {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let catalog = try! ExerciseCatalog.load(packageRoot: packageRoot)

    @Test("each reference is done, with no data race", arguments: catalog.exercises.map(\.id))
    func referencePasses(exercise: String) async throws {
        let runner = try #require(ChildProcess.sibling(named: RunnerProtocol.executableName))
        var checker = ExerciseChecker(packageRoot: Self.packageRoot, catalog: Self.catalog, runner: runner, terminal: .plain, language: .en)
        checker.reference = true
        let verdict = await onDedicatedThread { [checker] in withCheckSlot { checker.check(exercise) } }
        #expect(verdict.status == .done, "\(exercise): \(verdict.status) \(verdict.failedProperty ?? "")\n\(verdict.report)")
        #if os(Linux)
        #expect(verdict.notRun.isEmpty, "\(exercise): on Linux every probe runs, but \(verdict.notRun) did not")
        #endif
    }

    @Test("each reference is done as on Apple platforms, naming exactly the probes that need Linux", arguments: catalog.exercises.map(\.id))
    func referencePassesAsOnApplePlatforms(exercise: String) async throws {
        let runner = try #require(ChildProcess.sibling(named: RunnerProtocol.executableName))
        var checker = ExerciseChecker(packageRoot: Self.packageRoot, catalog: Self.catalog, runner: runner, terminal: .plain, language: .en)
        checker.reference = true
        checker.asOnApplePlatforms = true
        let verdict = await onDedicatedThread { [checker] in withCheckSlot { checker.check(exercise) } }
        #expect(verdict.status == .done, "\(exercise): \(verdict.status) \(verdict.failedProperty ?? "")\n\(verdict.report)")
        #expect(verdict.notRun == PlatformProbes.of(exercise).map(\.id))
        if !verdict.notRun.isEmpty {
            #expect(verdict.report.contains("could not run"), "the done verdict names what did not run:\n\(verdict.report)")
        }
    }
}
