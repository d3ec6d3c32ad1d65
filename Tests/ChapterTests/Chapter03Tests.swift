import Foundation
import Testing
import WorkbookCore
@testable import ch03_threads

private func scenario(_ slug: String) -> Scenario { Chapter03.chapter.scenario(slug) }

@Suite("Chapter 3: Thread", .workbookSelfTest)
struct Chapter03Tests {
    @Test("the scenarios keep the numbers the chapter text uses")
    func numbering() {
        #expect(Chapter03.chapter.scenarios.map(\.slug) == [
            "thread-basics", "cooperative-cancel", "sleep-and-exit", "main-thread", "thread-cost",
            "locks", "condition", "lock-order-deadlock", "why-gcd",
        ])
    }

    @Test("every started thread runs once, and finishes after its closure returns")
    func threadBasics() async throws {
        let context = try await run(scenario("thread-basics"))
        #expect(context.noted("order").map { String($0.sorted()) } == "ABC")
        #expect(context.noted("name set inside seen by the OS") == "true")
        #expect(context.noted("finished after return") == "true")
    }

    @Test("cancel() stops only the thread that polls isCancelled", arguments: [2, 8])
    func cooperativeCancel(steps: Int) async throws {
        let context = try await run(scenario("cooperative-cancel"), knobs: ["steps": steps])
        #expect(context.noted("polling steps") == "1")
        #expect(context.noted("not polling steps") == String(steps))
    }

    @Test("Thread.exit() skips the rest of the closure and its defer, leaving the lock held")
    func threadExit() async throws {
        let context = try await run(scenario("sleep-and-exit"), knobs: ["milliseconds": 2])
        #expect(context.noted("after exit ran") == "false")
        #expect(context.noted("defer ran") == "false")
        #expect(context.noted("lock free after exit") == "false")
        #expect(Double(context.noted("shortest oversleep ms") ?? "") ?? -1 >= 0)
    }

    @Test("predict 1 accepts any order of exactly the letters the run started")
    func startOrderPrediction() async throws {
        let prediction = try #require(scenario("thread-basics").prediction)
        let four = try await run(scenario("thread-basics"), knobs: ["threads": 4])
        #expect(prediction.isPossible("DCBA", after: four) && !prediction.isPossible("CBA", after: four))
        let three = try await run(scenario("thread-basics"))
        #expect(prediction.isPossible("BCA", after: three) && !prediction.isPossible("AB", after: three) && !prediction.isPossible("ABCD", after: three))
    }

    @Test("no thread the scenario made is the main thread; only the main queue's block can be")
    func mainThread() async throws {
        let context = try await run(scenario("main-thread"))
        #expect(["", "main queue"].contains(context.noted("on the main thread")))
    }

    #if os(Linux)
    /// Why main-queue work runs off the main thread under `swift test` on Linux: the test
    /// runner's main is async, the Swift runtime hands its main thread to `dispatchMain()`, and
    /// that parks it in `rt_sigsuspend` for good. A main thread that was merely busy would leave
    /// main-queue blocks waiting instead (chapter 01, scenario 4).
    @Test("under swift test on Linux the main thread is parked by dispatchMain(), and a pool thread drains the main queue")
    func testRunnerMainThreadIsParked() async throws {
        let pid = ProcessInfo.processInfo.processIdentifier
        #if arch(x86_64)
        let rtSigsuspend = "130"
        #else
        let rtSigsuspend = "133"  // aarch64
        #endif
        // The parked thread still handles the process's signals (SIGCHLD from other tests' child
        // processes), so a sample may catch it "running" between two sigsuspends; it must never
        // be seen in any other system call.
        var samples: [String] = []
        for _ in 0..<50 where !samples.contains(rtSigsuspend) {
            let syscall = try String(contentsOfFile: "/proc/self/task/\(pid)/syscall", encoding: .utf8)
            samples.append(syscall.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.map(String.init) ?? "")
            spin(microseconds: 1_000)
        }
        #expect(samples.contains(rtSigsuspend), "main thread's system calls: \(samples)")
        #expect(samples.allSatisfy { $0 == rtSigsuspend || $0 == "running" }, "main thread's system calls: \(samples)")
        let ranOnMainThread = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: Thread.isMainThread) }
        }
        #expect(!ranOnMainThread)
    }
    #endif

    @Test("a thread per task makes a thread per task; the GCD pool reuses a few")
    func threadCost() async throws {
        let context = try await run(scenario("thread-cost"), knobs: ["tasks": 100])
        #expect(context.noted("threads created") == "100")
        let pool = try #require(Int(context.noted("pool threads") ?? ""))
        #expect(pool >= 1 && pool < 100)
    }

    @Test("NSLock loses no update and deadlocks on re-entry; NSRecursiveLock re-enters")
    func locks() async throws {
        let context = try await run(scenario("locks"), knobs: ["iterations": 5_000])
        #expect(context.noted("total") == "10000")
        #expect(context.noted("NSLock re-entry") == "stuck")
        #expect(context.noted("NSRecursiveLock re-entry") == "finished")
    }

    @Test("the condition hands over every item once, in order, and the producer waits when full",
          arguments: [(1, 5), (2, 6), (4, 3)])
    func condition(capacity: Int, items: Int) async throws {
        let context = try await run(scenario("condition"), knobs: ["capacity": capacity, "items": items])
        #expect(context.noted("received in order") == "true")
        if items > capacity { #expect(Int(context.noted("full waits") ?? "") ?? 0 >= 1) }
    }

    @Test("opposite lock orders deadlock every time; one global order finishes and conserves the total")
    func lockOrdering() async throws {
        let context = try await run(scenario("lock-order-deadlock"), knobs: ["transfers": 2_000])
        #expect(context.noted("opposite order") == "deadlocked")
        #expect(context.noted("global order") == "finished")
        #expect(context.noted("total") == "200")
    }

    @Test("threads, concurrentPerform and operations each run every job once")
    func whyGCD() async throws {
        let context = try await run(scenario("why-gcd"), knobs: ["jobs": 12])
        for way in ["threads", "concurrentPerform", "operations"] {
            #expect(context.noted("\(way) each job once") == "true", "\(way)")
        }
    }
}
