import Foundation
import Testing
import WorkbookCore
import WorkbookExplorer
@testable import ch08_reentrancy

private func scenario(_ slug: String) -> Scenario { Chapter08.chapter.scenario(slug) }

/// Explores `body` on a thread of its own (see Chapter04Tests).
private func explored(_ strategy: Explorer.Strategy, _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await Explorer.explore(strategy, body)
}

/// Every schedule of `game` within two preemptions, stopping at the first forbidden outcome.
private func firstForbidden(_ game: Game) async -> ScheduleReport? {
    await explored(.exhaustive(maxPreemptions: 2)) {
        let outcome = try await game.body()
        if game.classify(outcome) == .forbidden { throw InvariantViolation(outcome) }
        return outcome
    }.failure
}

@Suite("Chapter 8: reentrancy", .workbookSelfTest)
struct Chapter08Tests {
    @Test("the scenarios and games keep the numbers the chapter text uses: game N plays scenario N")
    func numbering() {
        let slugs = [
            "token-refresh", "image-cache", "check-then-act", "actor-is-not-a-flow-lock",
            "main-actor-presentation", "stale-results", "non-actor-reentrancy", "when-reentrancy-is-not-wanted",
        ]
        #expect(Chapter08.chapter.scenarios.map(\.slug) == slugs)
        #expect(Chapter08.chapter.games.map(\.slug) == slugs.map { $0 == "non-actor-reentrancy" ? "non-reentrant-calls" : $0 })
    }

    @Test("every scenario runs in Japanese too", arguments: Chapter08.chapter.scenarios.map(\.slug))
    func japanese(_ slug: String) async throws {
        let context = try await run(scenario(slug), language: .ja)
        #expect(!context.trace.events.isEmpty)
    }

    // MARK: 1. token-refresh

    @Test("as it shipped the reader can get v1; with the slides' fix and the complete fix it never does; the complete fix refreshes once for two refreshers")
    func tokenRefresh() async throws {
        let context = try await run(scenario("token-refresh"))
        #expect(context.noted("as it happened outcomes") == "reader=v1 | reader=v2")
        #expect(context.noted("as it happened token")?.hasPrefix("w1") == true)
        #expect(context.noted("slides fix outcomes") == "reader=v2")
        #expect(context.noted("slides fix exhausted") == "true")
        #expect(context.noted("complete outcomes") == "refreshes=1 A=v2 B=v2 reader=v2")
        #expect(context.noted("complete exhausted") == "true")
        #expect(context.noted("as it happened letter") == "C")
    }

    @Test("a failed refresh: the slides' fix gives nil to everyone and never asks again; the complete fix throws to both waiters and the next call refreshes; a cancelled caller does not cancel the shared refresh")
    func tokenRefreshFailureAndCancel() async throws {
        let context = try await run(scenario("token-refresh"))
        #expect(context.noted("slides fix failure") == "A=nil B=nil C=nil refreshes=1")
        #expect(context.noted("complete failure") == "A=error B=error C=v2 refreshes=2")
        #expect(context.noted("cancelled caller") == "A=v2 B=v2 server=issued v2")
    }

    // MARK: 2. image-cache

    @Test("the racy cache can download the avatar twice; the deduping cache never does, shares a failure, retries, and downloads two URLs side by side")
    func imageCache() async throws {
        let context = try await run(scenario("image-cache"))
        #expect(context.noted("racy outcomes") == "downloads=1 A=#1 B=#1 | downloads=2 A=#1 B=#2")
        #expect(context.noted("deduping outcomes") == "downloads=1 A=#1 B=#1")
        #expect(context.noted("deduping exhausted") == "true")
        #expect(context.noted("deduping more") == "A=error B=error C=#2 downloads=2 | banner+header: atOnce=2 took=10ms")
        #expect(context.noted("racy letter") == "B")
    }

    // MARK: 3. check-then-act

    @Test("check, await, act overdraws; read, await, write back loses an update; checking again after the await never breaks the rule")
    func checkThenAct() async throws {
        let context = try await run(scenario("check-then-act"))
        #expect(context.noted("check then act outcomes") == "A=true B=false balance=20 | A=true B=true balance=-10")
        #expect(context.noted("write back outcomes") == "A=true B=false balance=20 | A=true B=true balance=70")
        #expect(context.noted("safe outcomes") == "A=true B=false balance=20")
        #expect(context.noted("safe exhausted") == "true")
    }

    // MARK: 4. actor-is-not-a-flow-lock

    @Test("the callback version and the actor without a refresh in flight both can refresh twice; with the refresh in flight, once — per instance")
    func actorIsNotAFlowLock() async throws {
        let context = try await run(scenario("actor-is-not-a-flow-lock"))
        let twice = "refreshes=1 A=v2 B=v2 | refreshes=2 A=v2 B=v3"
        #expect(context.noted("callbacks outcomes") == twice)
        #expect(context.noted("actor outcomes") == twice)
        #expect(context.noted("in flight outcomes") == "refreshes=1 A=v2 B=v2")
        #expect(context.noted("per tab outcomes")?.contains("refreshes=2 A=v2 B=v3") == true)
        #expect(context.noted("callbacks uncontrolled") == nil)
    }

    // MARK: 5. main-actor-presentation

