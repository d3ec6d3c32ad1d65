import Testing

@Suite("Chapter 3 on the command line", .workbookSelfTest)
struct Chapter03CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() async throws {
        let result = try await runChapterExecutable("ch03-threads", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("ロック順序のデッドロック"))
    }

    @Test("the REPL carries on after a deadlock: run 8, then run 2")
    func deadlockThenCarryOn() async throws {
        let result = try await runChapterExecutable("ch03-threads", [], input: "run 8 transfers=100\nrun 2\nquit\n")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("ch03>"))
        #expect(result.standardOutput.contains("After 1 s neither transfer has finished."))
        #expect(result.standardOutput.contains("Both threads finished; total = 200"))
        #expect(result.standardOutput.contains("not polling: 8 of 8 steps done"))
    }
}
