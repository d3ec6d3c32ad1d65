import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import WorkbookCore
@testable import ch01_gcd

@Suite("Chapter 1 on the command line", .workbookSelfTest)
struct Chapter01CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() async throws {
        let result = try await runChapterExecutable("ch01-gcd", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("GCD と QoS"))
        #expect(result.standardOutput.contains("シリアルキューとコンカレントキュー"))
    }

    @Test("piped commands run line by line, without a prompt, and end of input exits 0")
    func pipedSession() async throws {
        let result = try await runChapterExecutable("ch01-gcd", [], input: "list\nrun 1\nrun 2 iterations=500\nexplain 3\nquit\n")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("ch01>"))
        #expect(result.standardOutput.contains("11. DispatchSemaphore"))
        #expect(result.standardOutput.contains("Serial queue: async A, B, C"))
        #expect(result.standardOutput.contains("final=2"))
        #expect(result.standardOutput.contains("3. sync vs async"))
    }

    @Test("a game plays to the end from piped picks and prints a replay token")
    func pipedGame() async throws {
        let result = try await runChapterExecutable("ch01-gcd", [], input: "play 1\n1\n2\nauto\nquit\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Outcome: counter="))
        #expect(result.standardOutput.contains("replay 1 w1d:"))
    }

    @Test("end of input in the middle of a prediction or a game quits cleanly")
    func endOfInput() async throws {
        #expect(try await runChapterExecutable("ch01-gcd", [], input: "predict 1\n").status == 0)
        #expect(try await runChapterExecutable("ch01-gcd", [], input: "play 1\n1\n").status == 0)
        #expect(try await runChapterExecutable("ch01-gcd", ["--run", "2", "iterations=0"]).status == 2)
    }

    @Test("--run 1 --svg PATH runs scenario 1 and writes its timeline as a picture; --svg without --run or a path is bad usage")
    func svgFlag() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ch01-svg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try await runChapterExecutable("ch01-gcd", ["--run", "1", "--svg", "\(folder)/t.svg"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Serial queue: async A, B, C"))
        #expect(result.standardOutput.contains("Wrote the timeline of scenario 1 to \(folder)/t.svg (1600×"))
        let picture = try String(contentsOfFile: "\(folder)/t.svg", encoding: .utf8)
        #expect(XMLParser(data: Data(picture.utf8)).parse())
        #expect(picture.contains("<!-- swift-concurrency-workbook timeline -->"))
        #expect(picture.contains(">1. Serial vs concurrent queues</text>"))

        for arguments in [["--svg", "\(folder)/u.svg"], ["--run", "1", "--svg"], ["--lang", "ja", "--list", "--svg", "\(folder)/u.svg"]] {
            let usage = try await runChapterExecutable("ch01-gcd", arguments)
            #expect(usage.status == 2, "\(arguments)")
            #expect(usage.standardError.split(separator: "\n").first?.contains("--svg") == true, "\(usage.standardError)")
            #expect(usage.standardOutput.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/u.svg"))

        let missing = try await runChapterExecutable("ch01-gcd", ["--run", "1", "--svg", "\(folder)/missing/t.svg"])
        #expect(missing.status == 1)
        #expect(missing.standardOutput.contains("Serial queue: async A, B, C"))
        #expect(missing.standardError.contains("the folder \(folder)/missing does not exist"))
    }

    @Test("svg 1 PATH in the REPL writes the timeline of scenario 1's run, and refuses a file it did not write")
    func svgCommand() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ch01-svg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "not a picture\n".write(toFile: "\(folder)/notes.txt", atomically: true, encoding: .utf8)
        let transcript = await replTranscript(Chapter01.chapter, ["run 1", "svg 1 \(folder)/t.svg", "svg 1 \(folder)/notes.txt"], language: .en)
        #expect(transcript.components(separatedBy: "── 1. Serial vs concurrent queues").count == 2)  // run once
        #expect(transcript.contains("Wrote the timeline of scenario 1 (its last run) to \(folder)/t.svg"))
        #expect(transcript.contains("\(folder)/notes.txt already exists and is not a timeline this workbook wrote"))
        #expect(try String(contentsOfFile: "\(folder)/notes.txt", encoding: .utf8) == "not a picture\n")
        let picture = try String(contentsOfFile: "\(folder)/t.svg", encoding: .utf8)
        #expect(XMLParser(data: Data(picture.utf8)).parse())
        for label in ["serial queue", "concurrent queue"] { #expect(picture.contains(">\(label)</text>"), "\(label)") }
    }
}
