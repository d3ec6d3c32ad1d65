import Foundation
import JapaneseTextRules
import Testing
import WorkbookCore
@testable import ch05_continuations

private func scenario(_ slug: String) -> Scenario { Chapter05.chapter.scenario(slug) }

@Suite("Chapter 5: continuations, scenarios 5–8", .workbookSelfTest)
struct Chapter05PartBTests {
    @Test("scenarios 5–8 keep the slugs and the order the chapter text uses")
    func numbering() {
        let slugs = Chapter05.chapter.scenarios.map(\.slug)
        let partB = ["wait-until-dismissed", "cancellation-bridge", "checked-vs-unsafe", "first-value"]
        #expect(Array(slugs.suffix(partB.count)) == partB)
    }

    // MARK: 5 wait-until-dismissed

    @Test("the task presents, the user dismisses, the dismiss handler resumes, and the task goes on only after dismiss returns")
    func waitUntilDismissed() async throws {
        let context = try await run(scenario("wait-until-dismissed"))
        #expect(context.noted("dismiss order") == "true")
        #expect(context.noted("first after resume") == "B")
    }

    @Test("cancelling the waiting task leaves the screen up and the task waiting; a cancellation handler that dismisses ends the wait")
    func dismissAndCancellation() async throws {
        let context = try await run(scenario("wait-until-dismissed"))
        #expect(context.noted("cancelled: screen still up") == "true")
        #expect(context.noted("cancelled: continued before Close") == "false")
        #expect(context.noted("cancelled: isCancelled after") == "true")
        #expect(context.noted("handler: screen gone") == "true")
        #expect(context.noted("handler: order") == "onCancel → dismiss(settings) → onDismiss → resume() → dismiss returns")
    }

    @Test("a disappear hook like viewDidDisappear runs when the screen is covered and again when it is dismissed, never for a refused presentation; the guarded wait resumes once and returns at once when refused")
    func disappearIsNotDismiss() async throws {
        let context = try await run(scenario("wait-until-dismissed"))
        #expect(context.noted("hook: resumes") == "2")
        #expect(context.noted("hook: first resume while shown") == "true")
        #expect(context.noted("hook: resumes when refused") == "0")
        #expect(context.noted("once: continued while covered") == "false")
        #expect(context.noted("once: resumes") == "1")
        #expect(context.noted("once: shown") == "true")
        #expect(context.noted("once: shown when refused") == "false")
    }

    // MARK: 6 cancellation-bridge

    @Test("cancelled before the call: onCancel runs first, on the task's thread, and the careful bridge starts no request; handle?.cancel() alone lets it run and returns its value")
    func cancelBeforeTheCall() async throws {
        let context = try await run(scenario("cancellation-bridge"))
        #expect(context.noted("before: onCancel first") == "true")
        #expect(context.noted("before: handler on task's thread") == "true")
        #expect(context.noted("before: requests started") == "0")
        #expect(context.noted("before: result") == "CancellationError")
        #expect(context.noted("before hasty: request state") == "running")
        #expect(context.noted("before hasty: result") == "\"profile\"")
    }

    @Test("cancelled while the task waits: onCancel runs inside cancel() on the caller's thread and cancels the request, whose one callback throws CancellationError")
    func cancelWhileWaiting() async throws {
        let context = try await run(scenario("cancellation-bridge"))
        #expect(context.noted("waiting: handler inside cancel()") == "true")
        #expect(context.noted("waiting: handler on caller's thread") == "true")
        #expect(context.noted("waiting: handler found request") == "true")
        #expect(context.noted("waiting: request") == "cancelled")
        #expect(context.noted("waiting: callbacks") == "1")
        #expect(context.noted("waiting: result") == "CancellationError")
    }

    @Test("cancelled while the operation is inside start(): onCancel runs on another thread, concurrently, finds no handle, and the operation cancels the request itself")
    func cancelInsideStart() async throws {
        let context = try await run(scenario("cancellation-bridge"))
        #expect(context.noted("inside: handler during operation") == "true")
        #expect(context.noted("inside: handler on another thread") == "true")
        #expect(context.noted("inside: handler found request") == "false")
        #expect(context.noted("inside: request") == "cancelled")
        #expect(context.noted("inside: result") == "CancellationError")
    }

    @Test("cancelled after the callback: onCancel runs, request.cancel() is ignored, the continuation is resumed once and the task gets the answer")
    func cancelAfterTheCallback() async throws {
        let context = try await run(scenario("cancellation-bridge"))
        #expect(context.noted("after: handler ran") == "true")
        #expect(context.noted("after: request") == "answered")
        #expect(context.noted("after: ignored cancels") == "1")
        #expect(context.noted("after: callbacks") == "1")
        #expect(context.noted("after: result") == "\"profile\"")
    }

    @Test("a handler that resumes as well as cancelling makes the callback resume twice: the child traps with the runtime's message")
    func handlerAndCallbackBothResume() async throws {
        let context = try await run(scenario("cancellation-bridge"))
        #expect(context.noted("resume twice: ending") == "SIGILL")
        let message = try #require(context.noted("resume twice: message"))
        #expect(message.contains("SWIFT TASK CONTINUATION MISUSE: loadResumingTwice(from:stored:) tried to resume its continuation more than once"))
    }

