import Foundation
import Testing
import WorkbookCore

/// Runs `ch05-continuations --child NAME` as the scenarios do, and returns how it ended — waiting
/// on a thread of its own, not a cooperative one (`runChapterExecutable` says why).
private func runChild(_ name: String) async throws -> ChildProcess.Outcome {
    let executable = try #require(ChildProcess.sibling(named: "ch05-continuations"), "ch05-continuations not found beside the test bundle")
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    let process = ChildProcess(executable: executable, arguments: ["--child", name], environment: environment)
    return try await onDedicatedThread { Result { try process.run(timeoutSeconds: 60) } }.get()
}

@Suite("Chapter 5 on the command line (scenarios 1–4)", .workbookSelfTest)
struct Chapter05CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() async throws {
        let result = try await runChapterExecutable("ch05-continuations", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("コールバック API を包む"))
        #expect(result.standardOutput.contains("2 回の再開: トラップを子プロセスで"))
    }

    @Test("--run 1 prints the four lines in the order A, D, B, C, then the handler returns")
    func runOne() async throws {
        let result = try await runChapterExecutable("ch05-continuations", ["--run", "1"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let order = lines.compactMap { line -> Character? in
            guard let range = line.range(of: ": "), let letter = line[range.upperBound...].first,
                  "ABCDE".contains(letter), line[range.upperBound...].dropFirst().hasPrefix(":") else { return nil }
            return letter
        }
        #expect(String(order) == "ADBCE")
    }

    @Test("the REPL carries on after the traps of run 3 and the leaks of run 2: run 3, run 2, then run 1")
    func trapsThenCarryOn() async throws {
        let result = try await runChapterExecutable("ch05-continuations", [], input: "timeline off\nrun 3\nrun 2\nrun 1\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Fatal error: SWIFT TASK CONTINUATION MISUSE: latestPhoto(for:from:) tried to resume its continuation more than once, returning Photo(p1)!"))
        #expect(output.contains("SWIFT TASK CONTINUATION MISUSE: thumbnailData(for:from:) leaked its continuation without resuming it."))
        #expect(output.contains("C: continues with Photo(p1)"))
        // The children's messages are quoted, not leaked onto the REPL's own standard error.
        #expect(!result.standardError.contains("SWIFT TASK CONTINUATION MISUSE"))
    }

    @Test("--child double-callback dies of a trap, with the runtime's message on its standard error")
    func doubleCallbackChild() async throws {
        let outcome = try await runChild("double-callback")
        guard case .signalled = outcome.termination else {
            Issue.record("the child ended with \(outcome.termination)")
            return
        }
        #expect(outcome.standardOutput.contains("WORKBOOK-CALLER\tPhoto(p1, cached)"))
        #expect(outcome.standardError.contains("SWIFT TASK CONTINUATION MISUSE: latestPhoto(for:from:) tried to resume its continuation more than once"))
    }

    @Test("--child leaked-continuation exits 0 after the explorer reports the caller waiting, with the runtime's leak message on stderr")
    func leakedContinuationChild() async throws {
        let outcome = try await runChild("leaked-continuation")
        #expect(outcome.termination == .exited(0))
        #expect(outcome.standardOutput.contains("WORKBOOK-DEADLOCK\tcaller"))
        #expect(outcome.standardError.contains("SWIFT TASK CONTINUATION MISUSE: thumbnailData(for:from:) leaked its continuation without resuming it."))
    }

    @Test("play 1: auto resumes once with the photo; the schedule run 3 found, replayed, resumes twice")
    func playAndReplay() async throws {
        let played = try await runChapterExecutable("ch05-continuations", [], input: "timeline off\nplay 1\nauto\nrun 3\nquit\n")
        #expect(played.status == 0)
        let output = unwrapped(played.standardOutput)
        #expect(output.contains("Outcome: resumes=1 value=\"photo\" — acceptable"))
        let marker = "The same schedule in the game: replay 1 "
        let start = try #require(output.range(of: marker))
        let token = String(output[start.upperBound...].prefix { $0 != " " })
        let replayed = try await runChapterExecutable("ch05-continuations", [], input: "timeline off\nreplay 1 \(token)\nquit\n")
        #expect(replayed.status == 0)
        #expect(unwrapped(replayed.standardOutput).contains("Outcome: resumes=2 value=\"timed out\" — FORBIDDEN"))
    }
}
