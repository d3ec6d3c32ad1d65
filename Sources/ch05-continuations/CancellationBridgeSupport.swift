import Foundation
import WorkbookCore

// What scenarios 5–8 share: the child processes that show a misused continuation, and how
// their end is reported. (Their one-time signal is WorkbookCore's `OneShotSignal`.)

/// How a child process that misuses a continuation ended, read from its exit and its stderr.
struct ChildEnding: Sendable, Equatable {
    /// `SIGILL`, `SIGABRT`, `exit 0`, `exit 3` (survived), `timed out`.
    let how: String
    /// The runtime's own lines from stderr: `SWIFT TASK CONTINUATION MISUSE: …`, `Fatal error: …`,
    /// or anything else it printed (at most three lines, backtrace lines left out).
    let messages: [String]
    /// What the child printed on stdout, line by line (its own progress lines).
    let printed: [String]

    init(_ outcome: ChildProcess.Outcome) {
        switch outcome.termination {
        case let .signalled(signal): how = signalName(signal)
        case let .exited(status): how = "exit \(status)"
        case .timedOut: how = "timed out"
        }
        let lines = outcome.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let runtime = lines.filter { line in swiftRuntimeMessageMarkers.contains { line.contains($0) } }
        let other = lines.filter { line in
            !line.isEmpty && !runtime.contains(line) && !line.hasPrefix("Current stack trace") && !line.hasPrefix("***")
                && line.range(of: "^[0-9]+ ", options: .regularExpression) == nil && !line.contains("Illegal instruction")
                && !line.contains("Aborted")
        }
        messages = Array((runtime.isEmpty ? other : runtime).prefix(3))
        printed = outcome.standardOutput.split(separator: "\n").map(String.init)
    }

    /// `how` in words: `exit status 0` / `終了コード 0`; a signal's name as it is.
    var shown: Localized {
        if how.hasPrefix("exit ") { return Localized("exit status \(how.dropFirst(5))", ja: "終了コード \(how.dropFirst(5))") }
        if how == "timed out" { return Localized("timed out", ja: "時間切れ") }
        return .verbatim(how)
    }
}

extension ScenarioContext {
    /// Runs a child of chapter 5 and returns how it ended; nil (and says why) if it cannot start.
    /// `environment` is added to this process's (e.g. a runtime debug switch).
    func runContinuationChild(_ name: String, environment: [String: String] = [:]) -> ChildEnding? {
        runChapterChild(name, environment: environment).map(ChildEnding.init)
    }

    /// Says how a child ended, in words, and quotes the runtime's lines word for word.
    func report(_ ending: ChildEnding, survived: Localized) {
        switch ending.how {
        case "exit 3":
            say(survived)
        case let how where how.hasPrefix("SIG"):
            say(Localized("  The child was stopped by \(how) (\(signalMeaning(how).en)).",
                          ja: "  子プロセスは \(how) で止まりました（\(signalMeaning(how).ja)）。"))
        default:
            say(Localized("  The child ended: \(ending.shown.en).", ja: "  子プロセスの終わり方: \(ending.shown.ja)。"))
        }
        if ending.messages.isEmpty {
            say(Localized("  It wrote nothing to standard error.", ja: "  標準エラー出力には何も書きませんでした。"))
        }
        for message in ending.messages { quote(message) }
    }

    private func signalMeaning(_ name: String) -> Localized {
        switch name {
        case "SIGILL": Localized("a trap: the runtime stopped the program on purpose", ja: "トラップ。ランタイムが意図的にプログラムを止めた")
        case "SIGABRT": Localized("abort(): the program stopped itself after finding its memory in a bad state",
                                  ja: "abort()。メモリの異常に気づいたプログラムが自分で止まった")
        default: Localized("see the message below", ja: "下のメッセージを参照")
        }
    }
}

extension Chapter05 {
    /// The child processes of scenarios 6 and 7 (`ch05-continuations --child NAME`): each misuses
    /// a continuation on purpose, where a trap ends only the child.
    static let bridgeChildren: [String: @Sendable () -> Never] = [
        cancelResumesTwiceChildName: cancelResumesTwiceChild,
        checkedLeakChildName: { leakChild(checked: true) },
        unsafeLeakChildName: { leakChild(checked: false) },
        checkedResumeTwiceChildName: { resumeTwiceChild(checked: true) },
        unsafeResumeTwiceChildName: { resumeTwiceChild(checked: false) },
    ]
}

/// Runs `body` as a task and blocks the calling thread (a child's main thread) until it ends.
func runInChild(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    if done.wait(timeout: .now() + 10) == .timedOut { Console.line("timed out") }
}

/// A task executor that runs each job on a queue of its own and signals when the job has run to
/// its end — for a task, the moment it suspends (or ends). A child process uses it to act only
/// once a task is parked on a continuation.
final class JobEndSignallingExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "workbook.child-executor")
    private let jobEnded = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.jobEnded.signal()
        }
    }

    /// Blocks until a job has ended; false after `seconds`.
    func waitForJobEnd(seconds: Double = 10) -> Bool {
        jobEnded.wait(timeout: .now() + seconds) == .success
    }
}
