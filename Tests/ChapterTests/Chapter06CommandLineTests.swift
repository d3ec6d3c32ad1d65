import Foundation
import Testing
import WorkbookCore

@Suite("Chapter 6 on the command line", .workbookSelfTest)
struct Chapter06CommandLineTests {
    @Test("--list lists ten scenarios; --lang ja --list lists them in Japanese")
    func lists() async throws {
        let english = try await runChapterExecutable("ch06-streams", ["--list"])
        #expect(english.status == 0)
        #expect(english.standardOutput.contains("Two consumers of one stream split the values"))
        let japanese = try await runChapterExecutable("ch06-streams", ["--lang", "ja", "--list"])
        #expect(japanese.status == 0)
        #expect(japanese.standardOutput.contains("1 つのストリームを 2 つの消費者で読むと、値が分かれる"))
        #expect(japanese.standardOutput.contains("検索欄: `debounce` と、画面が持つループ"))
    }

    @Test("run 5 piped: onTermination stops the sensor, and yield after the end is .terminated")
    func runFivePiped() async throws {
        let result = try await runChapterExecutable("ch06-streams", [], input: "timeline off\nrun 5\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("onTermination stopped the sensor"))
        #expect(output.contains("yield(9) after finish() → .terminated."))
    }

    @Test("run 2 carries on after the child's trap, then run 8 shows the split")
    func trapThenCarryOn() async throws {
        let result = try await runChapterExecutable("ch06-streams", [], input: "timeline off\nrun 2\nrun 8 repeats=5\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #expect(output.contains("1) Virtual time, default schedule: A=[1, 3, 5] B=[2, 4, 6]."))
        #expect(!result.standardError.contains("Fatal error"))
    }

    @Test("play 1 auto gets every reading; play 2 auto: the cancel first, and the reply anyway")
    func games() async throws {
        let result = try await runChapterExecutable("ch06-streams", [], input: "timeline off\nplay 1\nauto\nplay 2\nauto\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Outcome: received=[1, 2, 3] — acceptable"))
        #expect(output.contains("Outcome: cancel=before answer=photo — FORBIDDEN"))
    }

    @Test("bad input: an unknown scenario, an unknown knob, a knob out of range, a bad game number")
    func badInput() async throws {
        #expect(try await runChapterExecutable("ch06-streams", ["--run", "11"]).status == 2)
        #expect(try await runChapterExecutable("ch06-streams", ["--run", "8", "speed=3"]).status == 2)
        #expect(try await runChapterExecutable("ch06-streams", ["--run", "8", "repeats=0"]).status == 2)
        let piped = try await runChapterExecutable("ch06-streams", [], input: "play 9\nrun 10 interval=5\nfrobnicate\nquit\n")
        #expect(piped.status == 0)
        #expect(piped.standardOutput.contains("no game 9"))
        #expect(piped.standardOutput.contains("interval=5 is outside 50...900"))
    }
}
