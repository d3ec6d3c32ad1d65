import ExerciseKit
import Foundation
import Testing
import WorkbookCore
import WorkbookExplorer
@testable import ch04_async_await

private func scenario(_ slug: String) -> Scenario { Chapter04.chapter.scenario(slug) }

/// Explores `body` on a thread of its own: an exploration waits for its driver thread, and a
/// test that waited on a Swift concurrency thread would take one of the pool's few threads from
/// the scenarios running beside it.
private func explored(_ strategy: Explorer.Strategy, _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await Explorer.explore(strategy, body)
}

/// Explores `body` and throws for an outcome `classify` forbids, so the search stops at the first one.
private func search(_ strategy: Explorer.Strategy, _ classify: @escaping @Sendable (String) -> OutcomeTally.Verdict,
                    _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await explored(strategy) {
        let outcome = try await body()
        if classify(outcome) == .forbidden { throw InvariantViolation(outcome) }
        return outcome
    }
}

@Suite("Chapter 4: async/await and structured concurrency", .workbookSelfTest)
struct Chapter04Tests {
    @Test("the scenarios and games keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter04.chapter.scenarios.map(\.slug).prefix(6) == [
            "completion-pipeline", "suspension-points", "async-properties", "async-let", "task-group-order", "task-group-limit",
        ])
        #expect(Chapter04.chapter.games.map(\.slug).prefix(2) == ["completion-order", "cancel-race"])
    }

    // MARK: 1. completion-pipeline

    @Test("the scenario reports the forgotten path as unanswered, Result or not, and async throws answers it")
    func completionPipeline() async throws {
        let context = try await run(scenario("completion-pipeline"))
        #expect(context.noted("handler p3") == "none")
        #expect(context.noted("result p3") == "none")
        #expect(context.noted("async p3") == ".badImage")
        // Under a busy test run the pool may answer the other ids after the deadline; if they
        // answered in time, it was with these.
        let answers = ["p1": "Thumbnail(p1)", "p2": ".badID", "p4": ".badImage", "p5": ".offline"]
        for (id, answer) in answers {
            #expect([answer, "none"].contains(context.noted("handler \(id)")), "handler \(id)")
            #expect(context.noted("async \(id)") == answer, "async \(id)")
        }
    }

    @Test("under the explorer, every schedule: the handler is called once for each id but the one whose path was forgotten")
    func handlerCallsExplored() async {
        let result = await explored(.exhaustive(maxPreemptions: 1)) {
            let server = ThumbnailServer(replies: Dictionary(uniqueKeysWithValues: Chapter04.pipelinePhotos.map { ($0.id, $0.reply) }))
            let pipeline = CompletionHandlerPipeline(server: server)
            let calls = Locked<[String]>([])
            for (id, _) in Chapter04.pipelinePhotos {
                pipeline.thumbnail(for: id) { thumbnail, error in
                    calls.withLock { $0.append("\(id):\(thumbnail?.description ?? errorName(error ?? CancellationError()))") }
                }
                pipeline.thumbnailResult(for: id) { result in
                    calls.withLock { $0.append("\(id):Result.\((try? result.get()) != nil ? "success" : "failure")") }
                }
            }
            await untilQuiet()
            return calls.current.sorted().joined(separator: " ")
        }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == [[
            "p1:Result.success", "p1:Thumbnail(p1)", "p2:.badID", "p2:Result.failure", "p4:.badImage", "p4:Result.failure",
            "p5:.offline", "p5:Result.failure",
        ].joined(separator: " ")])
    }

    // MARK: 2. suspension-points

    @Test("tasks that block hold the pool's threads, at most one per core; tasks that suspend all wait at once")
    func blockingVersusSuspending() async throws {
        let context = try await run(scenario("suspension-points"), knobs: ["tasks": 6, "milliseconds": 100])
        let blocking = try #require(Int(context.noted("blocking peak") ?? ""))
        #expect(blocking >= 1 && blocking <= ProcessInfo.processInfo.activeProcessorCount)
        #expect(context.noted("suspending peak") == "6")
        let blockingTime = try #require(Int(context.noted("blocking ms") ?? ""))
        // Six waits of 100 ms on at most `blocking` threads cannot take less than this.
        #expect(blockingTime >= (6 + blocking - 1) / blocking * 100 - 1)
    }

    // MARK: 3. async-properties

    @Test("get async throws properties read through the server; a stored let satisfies the requirement without a request")
    func asyncProperties() async throws {
        let context = try await run(scenario("async-properties"))
        #expect(context.noted("p1") == "Thumbnail(p1)")
        #expect(context.noted("p2") == ".badID")
        #expect(context.noted("p4") == ".badImage")
        #expect(context.noted("RemotePhoto requests") == "1")
        #expect(context.noted("CachedPhoto requests") == "0")
    }

    // MARK: 4. async-let

    @Test("two async let downloads overlap; awaited one by one they do not")
    func asyncLetOverlaps() async throws {
        let context = try await run(scenario("async-let"), knobs: ["milliseconds": 100])
        #expect(context.noted("downloads at once") == "2")
        #expect(Int(context.noted("sequential ms") ?? "") ?? 0 >= 200)
    }

    @Test("a scope is left only after every async let it did not await has ended", arguments: ["2a", "2b"])
    func asyncLetScopeEnd(part: String) async throws {
        let context = try await run(scenario("async-let"), knobs: ["milliseconds": 5])
        #expect(context.noted("\(part) ignorer finished") == "true")
        #expect(context.noted("\(part) scope left after every child ended") == "true")
    }

    @Test("at the end of a scope every async let not awaited is cancelled, the last declared first, then awaited: in every explored schedule (Swift 6.3.1)",
          arguments: [("2a", "ignorer,poller,sleeper"), ("2b", "sleeper,poller,ignorer")])
    func asyncLetEndOrder(part: String, order: String) async {
        let result = await explored(.exhaustive(maxPreemptions: 1)) {
            let run = Chapter04.ScopeRun(nil, part: part)
            if part == "2a" { await Chapter04.scopeIgnorerLast(run) } else { await Chapter04.scopeIgnorerFirst(run) }
            let seen = run.seen.current
            return "\(seen.endOrder.joined(separator: ",")) sleeper=\(seen.sleeperThrew) pollerSawCancel=\(seen.pollerSawCancel) ignorerSawCancel=\(seen.ignorerSawCancel)"
        }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == ["\(order) sleeper=CancellationError pollerSawCancel=true ignorerSawCancel=true"])
    }

    // MARK: 5. task-group-order

    @Test("results arrive in completion order; stored by index they keep the input order, which sorting does not give back")
    func taskGroupOrder() async throws {
        let context = try await run(scenario("task-group-order"), knobs: ["schedules": 300])
        let input = try #require(context.noted("input"))
        #expect(context.noted("indexed") == input)
        #expect(context.noted("arrived").map { $0.split(separator: " ").sorted() } == input.split(separator: " ").sorted())
        #expect(context.noted("sorted") != input)
        #expect(context.noted("explored arrival orders") == "6")
        #expect(context.noted("indexed always ABC") == "true")
    }

    @Test("the explorer reaches every arrival order of three children, and the indexed array is ABC in each")
    func everyArrivalOrder() async {
        let result = await explored(.exhaustive(maxPreemptions: 3), Chapter04.collectThree)
        #expect(result.failure == nil)
        let outcomes = Set(result.outcomes.map(\.outcome))
        for order in ["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"] {
            #expect(outcomes.contains("appended=\(order) indexed=ABC"), "appended=\(order)")
        }
        #expect(outcomes.allSatisfy { $0.hasSuffix(" indexed=ABC") })
    }

    // MARK: 6. task-group-limit

    @Test("the sliding window never has more than the limit in flight, and keeps the input order", arguments: [1, 3])
    func slidingWindow(limit: Int) async throws {
        let context = try await run(scenario("task-group-limit"), knobs: ["photos": 8, "limit": limit])
        let peak = try #require(Int(context.noted("window peak") ?? ""))
        #expect(peak >= 1 && peak <= limit)
        #expect(context.noted("window results in order") == "true")
    }

    @Test("after cancelAll the group stays cancelled: addTaskUnlessCancelled adds nothing, addTask's child starts cancelled")
    func cancelAll() async throws {
        let context = try await run(scenario("task-group-limit"), knobs: ["photos": 8])
        let finished = try #require(Int(context.noted("finished") ?? ""))
        let cancelled = try #require(Int(context.noted("cancelled") ?? ""))
        // Under a busy test run more downloads may have finished before the parent got to cancelAll().
        #expect(finished >= 2 && finished + cancelled == 8)
        #expect(context.noted("addTaskUnlessCancelled refused") == "true")
        #expect(context.noted("addTask child started cancelled") == "true")
    }

    @Test("cancelAll after two results, explored: in every schedule the six downloads still running end with CancellationError")
    func cancelAllExplored() async {
        let result = await explored(.exhaustive(maxPreemptions: 1)) { await Chapter04.cancelAfterTwoResults(photos: 8).description }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == ["finished=2 cancelled=6 refused=true lateChildCancelled=true"])
    }

    @Test("a failing child cancels its siblings; the group rethrows the first error after every child has ended")
    func failingChild() async throws {
        let context = try await run(scenario("task-group-limit"))
        #expect(context.noted("rethrown") == ".offline")
        #expect(context.noted("rethrown after every child ended") == "true")
    }

    @Test("a failing child, explored: in every schedule the siblings are cancelled or finish, and the first error is rethrown last")
    func failingChildExplored() async {
        let result = await explored(.exhaustive(maxPreemptions: 1)) { await Chapter04.failingGroup(Chapter04.FailingGroupRecord()) }
        #expect(result.failure == nil)
        #expect(result.outcomes.map(\.outcome) == [
            "rethrown=.offline p1=CancellationError p2=.offline p3=CancellationError p4=.badID last=rethrown",
        ])
    }

    @Test("checking a count and then entering lets three past a limit of two; the sliding window never does")
    func naiveLimit() async {
        let naive = await search(.exhaustive(maxPreemptions: 2), Chapter04.classifyLimit, Chapter04.naiveLimitedDownloads)
        #expect(naive.failure != nil)
        let window = await search(.exhaustive(maxPreemptions: 2), Chapter04.classifyLimit, Chapter04.windowedDownloads)
        #expect(window.failure == nil)
        #expect(window.schedulesRun > 1)
    }

    // MARK: Games

    @Test("game 1: the default order keeps the appended array in order; some schedule reverses it")
    func completionOrderGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0), Chapter04.collectThree)
        #expect(byDefault.outcomes.map(\.outcome) == ["appended=ABC indexed=ABC"])
        let reversed = await explored(.exhaustive(maxPreemptions: 3)) {
            let outcome = try await Chapter04.collectThree()
            if outcome == "appended=CBA indexed=ABC" { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(reversed.failure != nil)
        #expect(Chapter04.classifyCollected("appended=CBA indexed=ABC") == .forbidden)
    }

    @Test("game 2: the default order shows the new search; a schedule exists where the cancelled search's results win")
    func cancelRaceGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0), Chapter04.searchAsYouType)
        #expect(byDefault.outcomes.map(\.outcome) == ["shown=swift"])
        let stale = await search(.exhaustive(maxPreemptions: 3), Chapter04.classifyShown, Chapter04.searchAsYouType)
        #expect(stale.failure.map { $0.outcome.description.contains("shown=sw") && !$0.outcome.description.contains("shown=swift") } == true)
    }
}
