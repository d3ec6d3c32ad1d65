import Foundation
import JapaneseTextRules
import Testing
import WorkbookCore
@testable import ch04_async_await

private func scenario(_ slug: String) -> Scenario { Chapter04.chapter.scenario(slug) }

@Suite("Chapter 4: async/await and structured concurrency, scenarios 7–11", .workbookSelfTest)
struct Chapter04PartBTests {
    @Test("scenarios 7–11 keep the slugs and the order the chapter text uses")
    func numbering() {
        let slugs = Chapter04.chapter.scenarios.map(\.slug)
        let partB = ["cancellation", "task-vs-detached", "task-captures-self", "sync-to-async", "which-to-use"]
        #expect(Array(slugs.suffix(partB.count)) == partB)
    }

    // MARK: 7 cancellation

    @Test("a cancelled parent's task-group and async let children each stop after the step they were in; the parent fails with CancellationError",
          arguments: [2, 6])
    func cancellationReachesChildren(items: Int) async throws {
        let context = try await run(scenario("cancellation"), knobs: ["items": items])
        for child in 1...3 { #expect(context.noted("child \(child) steps") == "1", "child \(child)") }
        #expect(context.noted("parent ended") == "CancellationError")
    }

    @Test("a loop that checks only before it starts does every item after cancel(); one that checks each item stops at once",
          arguments: [2, 6, 15])
    func checkingOnceOrEveryItem(items: Int) async throws {
        let context = try await run(scenario("cancellation"), knobs: ["items": items])
        #expect(context.noted("checks once items") == String(items))
        #expect(context.noted("checks each items") == "1")
    }

    @Test("onCancel runs inside cancel(), on the canceller's thread, while the operation awaits, and stops its request; in a task already cancelled, before the operation")
    func cancellationHandler() async throws {
        let context = try await run(scenario("cancellation"))
        #expect(context.noted("handler inside cancel()") == "true")
        #expect(context.noted("handler on canceller's thread") == "true")
        #expect(context.noted("handler while operation ran") == "true")
        #expect(context.noted("request outcome") == "stopped")
        #expect(context.noted("already cancelled order") == "onCancel, operation")
    }

    @Test("a cancelled Task.sleep(for: .seconds(5)) throws CancellationError at once")
    func cancelledSleep() async throws {
        let context = try await run(scenario("cancellation"))
        #expect(context.noted("sleep error") == "CancellationError")
        let milliseconds = try #require(Double(context.noted("sleep ended ms after cancel") ?? ""))
        #expect(milliseconds < 4_000)  // well before the 5 s it asked for, even on a loaded machine
    }

    // MARK: 8 task-vs-detached

    @Test("async let, group children and Task {} inherit priority and task-locals; Task.detached inherits neither")
    func whatTasksInherit() async throws {
        let context = try await run(scenario("task-vs-detached"))
        for kind in ["A", "G", "T self", "T"] {
            #expect(context.noted("\(kind) base priority") == ".high", "\(kind)")
            #expect(context.noted("\(kind) task-local") == "r-42", "\(kind)")
        }
        #expect(context.noted("D base priority") == ".medium")
        #expect(context.noted("D task-local") == "nil")
        #expect(context.noted("sees task-local") == "AGT")
    }

    @Test("awaited by a high-priority task, a medium detached task runs at high while its base priority stays medium")
    func awaitingRaisesPriority() async throws {
        let context = try await run(scenario("task-vs-detached"))
        #expect(context.noted("D awaited base priority") == ".medium")
        #expect(context.noted("D awaited current priority") == ".high")
    }

    @Test("in an actor method, Task {} is isolated to the actor only if its closure uses self; child and detached tasks are not")
    func actorIsolation() async throws {
        let context = try await run(scenario("task-vs-detached"))
        #expect(context.noted("T self isolation") == "PhotoLibrary")
        for kind in ["A", "G", "T", "D"] { #expect(context.noted("\(kind) isolation") == "nil", "\(kind)") }
        #expect(context.noted("visits") == "1")
    }

    @Test("Task {} made on the main actor runs on the main actor's queue; Task.detached does not")
    func mainActor() async throws {
        let context = try await run(scenario("task-vs-detached"))
        #expect(context.noted("main T isolation") == "MainActor")
        #expect(context.noted("main T on main queue") == "true")
        #expect(context.noted("main D isolation") == "nil")
        #expect(context.noted("main D on main queue") == "false")
    }

    @Test("a parent's cancel reaches its async let and group children, not Task {} or Task.detached; its scope waits only for the children")
    func structuredVersusUnstructured() async throws {
        let context = try await run(scenario("task-vs-detached"))
        for (kind, structured) in [("A", true), ("G", true), ("T", false), ("D", false)] {
            #expect(context.noted("\(kind) cancelled with parent") == String(structured), "\(kind)")
            #expect(context.noted("\(kind) ended before parent scope") == String(structured), "\(kind)")
        }
        #expect(context.noted("parent scope waited for") == "AG")
    }

    @Test("predict 8 accepts A, G and T in any order, and nothing else")
    func taskLocalPrediction() async throws {
        let prediction = try #require(scenario("task-vs-detached").prediction)
        let context = try await run(scenario("task-vs-detached"))
        for answer in ["AGT", "TGA", "GAT"] { #expect(prediction.isPossible(answer, after: context), "\(answer)") }
        for answer in ["AGTD", "AT", "D", "NONE", "AGG"] { #expect(!prediction.isPossible(answer, after: context), "\(answer)") }
    }

    @Test("predict 8 in Japanese, question, run and verdict, has no English words outside code names")
    func taskLocalPredictionInJapanese() async throws {
        let number = try #require(Chapter04.chapter.scenarios.firstIndex { $0.slug == "task-vs-detached" }) + 1
        let transcript = await replTranscript(Chapter04.chapter, ["timeline off", "predict \(number)", "ZZZ"], language: .ja)
        let offending = EnglishWords.chapterOffendingLines(transcript)
        #expect(offending.isEmpty, "\(EnglishWords.report(offending))")
        #expect(transcript.contains("AGT"))
    }

    // MARK: 9 task-captures-self

    @Test("a task that ends releases self; loops holding self leak until cancelled; [weak self] taken per iteration ends by itself",
          arguments: [1, 4])
    func taskCapturingSelf(ticks: Int) async throws {
        let context = try await run(scenario("task-captures-self"), knobs: ["ticks": ticks, "interval": 1])
        #expect(context.noted("1 deinit after task ended") == "true")
        for loop in ["2", "3"] {
            #expect(context.noted("\(loop) leaked for ticks") == "true", "loop \(loop)")
            #expect(context.noted("\(loop) deinit after cancel") == "true", "loop \(loop)")
        }
        #expect(context.noted("4 ended by itself") == "true")
        #expect(context.noted("4 ticks after drop") == "0")
    }

    // MARK: 10 sync-to-async

    @Test("viewDidAppear returns before its task starts; a kept task is cancelled by viewDidDisappear, a forgotten one runs on",
          arguments: [3, 6])
    func syncToAsync(thumbnails: Int) async throws {
        let context = try await run(scenario("sync-to-async"), knobs: ["thumbnails": thumbnails])
        for part in ["1", "2"] {
            #expect(context.noted("\(part) appear returned first") == "true")
            #expect(context.noted("\(part) shown while visible") == "2")
        }
        #expect(context.noted("1 shown after leaving") == "0")
        #expect(context.noted("1 requests") == "3")
        #expect(context.noted("1 stopped by") == "CancellationError")
        #expect(context.noted("2 shown after leaving") == String(thumbnails - 2))
        #expect(context.noted("2 requests") == String(thumbnails))
        #expect(context.noted("2 stopped by") == "nothing")
    }

    // MARK: 11 which-to-use

    @Test("all four ways deliver every thumbnail, and all four report the offline server")
    func whichToUseResults() async throws {
        let context = try await run(scenario("which-to-use"), knobs: ["thumbnails": 5])
        for way in Chapter04.FetchWay.allCases {
            #expect(context.noted("\(way.rawValue) part 1") == "5 thumbnails", "\(way)")
            #expect(context.noted("\(way.rawValue) part 2") == "ServerError.offline", "\(way)")
        }
    }

    @Test("cancelling at once: GCD and threads run on, cancelAllOperations() skips the collecting operation, the task group throws CancellationError")
    func whichToUseCancellation() async throws {
        let context = try await run(scenario("which-to-use"))
        #expect(context.noted("GCD part 3") == "4 thumbnails")
        #expect(context.noted("Thread part 3") == "4 thumbnails")
        #expect(context.noted("OperationQueue part 3") == "never called back")
        #expect(context.noted("task group part 3") == "CancellationError")
    }

    @Test("the line counts scenario 11 prints are those of its source")
    func linesOfCode() throws {
        let file = ChapterTexts.root.appendingPathComponent("Sources/ch04-async-await/WhichToUse.swift")
        let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        /// From the line that opens `start` to the first line after it that is exactly `close`.
        func count(from start: String, to close: String) throws -> Int {
            let first = try #require(lines.firstIndex { $0.contains(start) }, "\(start) not found")
            let last = try #require(lines[first...].firstIndex(of: close), "end of \(start) not found")
            return last - first + 1
        }
        for way in Chapter04.FetchWay.allCases {
            var counted = try count(from: "private static func \(way.function)(", to: "    }")
            if way == .operations { counted += try count(from: "private final class ThumbnailOperation", to: "}") }
            #expect(counted == way.linesOfCode, "\(way)")
        }
    }
}
