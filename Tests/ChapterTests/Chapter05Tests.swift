import Foundation
import Testing
import WorkbookCore
import WorkbookExplorer
@testable import ch05_continuations

private func scenario(_ slug: String) -> Scenario { Chapter05.chapter.scenario(slug) }

/// Explores `body` on a thread of its own (see Chapter04Tests).
private func explored(_ strategy: Explorer.Strategy, _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await Explorer.explore(strategy, body)
}

@Suite("Chapter 5: continuations (scenarios 1–4)", .workbookSelfTest)
struct Chapter05Tests {
    @Test("the scenarios and games keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter05.chapter.scenarios.map(\.slug).prefix(4) == ["wrap-callback", "never-resumed", "resumed-twice", "delegate-bridge"])
        #expect(Chapter05.chapter.games.map(\.slug).prefix(1) == ["timeout-race"])
    }

    // MARK: 1. wrap-callback

    @Test("the closure runs at once on the calling task, the handler resumes from the service's queue, and the task goes on before the handler returns")
    func wrapCallback() async throws {
        let context = try await run(scenario("wrap-callback"))
        #expect(context.noted("order") == Chapter05.wrapCallbackOrder)
        #expect(context.noted("photo") == "Photo(p1)")
        #expect(context.noted("closure ran on the calling thread") == "true")
        #expect(context.noted("task went on while the handler ran") == "true")
        let labels = context.trace.pointLabels
        let handlerReturns = try #require(labels.firstIndex { $0.hasPrefix("E:") })
        let taskGoesOn = try #require(labels.firstIndex { $0.hasPrefix("C:") })
        #expect(taskGoesOn < handlerReturns)
    }

    @Test("withCheckedThrowingContinuation and resume(with:): a success returns, a failure is thrown at the try await")
    func throwingBridge() async throws {
        let context = try await run(scenario("wrap-callback"))
        #expect(context.noted("throwing p1") == "Photo(p1)")
        #expect(context.noted("throwing p9") == ".notFound")
    }

