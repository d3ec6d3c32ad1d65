import Foundation
import WorkbookChecks
import WorkbookCore

/// Builds the learner's code into the runners and checks exercises with the verdict library —
/// the same `ExerciseChecker` that `swift test` uses — keeping each verdict in the state file.
struct Checking {
    let workspace: Workspace
    let terminal: Terminal
    let language: Language

    struct BuildFailed: Error {
        /// The compiler's messages, as it printed them.
        let diagnostics: String
    }

    /// `swift build`: the runners are rebuilt with the learner's files (only what changed).
    private func build() throws(BuildFailed) {
        let outcome: ChildProcess.Outcome
        do {
            var build = ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                     arguments: ["swift", "build", "--package-path", workspace.root.path] + Self.buildFolderArguments())
            // Exactly the learner's environment: SwiftPM keeps one compiled manifest per package
            // and compiles it again (about a second) whenever the environment differs from the
            // last build's, so an added variable would cost that twice per check.
            build.environment = ProcessInfo.processInfo.environment
            outcome = try build.run(timeoutSeconds: 1_800)
        } catch {
            throw BuildFailed(diagnostics: "swift build: \(error)")
        }
        guard outcome.termination != .exited(0) else { return }
        let log = (outcome.standardOutput + "\n" + outcome.standardError).replacingOccurrences(of: workspace.root.path + "/", with: "")
        throw BuildFailed(diagnostics: Self.diagnostics(in: log))
    }

    /// The runners are found beside this program, so they are built where it was: its scratch
    /// path and configuration (`swift run --scratch-path .build-x -c release workbook` builds the
    /// runners there too, not in `.build/debug`). SwiftPM puts a product at
    /// `<scratch>/<triple>/<configuration>/<name>`.
    static func buildFolderArguments(executable: URL = ChildProcess.currentExecutable) -> [String] {
        let configurationFolder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        let scratch = configurationFolder.deletingLastPathComponent().deletingLastPathComponent()
        let configuration = configurationFolder.lastPathComponent
        guard ["debug", "release"].contains(configuration),
              FileManager.default.fileExists(atPath: scratch.appendingPathComponent("workspace-state.json").path) else { return [] }
        return ["--scratch-path", scratch.path, "-c", configuration]
    }

    /// The compiler's messages in a build log, each once (the driver reports an error both when
    /// it emits the module and when it compiles), at most ten, without SwiftPM's progress lines.
    static func diagnostics(in log: String) -> String {
        var blocks: [[String]] = [], seen = Set<String>()
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let startsDiagnostic = !line.hasPrefix(" ") && (line.contains(": error:") || line.contains(": warning:"))
            if startsDiagnostic || line.hasPrefix("error:") {
                blocks.append([line])
            } else if !blocks.isEmpty && !line.hasPrefix("[") && !line.hasPrefix("Building for") && !line.hasPrefix("Build complete") {
                blocks[blocks.count - 1].append(line)
            }
        }
        // A block ends at its last line with text (the compiler's excerpt ends in blank lines,
        // as many as happen to follow it in the log).
        let trimmed = blocks.map { block in Array(block.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed()) }
        let unique = trimmed.filter { block in
            guard !block[0].hasPrefix("error: emit-module command failed") else { return false }
            return seen.insert(block.joined(separator: "\n")).inserted
        }
        guard !unique.isEmpty else { return log.split(separator: "\n").suffix(30).joined(separator: "\n") }
        var text = unique.prefix(10).map { $0.joined(separator: "\n").trimmingCharacters(in: .newlines) }.joined(separator: "\n")
        if unique.count > 10 { text += "\n… \(unique.count - 10) more" }
        return text
    }

    func checker() throws(UsageError) -> ExerciseChecker {
        let runner: URL
        switch ChildProcess.locate(named: RunnerProtocol.executableName) {
        case .success(let found): runner = found
        case .failure(let notFound):
            throw UsageError(message: notFound.message(then: Localized("run `swift build` first", ja: "先に `swift build` を実行してください")))
        }
        return ExerciseChecker(packageRoot: workspace.root, catalog: workspace.catalog, runner: runner, terminal: terminal, language: language)
    }

    /// What was built: each exercise file's fingerprint, taken before the build, so a verdict
    /// is cached for the code that was compiled — a save during the check makes the file differ
    /// from it, and the exercise is checked again next time.
    struct Built {
        let fingerprints: [String: String]
    }

    /// Fingerprints the exercise files, then builds (`build()`).
    func buildRecordingFiles() throws(BuildFailed) -> Built {
        let fingerprints = Dictionary(workspace.catalog.exercises.compactMap { entry in workspace.fingerprint(of: entry.file).map { (entry.id, $0) } },
                                      uniquingKeysWith: { first, _ in first })
        try build()
        return Built(fingerprints: fingerprints)
    }

    /// Checks `entries` (two at a time on two cores, as `swift test` does), records each verdict
    /// in `state`, and returns them in the order given.
    func check(_ entries: [ExerciseCatalog.Entry], built: Built, state: inout WorkbookState, checks: String) throws(UsageError) -> [Verdict] {
        let checker = try checker()
        let verdicts = Locked<[String: Verdict]>([:])
        DispatchQueue.concurrentPerform(iterations: entries.count) { index in
            let verdict = withCheckSlot { checker.check(entries[index].id) }
            verdicts.withLock { $0[entries[index].id] = verdict }
        }
        let found = verdicts.current
        state.checks = checks
        return entries.compactMap { entry in
            guard let verdict = found[entry.id] else { return nil }
            if let file = built.fingerprints[entry.id] {
                state.verdicts[entry.id] = .init(file: file, status: verdict.status, property: verdict.failedProperty, checkedAt: Date(),
                                                 notRun: verdict.notRun.isEmpty ? nil : verdict.notRun)
            }
            return verdict
        }
    }
}
