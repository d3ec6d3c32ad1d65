import Foundation
import Testing
import WorkbookChecks
import WorkbookCore

/// Runs one exercise's check on the learner's code in `exercise-runner` (a child process, so a
/// crash or deadlock in that code is reported instead of ending `swift test`), prints the
/// learner-facing verdict, and records an issue only when the answer is failing.
enum ExerciseRun {
    enum Verdict: Equatable {
        case done, failing, notStarted
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func verdict(_ exercise: String, sourceLocation: SourceLocation = #_sourceLocation) {
        Summary.registerOnce()
        let language = Language.fromEnvironment()
        let terminal = Terminal.detect(fileDescriptor: STDERR_FILENO)  // verdicts go to standard error
        func t(_ text: Localized) -> String { text.text(language) }
        let catalog: ExerciseCatalog
        do {
            catalog = try ExerciseCatalog.load(packageRoot: packageRoot)
        } catch {
            Issue.record("cannot read exercises/exercises.json: \(error)", sourceLocation: sourceLocation)
            return
        }
        guard let entry = catalog.entry(exercise) else {
            Issue.record("exercises/exercises.json has no exercise '\(exercise)'", sourceLocation: sourceLocation)
            return
        }
        // Layer 1: spellings that silence the compiler's checks, where the exercise forbids them.
        if let source = try? String(contentsOf: packageRoot.appendingPathComponent(entry.file), encoding: .utf8) {
            let found = forbiddenSpellings(entry.forbids, in: source)
            if !found.isEmpty {
                let list = found.map { "\(entry.file):\($0.line): \($0.spelling)" }.joined(separator: "\n  ")
                Console.error(terminal.paint(t(Localized(
                    "✗ \(exercise) — failing: uses what this exercise forbids\n  \(list)\n  These silence the compiler's data-race checks; the exercise asks you to make the code safe instead.",
                    ja: "✗ \(exercise) — 失敗: この演習で禁止されている書き方を使っています\n  \(list)\n  これらはコンパイラのデータ競合チェックを黙らせます。この演習ではコードを安全にすることが求められています。")), .red))
                Summary.record(.failing, exercise)
                Issue.record("\(exercise): forbidden spelling", sourceLocation: sourceLocation)
                return
            }
        }
        guard let runner = locateRunner() else {
            Issue.record("cannot find the \(RunnerProtocol.executableName) executable next to the test bundle; run `swift build` first", sourceLocation: sourceLocation)
            return
        }
        var arguments = [exercise, "--lang", language.rawValue, "--width", String(terminal.width)]
        if terminal.usesColor { arguments.append("--color") }
        if terminal.usesUnicode { arguments.append("--unicode") }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess(executable: runner, arguments: arguments, environment: crashReportEnvironment())
                .run(timeoutSeconds: RunnerProtocol.timeoutSeconds)
        } catch {
            Issue.record("could not start \(runner.path): \(error)", sourceLocation: sourceLocation)
            return
        }
        let report = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix(RunnerProtocol.verdictMarker) && !$0.hasPrefix(NotStartedMarker.text) }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let hint = entry.hints.first?.localized
        switch outcome.termination {
        case .exited(RunnerProtocol.doneExitCode):
            Console.error(report)
            Summary.record(.done, exercise)
        case .exited(NotStartedMarker.exitCode):
            let location = outcome.standardOutput.split(separator: "\n").first { $0.hasPrefix(NotStartedMarker.text) }
                .map { String($0.dropFirst(NotStartedMarker.text.count + 1)) } ?? entry.file
            Console.error(terminal.paint(t(Localized("◻ \(exercise) — not started (todo() at \(location))", ja: "◻ \(exercise) — 未着手（todo() が \(location) に残っています）")), .dim))
            Summary.record(.notStarted, exercise)
        case .exited(RunnerProtocol.failingExitCode):
            Console.error(report + "\n" + hintLine(hint, terminal: terminal, language: language))
            Summary.record(.failing, exercise)
            Issue.record(Comment(rawValue: "\(exercise) is failing — the report is printed above"), sourceLocation: sourceLocation)
        case .exited where outcome.standardError.contains("WARNING: ThreadSanitizer"):
            fail(exercise, Localized(
                "ThreadSanitizer found a data race: two threads touched the same memory, at least one writing, with nothing ordering them.",
                ja: "ThreadSanitizer がデータ競合を検出しました。2 つのスレッドが順序付けなしに同じメモリに触れ、少なくとも一方が書き込んでいます。"),
                 outcome, hint, terminal, language, sourceLocation, showOutput: false)
        case let .exited(code):
            fail(exercise, Localized("the check ended with exit code \(code).", ja: "チェックが終了コード \(code) で終わりました。"), outcome, hint, terminal, language, sourceLocation)
        case let .signalled(signal):
            fail(exercise, Localized("your code crashed: \(describeSignal(signal).en).", ja: "コードがクラッシュしました: \(describeSignal(signal).ja)。"), outcome, hint, terminal, language, sourceLocation)
        case let .timedOut(seconds):
            fail(exercise, Localized(
                "the check did not finish within \(Int(seconds)) s and was stopped: something blocks forever (a deadlock) or loops.",
                ja: "チェックが \(Int(seconds)) 秒以内に終わらず、停止しました。何かが永久に待っている（デッドロック）か、ループしています。"), outcome, hint, terminal, language, sourceLocation)
        }
    }

    private static func fail(_ exercise: String, _ reason: Localized, _ outcome: ChildProcess.Outcome, _ hint: Localized?, _ terminal: Terminal, _ language: Language, _ sourceLocation: SourceLocation, showOutput: Bool = true) {
        var lines = [terminal.paint(Localized("✗ \(exercise) — failing: ", ja: "✗ \(exercise) — 失敗: ").text(language) + reason.text(language), .red)]
        let messages = runtimeMessages(outcome.standardError)
        if !messages.isEmpty {
            lines.append(Localized("  The runtime said:", ja: "  ランタイムの出力:").text(language))
            lines += messages.map { "    " + $0 }
        }
        let output = outcome.standardOutput.split(separator: "\n").filter { !$0.hasPrefix(RunnerProtocol.verdictMarker) }
        if showOutput && !output.isEmpty { lines += output.suffix(20).map { "  " + $0 } }
        lines.append(hintLine(hint, terminal: terminal, language: language))
        Console.error(lines.joined(separator: "\n"))
        Summary.record(.failing, exercise)
        Issue.record(Comment(rawValue: "\(exercise) is failing — \(reason.en)"), sourceLocation: sourceLocation)
    }

    private static func hintLine(_ hint: Localized?, terminal: Terminal, language: Language) -> String {
        guard let hint else { return "" }
        return terminal.paint(Localized("  Hint: ", ja: "  ヒント: ").text(language) + hint.text(language), .yellow)
            + "\n" + terminal.paint(Localized("  More hints: exercises/exercises.json", ja: "  ほかのヒント: exercises/exercises.json").text(language), .dim)
    }

    /// The lines of a crash report worth showing: the runtime's message and the crashed thread's
    /// frames in the learner's code.
    static func runtimeMessages(_ standardError: String) -> [String] {
        let lines = standardError.split(separator: "\n").map(String.init)
        var shown: [String] = []
        var inCrashedThread = false
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { inCrashedThread = false; continue }
            if trimmed.hasPrefix("*** Program crashed") || trimmed.contains("Fatal error") || trimmed.contains("fatal error")
                || trimmed.contains("SWIFT TASK CONTINUATION MISUSE") || trimmed.contains("BUG IN CLIENT")
                || trimmed.hasPrefix("WARNING: ThreadSanitizer") || trimmed.hasPrefix("SUMMARY:") {
                shown.append(trimmed)
            } else if trimmed.hasPrefix("Thread") && trimmed.hasSuffix("crashed:") {
                inCrashedThread = true
                shown.append(trimmed)
            } else if inCrashedThread && shown.count < 16 {
                shown.append(trimmed)
            }
        }
        if shown.isEmpty { shown = lines.suffix(8) }
        var seen = Set<String>()
        shown = shown.filter { seen.insert($0).inserted && !$0.hasPrefix("Backtrace took") }
        if standardError.contains("__DISPATCH_WAIT_FOR_QUEUE__") {
            shown.insert("libdispatch: `sync` onto a serial queue this thread is already running would wait for itself forever; libdispatch stops the program instead.", at: 0)
        }
        return shown
    }

    /// A short backtrace of the crashed thread only, without the full dump.
    static func crashReportEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,threads=crashed,registers=none,images=none,limit=24"
        return environment
    }

    /// `exercise-runner` is built next to the test bundle (Linux: next to the test executable;
    /// macOS: next to the `.xctest` bundle). `WORKBOOK_RUNNER` overrides.
    static func locateRunner() -> URL? {
        var directories: [URL] = []
        if let path = ProcessInfo.processInfo.environment["WORKBOOK_RUNNER"] {
            return URL(fileURLWithPath: path)
        }
        directories.append(ChildProcess.currentExecutable.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for argument in CommandLine.arguments where argument.hasSuffix(".xctest") {
            directories.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
        }
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        return directories.map { $0.appendingPathComponent(RunnerProtocol.executableName) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// The not-started protocol, mirrored from ExerciseKit so this target does not link the stubs.
enum NotStartedMarker {
    static let text = "WORKBOOK-NOT-STARTED"
    static let exitCode: Int32 = 3
}
