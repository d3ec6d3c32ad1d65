import Foundation
import Testing
import WorkbookCore

@Suite("Chapter 8 on the command line", .workbookSelfTest)
struct Chapter08CommandLineTests {
    @Test("--list lists eight scenarios; --lang ja --list lists them in Japanese")
    func lists() async throws {
        let english = try await runChapterExecutable("ch08-reentrancy", ["--list"])
        #expect(english.status == 0)
        #expect(english.standardOutput.contains("The token refresh, as it happened"))
        #expect(english.standardOutput.contains("8.  When reentrancy is not wanted"))
        let japanese = try await runChapterExecutable("ch08-reentrancy", ["--lang", "ja", "--list"])
        #expect(japanese.status == 0)
        #expect(japanese.standardOutput.contains("トークンのリフレッシュ、実際に起きたこと"))
        #expect(japanese.standardOutput.contains("同じ URL を 2 回ダウンロードする画像キャッシュ"))
    }

    @Test("run 7 piped: the child that re-enters its serial queue is stopped; the REPL carries on to run 3")
    func nonActorReentrancyPiped() async throws {
        let result = try await runChapterExecutable("ch08-reentrancy", [], input: "timeline off\nrun 7\nrun 3\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("The child was stopped by SIG"))
        #expect(output.contains("it finished at once"))
        #expect(output.contains("read a total of 90"))
        #expect(output.contains("A=true B=true balance=-10"))
    }

    @Test("play N auto for every game: the default schedule breaks the rule in all but game 6")
    func games() async throws {
        let input = "timeline off\n" + (1...8).map { "play \($0)\nauto\n" }.joined() + "quit\n"
        let result = try await runChapterExecutable("ch08-reentrancy", [], input: input)
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("Outcome: reader=v1 — FORBIDDEN"))
        #expect(output.contains("Outcome: downloads=2 A=#1 B=#2 — FORBIDDEN"))
        #expect(output.contains("Outcome: A=true B=true balance=-10 — FORBIDDEN"))
        #expect(output.contains("Outcome: refreshes=2 A=v2 B=v3 — FORBIDDEN"))
        #expect(output.contains("Outcome: shown=rankup1,reward1 refused=rankup2 stuck=1 — FORBIDDEN"))
        #expect(output.contains("Outcome: query=swift results=swift — acceptable"))
        #expect(output.contains("Outcome: deadlock: caller (the body), A (after \"A: inside ledger.post()\"), B (after \"B: inside bank.audit()\") — FORBIDDEN"))
        #expect(output.contains("Outcome: atOnce=2 server=d2 — FORBIDDEN"))
    }

    @Test("bad input: an unknown scenario, a knob on a scenario without knobs, a bad game number")
    func badInput() async throws {
        #expect(try await runChapterExecutable("ch08-reentrancy", ["--run", "9"]).status == 2)
        #expect(try await runChapterExecutable("ch08-reentrancy", ["--run", "1", "speed=3"]).status == 2)
        let piped = try await runChapterExecutable("ch08-reentrancy", [], input: "play 9\nrun 2 speed=5\nquit\n")
        #expect(piped.status == 0)
        #expect(piped.standardOutput.contains("no game 9"))
        #expect(piped.standardOutput.contains("this scenario has no knobs"))
    }
}
