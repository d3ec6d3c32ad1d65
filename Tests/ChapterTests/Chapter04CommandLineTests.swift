import Testing

@Suite("Chapter 4 on the command line", .workbookSelfTest)
struct Chapter04CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() async throws {
        let result = try await runChapterExecutable("ch04-async-await", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("呼ばれない完了ハンドラと `async throws`"))
    }

    @Test("the REPL carries on after a handler that is never called: run 1, then run 3")
    func neverCalledThenCarryOn() async throws {
        let result = try await runChapterExecutable("ch04-async-await", [], input: "run 1 deadline=200\nrun 3\nquit\n")
        #expect(result.status == 0)
        let output = unwrapped(result.standardOutput)
        #expect(output.contains("The handler versions never answered for p3 within 200 ms"))
        #expect(output.contains("p1.thumbnail → Thumbnail(p1)"))
    }
}
