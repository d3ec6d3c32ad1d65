import Foundation

/// `replay Exercise CASE:TOKEN`: one explored case of an exercise's check, on the schedule a
/// failure report printed, with the learner's code as `exercise-runner` was last built.
extension Session {
    func replayExercise(_ name: String, _ argument: String) {
        let command = "swift run exercise-runner \(name) --replay \(argument)"
        let runner: URL
        switch ChildProcess.locate(named: "exercise-runner") {
        case .success(let found): runner = found
        case .failure(let notFound):
            write(t(notFound.message(then: Localized(
                "The exercise runner is not built yet. Run `\(command)` — it builds your code first.",
                ja: "演習ランナーがまだビルドされていません。`\(command)` を実行してください（先にあなたのコードをビルドします）。"))))
            return
        }
        // The runner holds the code as last built: an answer edited since would not be the one
        // replayed.
        let file = FileManager.default.currentDirectoryPath + "/exercises/Exercises"
        let edited = (try? FileManager.default.contentsOfDirectory(atPath: file))?.lazy
            .map { "\(file)/\($0)/\(name).swift" }
            .first { FileManager.default.fileExists(atPath: $0) }
        if let edited, let changed = modified(edited), let built = modified(runner.path), changed > built {
            write(t(Localized(
                "\(name).swift changed after the exercise runner was built, so it would replay your old code. Run `\(command)` — it builds your code first.",
                ja: "\(name).swift は演習ランナーのビルド後に変更されているため、古いコードを再現してしまいます。`\(command)` を実行してください（先にあなたのコードをビルドします）。")))
            return
        }
        var arguments = [name, "--replay", argument, "--lang", language.rawValue, "--width", String(terminal.width)]
        if terminal.usesColor { arguments.append("--color") }
        if terminal.usesUnicode { arguments.append("--unicode") }
        var environment = ProcessInfo.processInfo.environment
        environment["TSAN_OPTIONS"] = "halt_on_error=1:report_thread_leaks=0:atexit_sleep_ms=0"
        guard let outcome = try? ChildProcess(executable: runner, arguments: arguments, environment: environment).run(timeoutSeconds: 60) else {
            write(t(Localized("Could not start \(runner.path).", ja: "\(runner.path) を起動できませんでした。")))
            return
        }
        let shown = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("WORKBOOK-") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if !shown.isEmpty { write(shown) }
        switch outcome.termination {
        case .exited(0), .exited(1): break
        case .exited(3):  // `NotStarted.exitCode`: the answer reached `todo()`
            write(t(Localized("\(name) is not started: your file still has `todo()`. Write your answer first.",
                              ja: "\(name) は未着手です。ファイルに `todo()` が残っています。先に解答を書きましょう。")))
        case .exited(2):
            write(outcome.standardError.trimmingCharacters(in: .whitespacesAndNewlines))
        default:
            // A crash on that schedule: the runtime's own words, as the check's report gives them.
            let said = outcome.standardError.split(separator: "\n").map(String.init)
                .filter { line in swiftRuntimeMessageMarkers.contains { line.contains($0) } }
            var how = Localized.verbatim("\(outcome.termination)")
            if case let .signalled(signal) = outcome.termination { how = describeSignal(signal) }
            write(t(Localized("The replay crashed on that schedule (\(how.en)), as the check did:",
                              ja: "リプレイはそのスケジュールで、チェックのときと同じようにクラッシュしました（\(how.ja)）:")))
            for line in said.prefix(4) { write("  " + line) }
        }
    }

    private func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
