import Foundation
import Testing
import WorkbookCore
@testable import ch01_gcd

/// What a run of the `ch01-gcd` executable produced.
private struct CommandLineRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs the built `ch01-gcd` (found beside the test bundle) with `arguments`, feeding `input` on
/// standard input, in English unless the arguments say otherwise.
private func runChapterExecutable(_ arguments: [String], input: String = "") throws -> CommandLineRun {
    let executable = try #require(ChapterExecutable.locate(), "ch01-gcd not found beside the test bundle")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    for key in ["LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR"] { environment[key] = nil }
    environment["LANG"] = "C.UTF-8"
    process.environment = environment
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr

    let output = Locked(Data()), errors = Locked(Data())
    let readers = DispatchGroup()
    for (pipe, sink) in [(stdout, output), (stderr, errors)] {
        readers.enter()
        Thread.detachNewThread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            sink.withLock { $0 = data }
            readers.leave()
        }
    }
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    if exited.wait(timeout: .now() + 60) == .timedOut {
        process.terminate()
        Issue.record("ch01-gcd \(arguments.joined(separator: " ")) did not exit within 60 s")
        exited.wait()
    }
    _ = readers.wait(timeout: .now() + 5)
    return CommandLineRun(status: process.terminationStatus,
                          standardOutput: String(decoding: output.current, as: UTF8.self),
                          standardError: String(decoding: errors.current, as: UTF8.self))
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
}