    @Test("overwriting the task lets the flows interleave: a screen is refused and its flow stuck; queued flows never are")
    func presentation() async throws {
        let context = try await run(scenario("main-actor-presentation"))
        let outcomes = context.noted("overwritten outcomes") ?? ""
        #expect(outcomes.contains("refused=rankup2 stuck=1"))
        #expect(outcomes.contains("refused=reward1 stuck=1"))
        #expect(context.noted("queued outcomes") == "shown=rankup1,reward1,rankup2,reward2 refused=none stuck=0")
        #expect(context.noted("overwritten uncontrolled") == nil)
    }

    // MARK: 6. stale-results

    @Test("the older query's results can win; keeping the search and dropping stale results never lets them; a double tap loads twice unless it joins")
    func staleResults() async throws {
        let context = try await run(scenario("stale-results"))
        #expect(context.noted("stale search outcomes") == "query=swift results=sw | query=swift results=swift")
        #expect(context.noted("latest search outcomes") == "query=swift results=swift")
        #expect(context.noted("double tap outcomes")?.contains("loads=2 isLoading@14ms=false") == true)
        #expect(context.noted("joined tap outcomes") == "loads=1 isLoading@14ms=false")
    }

    // MARK: 7. non-actor-reentrancy

    @Test("sync onto the current serial queue stops the child; a global queue's sync finishes; the recursive lock shows 90; gates held across await deadlock, actors do not")
    func nonActorReentrancy() async throws {
        let context = try await run(scenario("non-actor-reentrancy"))
        #expect(context.noted("child termination")?.hasPrefix("signalled") == true)
        #expect(context.noted("global sync finished") == "true")
        #expect(context.noted("recursive lock total") == "90")
        #expect(context.noted("recursive lock final") == "100")
        #expect(context.noted("non-reentrant outcomes")?.hasPrefix("deadlock: ") == true)
        #expect(context.noted("actors outcomes") == "A=done B=done")
        #expect(context.noted("actors exhausted") == "true")
    }

    // MARK: 8. when-reentrancy-is-not-wanted

    @Test("the reentrant saver uploads two at once and may leave d1; state first, a chain and a stream upload one at a time and end with d2")
    func oneAtATime() async throws {
        let context = try await run(scenario("when-reentrancy-is-not-wanted"))
        #expect(context.noted("reentrant outcomes") == "atOnce=2 server=d1 | atOnce=2 server=d2")
        for key in ["coalescing", "chained", "stream"] {
            #expect(context.noted("\(key) outcomes") == "atOnce=1 server=d2", "\(key)")
            #expect(context.noted("\(key) exhausted") == "true", "\(key)")
        }
    }

    // MARK: Games

    @Test("every game can be lost within two preemptions", arguments: Chapter08.chapter.games.map(\.slug))
    func gamesCanBeLost(_ slug: String) async {
        let game = Chapter08.chapter.games.first { $0.slug == slug }!
        #expect(await firstForbidden(game) != nil)
    }

    /// Games 5 and 8 cannot be won: their racy code breaks the rule in every schedule.
    static let winnable = Chapter08.chapter.games.map(\.slug).filter { !["main-actor-presentation", "when-reentrancy-is-not-wanted"].contains($0) }

    @Test("games 5 and 8 break the rule in every schedule within two preemptions",
          arguments: ["main-actor-presentation", "when-reentrancy-is-not-wanted"])
    func gamesThatCannotBeWon(_ slug: String) async {
        let game = Chapter08.chapter.games.first { $0.slug == slug }!
        let won = await explored(.exhaustive(maxPreemptions: 2)) {
            let outcome = try await game.body()
            if game.classify(outcome) == .acceptable { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(won.failure == nil && won.exhausted)
    }

    @Test("every other game can be won: some schedule ends in an acceptable outcome", arguments: winnable)
    func gamesCanBeWon(_ slug: String) async {
        let game = Chapter08.chapter.games.first { $0.slug == slug }!
        // Runs A (or the first task ready) as far as it goes before anyone else: no interleaving.
        let report = await onDedicatedThread {
            Explorer.play(choose: { point in point.ready.firstIndex { $0.who.description == "A" } ?? point.ready.count - 1 }, game.body)
        }
        let won = await explored(.exhaustive(maxPreemptions: 2)) {
            let outcome = try await game.body()
            if game.classify(outcome) == .acceptable { throw InvariantViolation(outcome) }
            return outcome
        }
        let acceptableByHand = !report.outcome.isFailure && game.classify(report.outcomeText) == .acceptable
        #expect(acceptableByHand || won.failure.map { $0.outcome.description.hasPrefix("failed: ") } == true,
                "no acceptable schedule found for \(slug)")
    }

    @Test("the token a scenario prints replays its game to the forbidden outcome",
          arguments: [("token-refresh", "as it happened", 1), ("image-cache", "racy", 2), ("check-then-act", "check then act", 3),
                      ("actor-is-not-a-flow-lock", "actor", 4), ("main-actor-presentation", "overwritten", 5),
                      ("stale-results", "stale search", 6), ("non-actor-reentrancy", "non-reentrant", 7),
                      ("when-reentrancy-is-not-wanted", "reentrant", 8)])
    func tokensReplay(_ slug: String, _ key: String, _ number: Int) async throws {
        let context = try await run(scenario(slug))
        let token = try #require(ReplayToken(context.noted("\(key) token") ?? ""))
        let game = Chapter08.chapter.games[number - 1]
        let report = await Explorer.replay(token, game.body)
        #expect(report.outcome.isFailure || game.classify(report.outcomeText) == .forbidden, "\(report.outcomeText)")
    }
}
