import Foundation
import Testing
import WorkbookCore
import WorkbookExplorer
@testable import ch07_actors

private func scenario(_ slug: String) -> Scenario { Chapter07.chapter.scenario(slug) }

/// Explores `body` on a thread of its own (see Chapter04Tests).
private func explored(_ strategy: Explorer.Strategy, _ body: @escaping Explorer.Body) async -> Explorer.Result {
    await Explorer.explore(strategy, body)
}

@Suite("Chapter 7: actors", .workbookSelfTest)
struct Chapter07Tests {
    @Test("the scenarios and games keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter07.chapter.scenarios.map(\.slug) == [
            "racy-counter", "queue-or-actor", "what-an-actor-promises", "nonisolated-and-let", "sendable",
            "isolation-per-instance", "main-actor-types", "task-isolation-is-static", "annotate-the-bridge",
            "dynamic-checks", "xcode-26-defaults", "adoption",
        ])
        #expect(Chapter07.chapter.games.map(\.slug) == ["slides-counter", "actor-counter", "token-store-per-tab"])
    }

    @Test("every scenario runs in Japanese too", arguments: Chapter07.chapter.scenarios.map(\.slug))
    func japanese(_ slug: String) async throws {
        let context = try await run(scenario(slug), language: .ja)
        #expect(!context.trace.events.isEmpty)
    }

    // MARK: 1. racy-counter

    @Test("the slides' counter, explored: 1,2 and 2,1, and also 2,2 and 1,1; the 2,2 schedule has a replay token")
    func racyCounterExplored() async throws {
        let context = try await run(scenario("racy-counter"), knobs: ["iterations": 50])
        #expect(context.noted("explored outcomes") == "A=1 B=1 | A=1 B=2 | A=2 B=1 | A=2 B=2")
        #expect(context.noted("explored answer") == "C")
        #expect(context.noted("both 2 token")?.hasPrefix("w1") == true)
    }

    @Test("with tsan=1, ThreadSanitizer names both accesses to count in Counter.increment(), one of them at count += 1")
    func racyCounterSanitizer() async throws {
        let context = try await run(scenario("racy-counter"), knobs: ["iterations": 1, "tsan": 1])
        #expect(context.noted("tsan") == "reported")
        #expect(context.noted("tsan accesses") == "2")
        #expect(context.noted("tsan functions") == "Counter.increment() | Counter.increment()")
        #expect(context.noted("tsan lines")?.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.contains("6") == true)
    }

    @Test("the TSan report reader: kind, both accesses, their functions and lines")
    func sanitizerReportReader() {
        let report = SanitizerProbe.parse("""
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=1375)
          Modifying access of Swift variable at 0x720800000030 by thread T1:
            #0 $s7counter7CounterC9incrementSiyF /tmp/x/counter.swift (counter+0xfd311) (BuildId: ab)
            #1 $s7counteryyYbcfU_ /tmp/x/counter.swift:14:64 (counter+0xfc919) (BuildId: ab)

          Previous write of size 1 at 0x720800000030 by thread T3:
            #0 $s7counter7CounterC9incrementSiyF /tmp/x/counter.swift:6:15 (counter+0xfd335) (BuildId: ab)
            #1 $s7counteryyYbcfU0_ /tmp/x/counter.swift:15:64 (counter+0xfc919) (BuildId: ab)

          Location is heap block of size 24 at 0x720800000020 allocated by main thread:
            #0 malloc /llvm/tsan_interceptors_posix.cpp:686:5 (counter+0x79ff0) (BuildId: ab)

        SUMMARY: ThreadSanitizer: Swift access race /tmp/x/counter.swift in $s7counter7CounterC9incrementSiyF
        """, demangle: { symbols in Dictionary(uniqueKeysWithValues: symbols.map { ($0, "Counter.increment()") }) })
        #expect(report?.kind == "Swift access race")
        #expect(report?.accesses == [
            .init(what: "Modifying access of Swift variable by thread T1", function: "Counter.increment()", line: nil, calledFromLine: 14),
            .init(what: "Previous write of size 1 by thread T3", function: "Counter.increment()", line: 6, calledFromLine: 15),
        ])
    }

    // MARK: 2. queue-or-actor

    @Test("the serial queue and the actor give only 1,2 and 2,1; no explored schedule gives anything else")
    func queueOrActor() async throws {
        let context = try await run(scenario("queue-or-actor"), knobs: ["iterations": 100])
        #expect(context.noted("queue forbidden") == "0")
        #expect(context.noted("actor forbidden") == "0")
        #expect(context.noted("actor explored outcomes") == "A=1 B=2 | A=2 B=1")
        #expect(context.noted("actor explored exhausted") == "true")
    }

    // MARK: 3. what-an-actor-promises

    @Test("one job at a time; high priority jumps the queue; B runs while A is suspended; a never-resumed continuation leaves the caller waiting, a blocking job holds the actor")
    func actorPromises() async throws {
        let context = try await run(scenario("what-an-actor-promises"))
        #expect(context.noted("actor most in flight") == "1")
        #expect(Int(context.noted("class most in flight") ?? "") ?? 0 >= 2)
        #expect(context.noted("priority order") == ".high, .medium, .low 1, .low 2")
        #expect(context.noted("reentrancy log") == "A: start, B: start, B: end, A: end")
        #expect(context.noted("never resumed: still waiting") == "true")
        #expect(Int(context.noted("ping behind a blocking job ms") ?? "") ?? 0 >= 90)
    }

    // MARK: 4. nonisolated-and-let

    @Test("while the actor is busy, id and description are read at once; the balance waits for the busy job")
    func nonisolatedMembers() async throws {
        let context = try await run(scenario("nonisolated-and-let"))
        #expect(context.noted("sync line") == "account A-7 [A-7]")
        #expect(context.noted("which waited") == "B")
        #expect(context.noted("balance") == "100")
    }

    // MARK: 5. sendable

    @Test("a struct is copied, an actor shared, a Mutex counts, a sent draft comes back from its task")
    func sendable() async throws {
        let context = try await run(scenario("sendable"), knobs: ["tasks": 50])
        #expect(context.noted("struct original") == "Ann")
        #expect(context.noted("struct copies") == "50")
        #expect(context.noted("actor balance") == "50")
        #expect(context.noted("mutex hits") == "50")
        #expect(context.noted("sending result") == "notes (saved)")
    }

    // MARK: 6. isolation-per-instance

    @Test("a store per tab sends the retired v1 (401), with or without a global actor; one shared store sends v2; @AuthActor clients read it on AuthActor")
    func isolationPerInstance() async throws {
        let context = try await run(scenario("isolation-per-instance"))
        #expect(context.noted("per tab outcome") == "stores=2 token=v1 status=401")
        #expect(context.noted("shared outcome") == "stores=1 token=v2 status=200")
        #expect(context.noted("global per tab outcome") == "stores=2 token=v1 status=401")
        #expect(context.noted("global shared outcome") == "stores=1 token=v2 status=200")
        #expect(context.noted("global shared client isolation") == "AuthActor")
        #expect(context.noted("global per tab letter") == "B")
    }

    // MARK: 7. main-actor-types

    @Test("a @MainActor protocol's conformer, class, function, closure and task all run isolated to the main actor, called from a nonisolated task")
    func mainActorTypes() async throws {
        let context = try await run(scenario("main-actor-types"))
        #expect(context.noted("caller isolation") == "nil")
        #expect(context.noted("main actor isolations") == "MainActor,MainActor,MainActor,MainActor,MainActor")
    }

    // MARK: 8. task-isolation-is-static

    @Test("Task {} in a @MainActor method is on the main actor; in a nonisolated closure run from the main actor it is not, and the child's check stops it")
    func staticIsolation() async throws {
        let context = try await run(scenario("task-isolation-is-static"))
        #expect(context.noted("method task isolation") == "MainActor")
        #expect(context.noted("client closure isolation") == "nil")
        #expect(context.noted("client task isolation") == "nil")
        #expect(context.noted("title set") == "article /articles/1")
        #expect(context.noted("child termination")?.hasPrefix("signalled") == true)
        #if canImport(Glibc)
        let frames = context.noted("child frames") ?? ""
        #expect(frames.contains("swift_task_isCurrentExecutor"))
        #expect(frames.contains("preconditionIsolated"))
        #expect(frames.contains("RequestClient.request(_:seen:reply:)"))
        #endif
    }

    // MARK: 9. annotate-the-bridge

    @Test("every reply through the @MainActor bridge is on the main actor; a hop costs less than the request")
    func annotateTheBridge() async throws {
        let context = try await run(scenario("annotate-the-bridge"), knobs: ["hops": 50])
        #expect(context.noted("bridge reply isolations") == "MainActor,MainActor,MainActor")
        #expect(context.noted("hop below request") == "true")
    }

    // MARK: 10. dynamic-checks

    @Test("assumeIsolated on the main queue, the inserted checks pass there; off it, the closure's and the witness's checks stop the children")
    func dynamicChecks() async throws {
        let context = try await run(scenario("dynamic-checks"))
        #expect(context.noted("assumeIsolated isolation") == "MainActor")
        #expect(context.noted("legacy main queue isolation") == "MainActor")
        #expect(context.noted("delegate main queue isolation") == "MainActor")
        #expect(context.noted("callback child termination")?.hasPrefix("signalled") == true)
        #expect(context.noted("delegate child termination")?.hasPrefix("signalled") == true)
        #if canImport(Glibc)
        let callback = context.noted("callback child frames") ?? ""
        #expect(callback.contains("swift_task_isCurrentExecutor"))
        #expect(callback.contains("closure in LegacyFeedModel.load(_:)"))
        #expect(callback.contains("LegacyNetworkClient.fetch(_:completion:)"))
        let delegate = context.noted("delegate child frames") ?? ""
        #expect(delegate.contains("protocol witness for LegacyDownloadDelegate.downloadDidFinish(_:) in conformance DownloadScreen"))
        #endif
    }

    @Test("the crash reader: frames of the crashed thread, through the program's own")
    func crashReader() {
        let standardError = """
        *** Program crashed: Illegal instruction at 0x00007f2a2d94c2a2 ***

        Thread 2 "r-initiated-qos" crashed:

          0                  0x00007f2a2d94c2a2 _dispatch_assert_queue_fail + 82 in libdispatch.so
          1 [ra]             0x00007f2a2d94c9f7 dispatch_assert_queue.cold.1 + 102 in libdispatch.so
          2 [ra]             0x00007f2a2d956c47 dispatch_assert_queue + 118 in libdispatch.so
          3 [ra]             0x00007f2a2dbcbeaa swift_task_isCurrentExecutorWithFlags + 409 in libswift_Concurrency.so
          4 [ra]             0x0000556598d4b8ef closure #1 in closure #1 in static Chapter07.taskOffMainActor() + 318 in ch07-actors at /work/Sources/ch07-actors/StaticIsolation.swift:70:27
          5 [async] [thunk]  0x0000556598d4d230 partial apply for closure #1 in static Chapter07.taskOffMainActor() in ch07-actors
          6 [async] [system] 0x00007f2a2dbcf310 completeTaskWithClosure(swift::AsyncContext*, swift::SwiftError*) in libswift_Concurrency.so

        Backtrace took 0.02s
        """
        let crash = ChildCrash(termination: .signalled(SIGILL), standardError: standardError)
        #expect(crash.frames == [
            "_dispatch_assert_queue_fail (libdispatch.so)",
            "dispatch_assert_queue (libdispatch.so)",
            "swift_task_isCurrentExecutorWithFlags (libswift_Concurrency.so)",
            "closure in static Chapter07.taskOffMainActor() (StaticIsolation.swift:70)",
        ])
    }

    // MARK: 11. xcode-26-defaults

    #if compiler(>=6.2)
    @Test("nonisolated async runs off the main actor in Swift 6 mode, on the caller's actor with Xcode 26's defaults; @concurrent leaves it; Task {} keeps the static rule")
    func xcodeDefaults() async throws {
        let context = try await run(scenario("xcode-26-defaults"))
        #expect(context.noted("swift 6 from main") == "nil")
        #expect(context.noted("defaults from main") == "MainActor")
        #expect(context.noted("defaults from detached") == "nil")
        #expect(context.noted("concurrent from main") == "nil")
        #expect(context.noted("unannotated class") == "MainActor")
        #expect(context.noted("task in nonisolated func") == "nil")
        #expect(context.noted("task in unannotated func") == "MainActor")
    }
    #endif

    // MARK: 12. adoption

    @Test("the rollout: only the 10 % on the forgotten wrap update off the main actor; the fixed bridge and the old path never do")
    func adoption() async throws {
        let context = try await run(scenario("adoption"), knobs: ["users": 1_000])
        #expect(context.noted("off main by phase") == "0,100,0,0,0,0")
    }

    @Test("the slides' shape builds cleanly in Swift 5 mode, warns with complete checking, fails in Swift 6 mode — as recorded")
    func strictness() async {
        let results = await onDedicatedThread { Chapter07.strictnessResults() }
        #expect(results == Chapter07.strictnessSteps.map(\.recorded))
    }

    // MARK: The recorded diagnostics

    @Test("every compiler error the chapter program shows is what swiftc says of its code")
    func recordedDiagnostics() async {
        let diagnostics = Chapter07.allDiagnostics
        let outputs = await onDedicatedThread {
            diagnostics.map { diagnostic in
                let code = (diagnostic.preamble.isEmpty ? "" : diagnostic.preamble + "\n") + diagnostic.code + "\n"
                return (try? DiagnosticCompiler.typecheck(code, arguments: ["-swift-version", "6"], build: diagnostic.needsBuild).get()) ?? ""
            }
        }
        for (diagnostic, output) in zip(diagnostics, outputs) {
            for error in diagnostic.errors {
                #expect(output.contains("error: \(error)"), "\(diagnostic.code.prefix(60))…: swiftc said\n\(output.prefix(600))")
            }
            for note in diagnostic.notes {
                #expect(output.contains("note: \(note)"), "\(diagnostic.code.prefix(60))…: no note \(note)")
            }
        }
    }

    // MARK: Games

    @Test("game 1: the default schedule loses an update; a search finds both returning 2")
    func slidesCounterGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0)) { await Chapter07.slidesCounterStepped() }
        #expect(byDefault.outcomes.map(\.outcome) == ["A=1 B=1"])
        let both2 = await explored(.exhaustive(maxPreemptions: 3)) {
            let outcome = await Chapter07.slidesCounterStepped()
            if outcome == "A=2 B=2" { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(both2.failure != nil)
        #expect(Chapter07.classifyCounterPair("A=2 B=2") == .forbidden)
        #expect(Chapter07.classifyCounterPair("A=2 B=1") == .acceptable)
    }

    @Test("game 2: no schedule of the actor counter within three preemptions is forbidden")
    func actorCounterGame() async {
        let result = await explored(.exhaustive(maxPreemptions: 3)) {
            let outcome = await Chapter07.actorCounterCalls()
            if Chapter07.classifyCounterPair(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(result.failure == nil)
        #expect(Set(result.outcomes.map(\.outcome)) == ["A=1 B=2", "A=2 B=1"])
    }

    @Test("game 3: by default tab 2 starts first (acceptable); letting the refresh finish first makes it send the retired v1")
    func tokenPerTabGame() async {
        let byDefault = await explored(.exhaustive(maxPreemptions: 0)) { try await Chapter07.tabsWithOwnStores() }
        #expect(byDefault.outcomes.map(\.outcome) == ["refreshFirst=no token=v1"])
        let stale = await explored(.exhaustive(maxPreemptions: 2)) {
            let outcome = try await Chapter07.tabsWithOwnStores()
            if Chapter07.classifyTabs(outcome) == .forbidden { throw InvariantViolation(outcome) }
            return outcome
        }
        #expect(stale.failure.map { $0.outcome.description.contains("refreshFirst=yes token=v1") } == true)
    }
}
