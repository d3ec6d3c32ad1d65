import Foundation
import Testing
import WorkbookCore
@testable import ch01_gcd

/// Runs the built `ch01-gcd` (found beside the test bundle) with `arguments`, feeding `input` on
/// standard input, in English unless the arguments say otherwise.
private func runChapterExecutable(_ arguments: [String], input: String = "") throws -> (status: Int32, standardOutput: String, standardError: String) {
    let executable = try #require(ChildProcess.sibling(named: "ch01-gcd"), "ch01-gcd not found beside the test bundle")
    var environment = ProcessInfo.processInfo.environment
    for key in ["LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR"] { environment[key] = nil }
    environment["LANG"] = "C.UTF-8"
    let outcome = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
        .run(timeoutSeconds: 60, input: input)
    guard case let .exited(status) = outcome.termination else {
        Issue.record("ch01-gcd \(arguments.joined(separator: " ")) ended with \(outcome.termination)")
        return (-1, outcome.standardOutput, outcome.standardError)
    }
    return (status, outcome.standardOutput, outcome.standardError)
}

@Suite("Chapter 1 on the command line")
struct Chapter01CommandLineTests {
    @Test("an unknown flag exits 2 with a message on standard error")
    func unknownFlag() throws {
        let result = try runChapterExecutable(["--bogus"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--bogus"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() throws {
        let result = try runChapterExecutable(["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("GCD と QoS"))
        #expect(result.standardOutput.contains("シリアルキューとコンカレントキュー"))
    }

    @Test("piped commands run line by line, without a prompt, and end of input exits 0")
    func pipedSession() throws {
        let result = try runChapterExecutable([], input: "list\nrun 1\nrun 2 iterations=500\nexplain 3\nquit\n")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("ch01>"))
        #expect(result.standardOutput.contains("11. DispatchSemaphore"))
        #expect(result.standardOutput.contains("Serial queue: async A, B, C"))
        #expect(result.standardOutput.contains("final=2"))
        #expect(result.standardOutput.contains("3. sync vs async"))
    }

    @Test("a game plays to the end from piped picks and prints a replay token")
    func pipedGame() throws {
        let result = try runChapterExecutable([], input: "play 1\n1\n2\nauto\nquit\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Outcome: counter="))
        #expect(result.standardOutput.contains("replay 1 w1:"))
    }

    @Test("end of input in the middle of a prediction or a game quits cleanly")
    func endOfInput() throws {
        #expect(try runChapterExecutable([], input: "predict 1\n").status == 0)
        #expect(try runChapterExecutable([], input: "play 1\n1\n").status == 0)
        #expect(try runChapterExecutable(["--run", "99"]).status == 2)
        #expect(try runChapterExecutable(["--run", "2", "iterations=0"]).status == 2)
    }
}
