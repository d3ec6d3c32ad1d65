import Foundation
import WorkbookCore

/// Marks a part of an exercise the learner has not written yet.
///
/// Exercise checks run the learner's code in a child process (`exercise-runner`); reaching a
/// `todo()` there ends that process with `NotStarted.exitCode`, and the exercise is reported
/// "not started" — never a pass, never a failure. A fresh clone's `swift test` is green this way,
/// without any guess based on timing.
public func todo(_ note: String = "", filePath: StaticString = #filePath, line: UInt = #line) -> Never {
    // Several threads may reach a `todo()` at once; the first one reports and exits, the others
    // wait here until the process is gone.
    NotStarted.once.lock()
    let location = NotStarted.displayPath("\(filePath)") + ":\(line)"
    FileHandle.standardOutput.write(Data("\(NotStarted.marker) \(location)\n".utf8))
    // A person running the runner by hand (`swift run exercise-runner … --replay …`) reads it too.
    if isatty(STDERR_FILENO) != 0 {
        let text = Localized("not started: todo() at \(location) — write your answer there first.",
                             ja: "未着手です: \(location) に todo() があります。先にそこに解答を書きましょう。")
        FileHandle.standardError.write(Data((text.text(Language.fromEnvironment()) + "\n").utf8))
    }
    exit(NotStarted.exitCode)
}

/// The not-started marker for a stub whose body is already code to fix (so nothing after it
/// may be unreachable): `todo(fix: "take the locks in one order")`. Delete the line when done.
public func todo(fix note: String, filePath: StaticString = #filePath, line: UInt = #line) {
    todo(note, filePath: filePath, line: line)
}

public enum NotStarted {
    /// The exit code of a child process that reached `todo()`.
    public static let exitCode: Int32 = 3
    /// Starts the line that says where the `todo()` is.
    public static let marker = "WORKBOOK-NOT-STARTED"
    static let once = NSLock()

    /// `…/exercises/Exercises/01-gcd/SafeCounter.swift` → `exercises/Exercises/01-gcd/SafeCounter.swift`.
    public static func displayPath(_ path: String) -> String {
        guard let range = path.range(of: "exercises/") else { return path }
        return String(path[range.lowerBound...])
    }
}
