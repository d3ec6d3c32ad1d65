import Testing

@Suite("Chapter 2 on the command line", .workbookSelfTest)
struct Chapter02CommandLineTests {
    @Test("--lang ja --list lists the scenarios in Japanese")
    func japaneseList() async throws {
        let result = try await runChapterExecutable("ch02-operations", ["--lang", "ja", "--list"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Operation の依存関係"))
        #expect(result.standardOutput.contains("依存関係がキューの順番を変える"))
    }

    @Test("piped commands run line by line, without a prompt, and end of input exits 0")
    func pipedSession() async throws {
        let result = try await runChapterExecutable("ch02-operations", [], input: "list\nrun 3\nrun 2 width=2\nexplain 9\nquit\n")
        #expect(result.status == 0)
        #expect(!result.standardOutput.contains("ch02>"))
        #expect(result.standardOutput.contains("10. GCD and OperationQueue side by side"))
        #expect(result.standardOutput.contains("Order: without the dependency AB, with it BA."))
        #expect(result.standardOutput.contains("maxConcurrentOperationCount = 2"))
        #expect(result.standardOutput.contains("9. An asynchronous operation"))
    }

    @Test("a prediction is judged against the run")
    func pipedPrediction() async throws {
        let result = try await runChapterExecutable("ch02-operations", [], input: "predict 3\nBA\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("✓ Matched: this run gave BA."))
    }

    @Test("in the chapter program, OperationQueue.main runs its operations on the main thread")
    func mainQueueOnMainThread() async throws {
        let result = try await runChapterExecutable("ch02-operations", ["--run", "11"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("main: M1: Thread.isMainThread=true OperationQueue.current=OperationQueue.main"))
        #expect(unwrapped(result.standardOutput).contains("Every main-queue operation ran on the main thread, one at a time (at most 1 at once)."))
    }

    @Test("predicting the lane of start(): the caller's")
    func predictStart() async throws {
        let result = try await runChapterExecutable("ch02-operations", [], input: "predict 12\nT1\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("✓ Matched: this run gave T1."))
    }
}
