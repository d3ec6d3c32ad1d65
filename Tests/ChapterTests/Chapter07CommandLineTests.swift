import Foundation
import Testing
import WorkbookCore

@Suite("Chapter 7 on the command line", .workbookSelfTest)
struct Chapter07CommandLineTests {
    @Test("--list lists twelve scenarios; --lang ja --list lists them in Japanese")
    func lists() async throws {
        let english = try await runChapterExecutable("ch07-actors", ["--list"])
        #expect(english.status == 0)
        #expect(english.standardOutput.contains("The slides' counter: two increments that can both return 2"))
        #expect(english.standardOutput.contains("12. Adoption"))
        let japanese = try await runChapterExecutable("ch07-actors", ["--lang", "ja", "--list"])
        #expect(japanese.status == 0)
        #expect(japanese.standardOutput.contains("スライドのカウンタ: 2 回のインクリメントが両方 2 を返し得る"))
        #expect(japanese.standardOutput.contains("Task {} の隔離は、作られた場所ではなく書かれた場所で決まる"))
    }

    @Test("run 8 piped: the task written in the client's closure is not on the main actor, and the child's check stops it; the REPL carries on to run 6")
    func staticIsolationPiped() async throws {
        let result = try await runChapterExecutable("ch07-actors", [], input: "timeline off\nrun 8\nrun 6\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Task {} in that closure, after await nil"))
        #expect(output.contains("The child was stopped by SIGILL"))
        #expect(output.contains("1) a TokenStore per tab stores=2 token=v1 status=401"))
    }

    @Test("play 1 auto loses an update; play 2 auto is acceptable; play 3 with tab 1's timer first sends the retired token")
    func games() async throws {
        let result = try await runChapterExecutable("ch07-actors", [], input: "timeline off\nplay 1\nauto\nplay 2\nauto\nplay 3\nauto\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Outcome: A=1 B=1 — FORBIDDEN"))
        #expect(output.contains("Outcome: A=1 B=2 — acceptable"))
        #expect(output.contains("Outcome: refreshFirst=no token=v1 — acceptable"))
    }

    @Test("bad input: an unknown scenario, an unknown knob, a knob out of range, a bad game number")
    func badInput() async throws {
        #expect(try await runChapterExecutable("ch07-actors", ["--run", "13"]).status == 2)
        #expect(try await runChapterExecutable("ch07-actors", ["--run", "1", "speed=3"]).status == 2)
        #expect(try await runChapterExecutable("ch07-actors", ["--run", "1", "tsan=2"]).status == 2)
        let piped = try await runChapterExecutable("ch07-actors", [], input: "play 9\nrun 4 busy=5\nquit\n")
        #expect(piped.status == 0)
        #expect(piped.standardOutput.contains("no game 9"))
        #expect(piped.standardOutput.contains("busy=5 is outside 10...1000"))
    }
}
