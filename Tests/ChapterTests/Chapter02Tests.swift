import Foundation
import Testing
import WorkbookCore
@testable import ch02_operations

private func scenario(_ slug: String) -> Scenario { Chapter02.chapter.scenario(slug) }

@Suite("Chapter 2: Operation dependencies", .workbookSelfTest)
struct Chapter02Tests {
    @Test("the scenarios keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter02.chapter.scenarios.map(\.slug) == [
            "subclass-vs-block", "max-concurrent", "dependency-order", "graph-across-queues", "cancel-before-and-during",
            "cancel-all", "wait-until-finished", "completion-and-priority", "async-operation", "gcd-vs-operations",
            "main-queue", "start-without-queue", "quality-of-service",
        ])
    }

    @Test("a dependency runs B before A although A was added first", arguments: 1...3)
    func dependencyReorders(attempt: Int) async throws {
        let context = try await run(scenario("dependency-order"))
        #expect(context.noted("with dependency") == "BA")
        #expect(context.noted("cycle stuck") == "true")
        #expect(context.noted("cycle mains run") == "0")
    }

    @Test("a queue never runs more operations at once than its limit", arguments: [1, 2, 4])
    func limitHolds(width: Int) async throws {
        let context = try await run(scenario("max-concurrent"), knobs: ["operations": 8, "width": width])
        #expect(context.noted("peak 1") == "1")
        let peak = try #require(Int(context.noted("peak 2") ?? ""))
        #expect(peak >= 1 && peak <= width)
    }

    @Test("every edge of the graph holds across queues, and each queue keeps its limit")
    func graphAcrossQueues() async throws {
        let context = try await run(scenario("graph-across-queues"), knobs: ["images": 4])
        #expect(context.noted("edges broken") == "0")
        #expect(Int(context.noted("network peak") ?? "") ?? 99 <= 2)
        #expect(Int(context.noted("cpu peak") ?? "") ?? 99 <= 2)
    }

    @Test("a cancelled operation skips main() and releases its dependant; cancel during main() needs polling")
    func cancellation() async throws {
        let context = try await run(scenario("cancel-before-and-during"))
        #expect(context.noted("cancelled main ran") == "false")
        #expect(context.noted("dependant ran") == "true")
        #expect(context.noted("polling steps after cancel") == "0")
        #expect(context.noted("not polling steps after cancel") == "7")
    }

    @Test("cancelAllOperations skips what has not started and stops only what checks")
    func cancelAll() async throws {
        let context = try await run(scenario("cancel-all"))
        #expect(context.noted("all cancelled and finished") == "true")
        #expect(context.noted("skipped") == "6")
        #expect(context.noted("saved after cancel") == "2")
    }

    @Test("waitUntilFinished returns only when the batch has finished")
    func waiting() async throws {
        let context = try await run(scenario("wait-until-finished"))
        #expect(context.noted("unfinished after wait") == "0")
        #expect(context.noted("unfinished after waitUntilAll") == "0")
    }

    @Test("the completion block runs after its operation; a resumed queue starts the highest priority first", arguments: 1...3)
    func completionAndPriority(attempt: Int) async throws {
        let context = try await run(scenario("completion-and-priority"))
        #expect(context.noted("completion after X") == "true")
        #expect(context.noted("suspended order") == "HNL")
    }

    @Test("main() returning early lets the dependant run too soon; start() with KVO does not")
    func asynchronousOperation() async throws {
        let context = try await run(scenario("async-operation"))
        #expect(context.noted("part 1 dependant after reply") == "false")
        #expect(context.noted("part 1 result") == "nil")
        #expect(context.noted("part 2 dependant after reply") == "true")
        #expect(context.noted("part 2 result") == "photo.jpg")
        #expect(context.noted("part 3 rescued by the notification") != "false")
    }

    @Test("GCD and operations keep the same edges; a cancelled work item and operation never run")
    func gcdVersusOperations() async throws {
        let context = try await run(scenario("gcd-vs-operations"))
        #expect(context.noted("gcd edges broken") == "0")
        #expect(context.noted("operation edges broken") == "0")
        #expect(context.noted("cancelled work item runs") == "0")
        #expect(context.noted("cancelled operation runs") == "0")
        if ChildProcess.sibling(named: "ch02-operations") != nil {
            #expect(context.noted("add twice signal") != nil || context.noted("add twice exit") != nil)
        }
    }

    @Test("all blocks of a BlockOperation end before its dependant begins")
    func blockOperation() async throws {
        let context = try await run(scenario("subclass-vs-block"), knobs: ["blocks": 4])
        #expect(context.noted("dependant after all blocks") == "true")
        #expect(context.noted("checksum") != "nil")
    }

    @Test("OperationQueue.main runs one operation at a time; current names the queue that started the operation")
    func mainQueue() async throws {
        let context = try await run(scenario("main-queue"))
        #expect(context.noted("main max") == "1")
        #expect(context.noted("caller current") == "nil")
        #expect(context.noted("own current") == "own")
        #expect(context.noted("own on main thread") == "false")
        // The test runner's main thread may not serve the main queue (Chapter02CommandLineTests
        // checks the main thread in the chapter program, whose main thread turns a run loop).
        if context.noted("main served") == "true" {
            #expect(context.noted("main ops at once") == "1")
            #expect(context.noted("main ops current is main") == "true")
        }
    }

    @Test("start() without a queue runs main() on the caller, once; an operation that is not ready is left to a queue", arguments: 1...2)
    func startWithoutQueue(attempt: Int) async throws {
        let context = try await run(scenario("start-without-queue"))
        #expect(context.noted("main() lane") == context.noted("caller"))
        #expect(context.noted("executing inside main") == "true")
        #if os(Linux)
        #expect(context.noted("current inside main") == "nil")  // observed here; Apple: not run
        #endif
        #expect(context.noted("start returned after main") == "true")
        #expect(context.noted("finished after start") == "true")
        #expect(context.noted("main runs after second start") == "1")
        #expect(context.noted("upload ready before compress") == "false")
        #expect(context.noted("queue kept compress before upload") == "true")
        if attempt == 1, ChildProcess.sibling(named: "ch02-operations") != nil {
            #if os(Linux)
            #expect(context.noted("start not ready signal") == String(SIGILL))
            #expect(context.noted("start not ready message")?.contains("receiver is not yet ready to execute") == true)
            #else
            #expect(context.noted("start not ready signal") != nil || context.noted("start not ready exit") != nil)
            #endif
        }
    }

    @Test("a queue's qualityOfService reaches its threads; on Linux an operation's own, or one set late, does not")
    func qualityOfService() async throws {
        let context = try await run(scenario("quality-of-service"))
        #expect(context.noted("Q2 queue reads") == "utility")
        #expect(context.noted("Q4 operation reads") == "utility")
        #expect(context.noted("Q5 queue reads") == "utility")
        #if os(Linux)
        // Observed here; Apple's documentation gives .background for a new queue (not run there).
        #expect(context.noted("Q1 queue reads") == "default")
        func nice(_ row: String) -> Int? { Int(context.noted("\(row) nice") ?? "") }
        let untouched = try #require(nice("Q1"))
        #expect(try #require(nice("Q2")) > untouched)
        #expect(try #require(nice("Q3")) < untouched)
        #expect(nice("Q4") == untouched)
        #expect(nice("Q5") == untouched)
        #endif
    }
}