    @Test("both bridges, explored with the service calling back from a task: every schedule gives the photo, or throws .notFound")
    func bridgesExplored() async {
        let result = await explored(.exhaustive(maxPreemptions: 2)) {
            let service = LegacyPhotoService(replies: ["p1": .photo, "p9": .notFound], delivery: .task)
            async let plain = Chapter05.photo(for: "p1", from: service)
            async let missing = Chapter05.photo(for: "p9", from: service)
            let thrown: String
            do { thrown = "\(try await Chapter05.fetchedPhoto(for: "p9", from: service))" } catch { thrown = "\(error)" }
            return "\(await plain.map(String.init(describing:)) ?? "nil") \(await missing.map(String.init(describing:)) ?? "nil") \(thrown)"
        }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == ["Photo(p1) nil .notFound"])
    }

    // MARK: 2. never-resumed

    @Test("the forgotten path: the runtime's leak message, from the child's stderr, and a caller the explorer finds waiting for ever")
    func neverResumed() async throws {
        let context = try await run(scenario("never-resumed"))
        #expect(context.noted("misuse") == """
            SWIFT TASK CONTINUATION MISUSE: thumbnailData(for:from:) leaked its continuation without resuming it. \
            This may cause tasks waiting on it to remain suspended forever.
            """)
        #expect(context.noted("caller") == "C")
        #expect(context.noted("child end") == "exited with status 0")
    }

    @Test("the fixed bridge resumes on every path: (nil, nil) throws .noData")
    func fixedBridge() async throws {
        let context = try await run(scenario("never-resumed"))
        #expect(context.noted("fixed p1") == "2 bytes")
        #expect(context.noted("fixed p3") == ".noData")
        let result = await explored(.exhaustive(maxPreemptions: 2)) {
            let service = LegacyPhotoService(replies: ["p1": .photo, "p3": .nothing], delivery: .task)
            var answers: [String] = []
            for id in ["p1", "p3", "p4"] {
                do { answers.append("\(try await Chapter05.checkedThumbnailData(for: id, from: service).count)") } catch { answers.append("\(error)") }
            }
            return answers.joined(separator: " ")
        }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == ["2 .noData .notFound"])
    }

    // MARK: 3. resumed-twice

    @Test("a handler called twice: the caller goes on with the first value, and the second resume traps the child with the runtime's message")
    func doubleCallback() async throws {
        let context = try await run(scenario("resumed-twice"), knobs: ["bound": 2])
        #expect(context.noted("second call") == "C")
        #expect(context.noted("caller got") == "Photo(p1, cached)")
        let message = try #require(context.noted("double resume message"))
        #expect(message.hasSuffix("Fatal error: SWIFT TASK CONTINUATION MISUSE: latestPhoto(for:from:) tried to resume its continuation more than once, returning Photo(p1)!"))
    }

    @Test("the timeout race with a real continuation traps in a child; its journal's schedule, replayed with the game's stand-in, resumes twice")
    func raceChild() async throws {
        let context = try await run(scenario("resumed-twice"), knobs: ["bound": 2])
        #expect(context.noted("race child") == "trapped")
        let tokenText = try #require(context.noted("race token"))
        let token = try #require(ReplayToken(tokenText))
        let report = await onDedicatedThread { Explorer.replay(token) { await Chapter05.photoWithTimeout(.counted) } }
        #expect(report.outcomeText == "resumes=2 value=\"timed out\"")
        #expect(Chapter05.classifyResumes(report.outcomeText) == .forbidden)
    }

    @Test("every schedule of the race within the bound: check-then-act flags resume twice in some, ResumeOnce in none")
    func raceCounted() async throws {
        let context = try await run(scenario("resumed-twice"), knobs: ["bound": 2])
        #expect(Int(context.noted("flags twice") ?? "") ?? 0 > 0)
        #expect(context.noted("ResumeOnce twice") == "0")
        #expect(context.noted("ResumeOnce outcomes") == "resumes=1 value=\"photo\" | resumes=1 value=\"timed out\"")
    }

    @Test("with bound=0 only the default schedule is counted, and it resumes once; one preemption is enough to resume twice")
    func raceBounds() async throws {
        let none = try await run(scenario("resumed-twice"), knobs: ["bound": 0])
        #expect(none.noted("flags schedules") == "1")
        #expect(none.noted("flags twice") == "0")
        let one = try await run(scenario("resumed-twice"), knobs: ["bound": 1])
        #expect(Int(one.noted("flags twice") ?? "") ?? 0 > 0)
    }

    // MARK: Game

    @Test("game 1: the default schedule resumes once with the photo; a schedule with one preemption resumes twice")
    func timeoutRaceGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0)) { await Chapter05.photoWithTimeout(.counted) }
        #expect(byDefault.outcomes.map(\.outcome) == ["resumes=1 value=\"photo\""])
        let twice = await explored(.exhaustive(maxPreemptions: 1)) {
            let outcome = await Chapter05.photoWithTimeout(.counted)
            if Chapter05.classifyResumes(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(twice.failure.map { $0.outcome.description.contains("resumes=2") } == true)
    }

    // MARK: 4. delegate-bridge

    @Test("the stored continuation is cleared after resuming: late delegate calls are ignored", arguments: [0, 2, 5])
    func lateDelegateCalls(late: Int) async throws {
        let context = try await run(scenario("delegate-bridge"), knobs: ["late": late])
        #expect(context.noted("part 1 fix") == LocationFix.sample(0).description)
        #expect(context.noted("part 1 ignored") == String(late))
    }

    @Test("a second request while one waits is refused with .requestInFlight; the sensor is asked once, and the first caller gets the fix")
    func secondRequest() async throws {
        let context = try await run(scenario("delegate-bridge"), knobs: ["late": 0])
        #expect(context.noted("part 2 second") == ".requestInFlight")
        #expect(context.noted("part 2 requests") == "1")
        #expect(context.noted("part 2 first") == LocationFix.sample(0).description)
    }

    @Test("overwriting the stored continuation leaks the first (the runtime says so) and the second caller gets the fix; not clearing it traps on a repeated call")
    func carelessBridge() async throws {
        let context = try await run(scenario("delegate-bridge"), knobs: ["late": 0])
        #expect(context.noted("overwrite: who got it") == "S")
        #expect(context.noted("overwrite misuse") == """
            SWIFT TASK CONTINUATION MISUSE: currentLocation() leaked its continuation without resuming it. \
            This may cause tasks waiting on it to remain suspended forever.
            """)
        #expect(context.noted("uncleared") == "trapped")
        #expect(context.noted("uncleared misuse")?.contains(
            "SWIFT TASK CONTINUATION MISUSE: currentLocation() tried to resume its continuation more than once, returning \(LocationFix.sample(1))!") == true)
    }
}
