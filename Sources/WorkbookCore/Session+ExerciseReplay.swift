import Foundation

/// `replay Exercise CASE:TOKEN`: one explored case of an exercise's check, on the schedule a
/// failure report printed, with the learner's code as `exercise-runner` was last built.
extension Session {
    func replayExercise(_ name: String, _ argument: String) {
        if let unknown = unknownExercise(name) {
            writeWrapped(t(unknown))
            return
        }
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
            // A usage error, said by the runner: without its name, which means nothing here.
            let said = outcome.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            writeWrapped(said.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("\(runner.lastPathComponent): ") ? String(line.dropFirst(runner.lastPathComponent.count + 2)) : String(line)
            }.joined(separator: "\n"))
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

    /// Why `name` names no exercise, in this chapter program's terms (its exercises, and
    /// `swift run workbook` for all of them), read from `exercises/exercises.json` in the
    /// package the program runs in; nil for an exercise, or when there is no catalog to read.
    func unknownExercise(_ name: String) -> Localized? {
        let path = FileManager.default.currentDirectoryPath + "/exercises/exercises.json"
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = json["exercises"] as? [[String: Any]] else { return nil }
        let exercises = entries.compactMap { entry -> (id: String, chapter: String)? in
            guard let id = entry["id"] as? String, let chapter = entry["chapter"] as? String else { return nil }
            return (id, chapter)
        }
        guard !exercises.isEmpty, !exercises.contains(where: { $0.id == name }) else { return nil }
        let ours = exercises.filter { $0.chapter.hasPrefix(String(format: "%02d-", chapter.number)) }.map(\.id)
        let spelled = exercises.first { $0.id.lowercased() == name.lowercased() }.map(\.id)
        let closest = spelled.map { Localized(" Did you mean \($0)?", ja: "\($0) のことですか？") } ?? .verbatim("")
        let list = ours.isEmpty
            ? Localized("This chapter has no exercises; `swift run workbook` lists them all.",
                        ja: "この章には演習がありません。演習の一覧は `swift run workbook` で表示します。")
            : Localized("This chapter's exercises: \(ours.joined(separator: ", ")) (`swift run workbook` lists them all).",
                        ja: "この章の演習: \(ours.joined(separator: "、"))（全演習の一覧は `swift run workbook`）。")
        return Localized("There is no exercise named '\(name)'.\(closest.en) \(list.en)",
                         ja: "'\(name)' という名前の演習はありません。\(closest.ja)\(list.ja)")
    }

    private func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