    // MARK: 7 checked-vs-unsafe

    @Test("the cost of the checks is measured: four positive medians")
    func costIsMeasured() async throws {
        let context = try await run(scenario("checked-vs-unsafe"), knobs: ["roundTrips": 2_000, "repeats": 1, "children": 1])
        for key in ["checked immediate", "unsafe immediate", "checked queued", "unsafe queued"] {
            let value = try #require(Double(context.noted("cost: \(key) ns") ?? ""), "\(key)")
            #expect(value > 0, "\(key)")
        }
    }

    @Test("dropped unresumed, the checked continuation prints the leak message and the unsafe one prints nothing")
    func leaks() async throws {
        let context = try await run(scenario("checked-vs-unsafe"), knobs: ["roundTrips": 1_000, "repeats": 1, "children": 1])
        #expect(context.noted("leak: which printed") == "checked")
        #expect(context.noted("leak: checked message")?.contains("awaitReply(keptIn:stored:) leaked its continuation without resuming it") == true)
        #expect(context.noted("leak: unsafe message") == "")
        #expect(context.noted("leak: checked ending") == "exit 0")
        #expect(context.noted("leak: unsafe ending") == "exit 0")
    }

    @Test("resumed twice, the checked continuation traps with the runtime's message; the unsafe one is not caught by that check")
    func resumedTwice() async throws {
        let context = try await run(scenario("checked-vs-unsafe"), knobs: ["roundTrips": 1_000, "repeats": 1, "children": 2])
        #expect(context.noted("twice: checked ending") == "SIGILL")
        #expect(context.noted("twice: checked message")?.contains("resumeTwiceChecked() tried to resume its continuation more than once, returning 2") == true)
        #expect(context.noted("twice: unsafe misuse messages") == "0")
    }

    @Test("with SWIFT_DEBUG_VALIDATE_UNCHECKED_CONTINUATIONS=1 the runtime stops the unsafe double resume with its own message")
    func validatedUnsafeResume() async throws {
        let context = try await run(scenario("checked-vs-unsafe"), knobs: ["roundTrips": 1_000, "repeats": 1, "children": 1])
        #expect(context.noted("twice: validated ending") == "SIGABRT")
        let message = try #require(context.noted("twice: validated message"))
        #expect(message.hasPrefix("Resuming continuation for task") && message.hasSuffix("that is not awaited (may have already been resumed)."))
    }

    // MARK: 8 first-value

    @Test("the first of 1, 2, 3 wins; later values and the completion are ignored, however many arrive after the cancel",
          arguments: [0, 3, 5])
    func firstOfThree(inFlight: Int) async throws {
        let context = try await run(scenario("first-value"), knobs: ["inFlight": inFlight])
        #expect(context.noted("three: answer") == "1")
        #expect(context.noted("three: late deliveries") == String(min(inFlight, 3)))
        #expect(context.noted("three: ignored") == String(min(inFlight, 3)))
        #expect(context.noted("three: live subscriptions") == "0")
    }

    @Test("an empty source throws finishedWithoutValue, a failing one its error, a cancelled wait CancellationError; no subscription is left live")
    func otherEndings() async throws {
        let context = try await run(scenario("first-value"))
        #expect(context.noted("empty: result") == ".finishedWithoutValue")
        #expect(context.noted("failed: result") == ".offline")
        #expect(context.noted("cancelled: result") == "CancellationError")
        #expect(context.noted("cancelled: live subscriptions") == "0")
    }

    @Test("a value sent inside subscribe(): the careful bridge cancels after subscribe returns; cancelling from onValue leaves the subscription live")
    func replayingSource() async throws {
        let context = try await run(scenario("first-value"))
        #expect(context.noted("replay: careful answer") == "7")
        #expect(context.noted("replay: careful live subscriptions") == "0")
        #expect(context.noted("replay: hasty answer") == "7")
        #expect(context.noted("replay: hasty live subscriptions") == "1")
    }

    // MARK: Japanese and the chapter program

    @Test("predict for scenarios 5–8 in Japanese, question, run and verdict, has no English words outside code names",
          arguments: ["wait-until-dismissed", "cancellation-bridge", "checked-vs-unsafe", "first-value"])
    func predictionsInJapanese(slug: String) async throws {
        let number = try #require(Chapter05.chapter.scenarios.firstIndex { $0.slug == slug }) + 1
        let transcript = await replTranscript(Chapter05.chapter, ["timeline off", "predict \(number)", "ZZZ"], language: .ja)
        let offending = EnglishWords.chapterOffendingLines(transcript)
        #expect(offending.isEmpty, "\(EnglishWords.report(offending))")
    }

    @Test("the chapter program runs scenario 6 from piped input and carries on after the child's trap")
    func chapterProgramSurvivesTheTrap() async throws {
        let number = try #require(Chapter05.chapter.scenarios.firstIndex { $0.slug == "cancellation-bridge" }) + 1
        let result = try await runChapterExecutable("ch05-continuations", ["--no-color"], input: "timeline off\nrun \(number)\nlist\nquit\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("tried to resume its continuation more than once"))
        #expect(result.standardOutput.contains("first-value") || result.standardOutput.contains("first value"))
    }
}
