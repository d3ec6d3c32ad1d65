import Foundation
import Testing
import WorkbookChecks
import WorkbookCore

@Suite("The exercise catalog")
struct CatalogTests {
    let catalog = try! ExerciseCatalog.load(packageRoot: ExerciseRun.packageRoot)

    @Test("lists every exercise the runner can check, and no other")
    func matchesRunner() throws {
        let runner = try ExerciseRun.locateRunner().get()
        let outcome = try ChildProcess(executable: runner, arguments: ["--list"]).run(timeoutSeconds: 10)
        let ids = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(Set(ids) == Set(catalog.exercises.map(\.id)))
    }

    @Test("gives each exercise a stub with TODO and todo(), a solution at the same path, a title and hints in both languages")
    func entriesAreComplete() throws {
        #expect(Set(catalog.exercises.map(\.id)).count == catalog.exercises.count)
        for entry in catalog.exercises {
            let stub = try String(contentsOf: ExerciseRun.packageRoot.appendingPathComponent(entry.file), encoding: .utf8)
            let solution = try String(contentsOf: ExerciseRun.packageRoot.appendingPathComponent(entry.solutionFile), encoding: .utf8)
            #expect(entry.file.hasPrefix("exercises/Exercises/\(entry.chapter)/\(entry.id)"))
            #expect(!solution.contains("todo("), "\(entry.solutionFile) still calls todo()")
            #expect(!entry.title.en.isEmpty && !entry.title.ja.isEmpty)
            #expect(entry.hints.count >= 2, "\(entry.id) needs layered hints")
            #expect(entry.hints.allSatisfy { !$0.en.isEmpty && !$0.ja.isEmpty })
            // The shipped stub must be untouched for a fresh clone; skip once the learner has started.
            if stub.contains("todo(") { #expect(stub.contains("// TODO:"), "\(entry.file) has no // TODO: marker") }
            #expect(forbiddenSpellings(entry.forbids, in: solution).isEmpty, "\(entry.solutionFile) uses what it forbids")
        }
    }

    @Test("finds forbidden spellings in code but not in comments or strings")
    func forbiddenScan() {
        let source = """
        // nonisolated(unsafe) in a comment is fine
        let s = "nonisolated(unsafe)"  /* and here */
        nonisolated(unsafe) var bad = 0
        """
        let found = forbiddenSpellings(["nonisolated(unsafe)"], in: source)
        #expect(found.map(\.line) == [3])
    }

    @Test("an unchecked continuation is refused for what it is, not as a race-check silencer")
    func forbiddenReasons() {
        let continuation = forbiddenReason(["withUnsafeThrowingContinuation"])
        #expect(continuation.en.contains("withCheckedThrowingContinuation"))
        #expect(!continuation.en.contains("@unchecked Sendable"))
        let silencer = forbiddenReason(["nonisolated(unsafe)"])
        #expect(silencer.en.contains("data-race checks") && !silencer.en.contains("continuation"))
    }
}
