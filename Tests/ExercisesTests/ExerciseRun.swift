import Foundation
import Testing
import WorkbookChecks
import WorkbookCore

/// Checks one exercise with the verdict library (`ExerciseChecker`: the learner's code in
/// `exercise-runner`, a child process, under ThreadSanitizer), prints the verdict, and records
/// an issue only when the answer is failing.
enum ExerciseRun {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func verdict(_ exercise: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        Summary.registerOnce()
        // SwiftPM relays this output through a pipe in 4 KB reads and drops one that splits a
        // character: pace the writes so every report arrives whole.
        Console.pacesPipes = true
        let catalog: ExerciseCatalog
        do {
            catalog = try ExerciseCatalog.load(packageRoot: packageRoot)
        } catch {
            Issue.record("cannot read exercises/exercises.json: \(error)", sourceLocation: sourceLocation)
            return
        }
        let runner: URL
        switch locateRunner() {
        case .success(let found): runner = found
        case .failure(let notFound):
            let message = notFound.message(then: Localized("Run `swift build` first.", ja: "先に `swift build` を実行してください。"))
            Issue.record(Comment(rawValue: message.text(Language.fromEnvironment())), sourceLocation: sourceLocation)
            return
        }
        let checker = ExerciseChecker(packageRoot: packageRoot, catalog: catalog, runner: runner,
                                      terminal: Terminal.detect(fileDescriptor: STDERR_FILENO),  // verdicts go to standard error
                                      language: Language.fromEnvironment())
        // A dedicated thread, not a cooperative one: the child run blocks for seconds.
        let verdict = await onDedicatedThread { withCheckSlot { checker.check(exercise) } }
        Console.error(verdict.report)
        Summary.record(verdict, catalog: catalog)
        if verdict.status == .failing {
            let property = verdict.failedProperty ?? "?"
            let line = Localized("\(exercise) is failing (\(property)) — the report is printed above",
                                 ja: "\(exercise) は失敗（\(property)）— レポートは上に表示しています")
            Issue.record(Comment(rawValue: line.text(Language.fromEnvironment())), sourceLocation: sourceLocation)
        }
    }

    /// `exercise-runner` is built into the same folder as the test bundle (Linux: next to the
    /// test executable; macOS: next to the `.xctest` bundle). `WORKBOOK_RUNNER` overrides; a
    /// path there that is not an executable is reported as the one place tried.
    static func locateRunner() -> Result<URL, ChildProcess.NotFound> {
        if let path = ProcessInfo.processInfo.environment["WORKBOOK_RUNNER"] {
            let runner = URL(fileURLWithPath: path)
            return FileManager.default.isExecutableFile(atPath: runner.path)
                ? .success(runner) : .failure(ChildProcess.NotFound(name: "\(RunnerProtocol.executableName) (WORKBOOK_RUNNER)", tried: [runner]))
        }
        return ChildProcess.locate(named: RunnerProtocol.executableName)
    }
}
