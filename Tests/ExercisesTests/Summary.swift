import Foundation
import WorkbookCore

/// Counts verdicts and prints `Exercises: 1 done, 1 failing, 1 not started` when the test
/// process exits, after the test library's own summary.
enum Summary {
    private static let verdicts = Locked<[String: ExerciseRun.Verdict]>([:])
    private static let registered = Locked(false)

    static func record(_ verdict: ExerciseRun.Verdict, _ exercise: String) {
        verdicts.withLock { $0[exercise] = verdict }
    }

    static func registerOnce() {
        let first = registered.withLock { done in
            defer { done = true }
            return !done
        }
        if first { atexit { Summary.printLine() } }
    }

    static func line(language: Language) -> String {
        let all = verdicts.current.values
        let done = all.filter { $0 == .done }.count
        let failing = all.filter { $0 == .failing }.count
        let notStarted = all.filter { $0 == .notStarted }.count
        return Localized(
            "Exercises: \(done) done, \(failing) failing, \(notStarted) not started",
            ja: "演習: 完了 \(done)、失敗 \(failing)、未着手 \(notStarted)").text(language)
    }

    private static func printLine() {
        Console.error(line(language: Language.fromEnvironment()))
    }
}
