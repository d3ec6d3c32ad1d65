import Foundation
import Testing
import WorkbookCore
@testable import ch01_gcd

@Suite("Chapter 1 on the command line", .workbookSelfTest)
struct Chapter01CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() throws {
        let result = try runChapterExecutable("ch01-gcd", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("GCD と QoS"))
        #expect(result.standardOutput.contains("シリアルキューとコンカレントキュー"))
    }

    @Test("piped commands run line by line, without a prompt, and end of input exits 0")
    func pipedSession() throws {
        let result = try runChapterExecutable("ch01-gcd", [], input: "list\nrun 1\nrun 2 iterations=500\nexplain 3\nquit\n")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("ch01>"))
        #expect(result.standardOutput.contains("11. DispatchSemaphore"))
        #expect(result.standardOutput.contains("Serial queue: async A, B, C"))
        #expect(result.standardOutput.contains("final=2"))
        #expect(result.standardOutput.contains("3. sync vs async"))
    }

    @Test("a game plays to the end from piped picks and prints a replay token")
    func pipedGame() throws {
        let result = try runChapterExecutable("ch01-gcd", [], input: "play 1\n1\n2\nauto\nquit\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Outcome: counter="))
        #expect(result.standardOutput.contains("replay 1 w1d:"))
    }

    @Test("end of input in the middle of a prediction or a game quits cleanly")
    func endOfInput() throws {
        #expect(try runChapterExecutable("ch01-gcd", [], input: "predict 1\n").status == 0)
        #expect(try runChapterExecutable("ch01-gcd", [], input: "play 1\n1\n").status == 0)
        #expect(try runChapterExecutable("ch01-gcd", ["--run", "2", "iterations=0"]).status == 2)
    }
}
