import Foundation
import Testing
import WorkbookCore
import WorkbookExplorer
@testable import ch06_streams

private func scenario(_ slug: String) -> Scenario { Chapter06.chapter.scenario(slug) }

/// Explores `body` on a thread of its own (see Chapter04Tests).
private func explored(_ strategy: Explorer.Strategy, _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await Explorer.explore(strategy, body)
}

@Suite("Chapter 6: streams", .workbookSelfTest)
struct Chapter06Tests {
    @Test("the scenarios and games keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter06.chapter.scenarios.map(\.slug) == [
            "migration", "one-value", "operators", "for-await", "async-stream",
            "buffering", "throwing-stream", "two-consumers", "form-button", "search-debounce",
        ])
        #expect(Chapter06.chapter.games.map(\.slug) == ["drop-a-reading", "cancel-the-naive-bridge"])
    }

    @Test("every scenario runs in Japanese too", arguments: Chapter06.chapter.scenarios.map(\.slug))
    func japanese(_ slug: String) async throws {
        let context = try await run(scenario(slug), language: .ja)
        #expect(!context.trace.events.isEmpty)
    }

    // MARK: 1. migration

    @Test("bottom-up migration: the old sink caller gets the sorted articles at every step, new callers from step 2")
    func migration() async throws {
        let context = try await run(scenario("migration"))
        #expect(context.noted("old callers all worked") == "true")
        #expect(context.noted("step 0 new") == "—")
        #expect(context.noted("step 2 new") == "a1,a2,a3")
        #expect(context.noted("step 3 new") == "a1,a2,a3")
    }

    // MARK: 2. one-value

    @Test("the naive bridge: a value returns, an empty publisher throws .finishedWithoutValue, a failure is rethrown")
    func naiveOutcomes() async throws {
        let context = try await run(scenario("one-value"))
        #expect(context.noted("naive value") == "1")
        #expect(context.noted("naive empty") == ".finishedWithoutValue")
        #expect(context.noted("naive failure") == ".offline")
    }

    @Test("cancelled while waiting: the naive bridge keeps its subscription and returns 42; the careful one throws CancellationError and cancels")
    func cancelledWhileWaiting() async throws {
        let context = try await run(scenario("one-value"))
        #expect(context.noted("naive cancel: live after cancel") == "1")
        #expect(context.noted("naive cancel: answer") == "42")
        #expect(context.noted("careful cancel: live after cancel") == "0")
        #expect(context.noted("careful cancel: answer") == "CancellationError")
    }

    @Test("a force-unwrapped first value of an empty publisher traps the child; the safe spelling throws")
    func forceUnwrap() async throws {
        let context = try await run(scenario("one-value"))
        #expect(context.noted("force unwrap: termination")?.hasPrefix("signalled") == true)
        #expect(context.noted("force unwrap: message")?.contains("Fatal error: Unexpectedly found nil while unwrapping an Optional value") == true)
        #expect(context.noted("safe first") == ".finishedWithoutValue")
    }

    @Test("Future runs when created (1 request, shared by two subscribers); an async function only when awaited; Deferred once per subscriber")
    func futureIsEager() async throws {
        let context = try await run(scenario("one-value"))
        #expect(context.noted("future requests when created") == "1")
        #expect(context.noted("future requests after two subscribers") == "1")
        #expect(context.noted("async requests before await") == "0")
        #expect(context.noted("async requests after await") == "1")
        #expect(context.noted("deferred requests before subscribing") == "0")
        #expect(context.noted("deferred requests after two subscribers") == "2")
    }

    // MARK: 3. operators

    @Test("sequential awaits: step 2 fails, step 3 never starts, the catch gets .offline")
    func flatMapChain() async throws {
        let context = try await run(scenario("operators"))
        #expect(context.noted("chain steps") == "step1(id) step2(s1) caught .offline")
    }

    @Test("Zip3: a tuple of async lets surfaces b's error at 300 ms, b first at 10 ms, a throwing group at 10 ms and cancels a and c")
    func zipTimings() async throws {
        let context = try await run(scenario("operators"))
        #expect(context.noted("async let tuple error at") == "300")
        #expect(context.noted("async let failing first error at") == "10")
        #expect(context.noted("task group error at") == "10")
        #expect(context.noted("task group children") == "a=a: CancellationError b=b: throws .offline c=c: CancellationError")
        // Real time is only shown beside the virtual figures: the tuple waits for a's 300 ms
        // sleep whatever the load; how soon the group fails depends on the machine.
        #expect(Int(context.noted("real tuple ms") ?? "") ?? 0 >= 300)
        #expect(Int(context.noted("real group ms") ?? "") != nil)
    }

    @Test("the upload loop: 4 of 5 succeed; cancelled, a plain catch swallows CancellationError and tries every image; rethrowing stops it")
    func uploadLoop() async throws {
        let context = try await run(scenario("operators"))
        #expect(context.noted("upload plain succeeded") == "4")
        #expect(context.noted("upload plain result") == "success")
        #expect(context.noted("upload naive attempted") == "[1, 2, 3, 4, 5]")
        #expect(context.noted("upload naive succeeded") == "1")
        #expect(context.noted("upload naive result") == "success")
        #expect(context.noted("upload fixed attempted") == "[1, 2]")
        #expect(context.noted("upload fixed result") == "CancellationError")
    }

    // MARK: 4. for-await

    @Test("for await: every element until nil; for try await throws after two lines; break after two next() calls")
    func forAwait() async throws {
        let context = try await run(scenario("for-await"))
        #expect(context.noted("countdown") == "[3, 2, 1]")
        #expect(context.noted("lines") == "line 1,line 2")
        #expect(context.noted("lines error") == ".connectionLost")
        #expect(context.noted("break: next calls") == "2")
        let iterator = context.trace.events.filter { $0.lane == "iterator" }.map(\.label)
        #expect(iterator.prefix(4) == ["next() → 3", "next() → 2", "next() → 1", "next() → nil"])
    }

    // MARK: 5. async-stream

    @Test("onTermination stops the sensor: a loop that broke out in a function that owns the stream, a cancelled consumer; a kept stream does not end at break")
    func onTermination() async throws {
        let context = try await run(scenario("async-stream"))
        #expect(context.noted("break: taken") == "[1, 2, 3]")
        #expect(context.noted("break: sensor stopped") == "true")
        #expect(context.noted("kept: still running after break") == "true")
        #expect(context.noted("kept: stopped once released") == "true")
        #expect(context.noted("cancel: sensor stopped") == "true")
        #expect(context.noted("hasty: running after cancel") == "true")
        #expect(context.noted("finished: readings") == "[1, 2, 3]")
        #expect(context.noted("yield after finish") == ".terminated")
        let reasons = context.trace.events.filter { $0.label.hasPrefix("onTermination") }.map(\.label)
        #expect(reasons == ["onTermination(.cancelled)", "onTermination(.cancelled)", "onTermination(.cancelled)", "onTermination(.finished)"])
    }

    // MARK: 6. buffering

    @Test("buffering: unbounded keeps all, newest(1) keeps 1 and 8 and reports what it dropped, oldest(2) drops new values, the paced channel drops none and slows the producer")
    func buffering() async throws {
        let context = try await run(scenario("buffering"))
        #expect(context.noted(".unbounded received") == "[1, 2, 3, 4, 5, 6, 7, 8]")
        #expect(context.noted(".bufferingNewest(1) received") == "[1, 3, 5, 8]")
        #expect(context.noted(".bufferingNewest(1) dropped") == "[2, 4, 6, 7]")
        #expect(context.noted(".bufferingOldest(2) received") == "[1, 2, 3, 4, 6]")
        #expect(context.noted(".bufferingOldest(2) dropped") == "[5, 7, 8]")
        #expect(context.noted("PacedChannel received") == "[1, 2, 3, 4, 5, 6, 7, 8]")
        #expect(context.noted("PacedChannel dropped") == "[]")
        #expect(context.noted(".unbounded producer done") == "16")
        #expect(Int(context.noted("PacedChannel producer done") ?? "") ?? 0 > 30)
    }

    // MARK: 7. throwing-stream

    @Test("AsyncThrowingStream: the values sent before finish(throwing:) arrive, then the loop throws")
    func throwingStream() async throws {
        let context = try await run(scenario("throwing-stream"))
        #expect(context.noted("failing values") == "[25, 50]")
        #expect(context.noted("failing ending") == ".connectionLost")
        #expect(context.noted("complete values") == "[25, 50, 75, 100]")
        #expect(context.noted("complete ending") == "ended")
    }

    // MARK: 8. two-consumers

    @Test("two consumers of one stream split 1–6; one stream per consumer gives each all six")
    func twoConsumers() async throws {
        let context = try await run(scenario("two-consumers"), knobs: ["repeats": 20])
        #expect(context.noted("virtual split") == "A=[1, 3, 5] B=[2, 4, 6]")
        #expect(context.noted("split answer") == "B")
        #expect(context.noted("explored both got all") == "false")
        #expect(context.noted("broadcast") == "A=[1, 2, 3, 4, 5, 6] B=[1, 2, 3, 4, 5, 6]")
    }

    @Test("no schedule gives both consumers of one stream every value")
    func neverBoth() async {
        let result = await explored(.exhaustive(maxPreemptions: 1)) {
            let outcome = await Chapter06.twoConsumersOfOneStream(pause: { await Task.yield() })
            if outcome == "A=[1, 2, 3, 4, 5, 6] B=[1, 2, 3, 4, 5, 6]" { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(result.failure == nil)
        #expect(!result.outcomes.isEmpty)
    }

    // MARK: 9. form-button

    @Test("the form button: nothing until both fields have a value, duplicates change nothing, the loop ends when both fields finish")
    func formButton() async throws {
        let context = try await run(scenario("form-button"))
        #expect(context.noted("button updates") == "true,false,true,true")
        #expect(context.noted("pipeline finished") == "true")
    }

    // MARK: 10. search-debounce

    @Test("debounce: one search per pause; the kept task ends the loop and frees the view model; a loose Task does not")
    func searchDebounce() async throws {
        let context = try await run(scenario("search-debounce"))
        #expect(context.noted("searched") == "search(\"swi\") search(\"swift\")")
        #expect(context.noted("kept task") == "searches=2 loopEnded=true viewModelFreed=true")
        #expect(context.noted("loose task") == "searches=2 loopEnded=false viewModelFreed=false")
    }

    @Test("a short debounce interval searches at every pause longer than it")
    func shortInterval() async throws {
        let context = try await run(scenario("search-debounce"), knobs: ["interval": 50])
        #expect(context.noted("searched") == "search(\"s\") search(\"sw\") search(\"swi\") search(\"swif\") search(\"swift\")")
    }

    // MARK: Games

    @Test("game 1: the default schedule gets every reading; the search finds a schedule that drops one")
    func dropGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0)) { await Chapter06.newestOneReadings() }
        #expect(byDefault.outcomes.map(\.outcome) == ["received=[1, 2, 3]"])
        let dropped = await explored(.deepening(seed: 1)) {
            let outcome = await Chapter06.newestOneReadings()
            if Chapter06.classifyReadings(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(dropped.failure.map { $0.outcome.description.contains("received=[1, 3]") } == true)
    }

    @Test("game 2: with the cancel first, the naive bridge still returns the reply; with the reply first, it returns before the cancel")
    func cancelBridgeGame() async {
        let result = await explored(.exhaustive(maxPreemptions: 2)) { await Chapter06.naiveBridgeCancelled() }
        let outcomes = Set(result.outcomes.map(\.outcome))
        #expect(outcomes.contains("cancel=before answer=photo"))
        #expect(outcomes.contains("cancel=after answer=photo"))
        #expect(Chapter06.classifyCancelledBridge("cancel=before answer=photo") == .forbidden)
    }
}
