import Foundation
import Testing
import WorkbookCore
@testable import ch01_gcd
@testable import ch02_operations
@testable import ch03_threads
@testable import ch04_async_await
@testable import ch05_continuations
@testable import ch06_streams
@testable import ch07_actors
@testable import ch08_reentrancy

/// Every chapter executable's chapter, in order.
let allChapters = [Chapter01.chapter, Chapter02.chapter, Chapter03.chapter, Chapter04.chapter, Chapter05.chapter, Chapter06.chapter,
                   Chapter07.chapter, Chapter08.chapter]

/// Every scenario of every chapter, named "chNN slug" for the test list.
let allScenarios: [ScenarioName] = allChapters.flatMap { chapter in
    chapter.scenarios.map { ScenarioName(chapter: chapter.number, slug: $0.slug) }
}

/// A scenario's address, readable in test output.
struct ScenarioName: CustomTestStringConvertible, Sendable {
    let chapter: Int
    let slug: String

    var scenario: Scenario { allChapters[chapter - 1].scenario(slug) }
    var testDescription: String { String(format: "ch%02d %@", chapter, slug) }
}

extension Chapter {
    /// The scenario with `slug`; stops the test run if there is none (a renamed scenario).
    func scenario(_ slug: String) -> Scenario {
        guard let scenario = scenarios.first(where: { $0.slug == slug }) else {
            preconditionFailure("chapter \(number) has no scenario \(slug)")
        }
        return scenario
    }
}

/// Runs a scenario as the REPL would, quietly, with default knobs unless overridden, in English
/// unless told otherwise.
func run(_ scenario: Scenario, knobs: [String: Int] = [:], language: Language = .en) async throws -> ScenarioContext {
    let context = ScenarioContext(language: language, seed: 1, knobs: try scenario.knobValues(knobs), output: { _ in })
    try await withScenarioSlot { try await scenario.run(context) }
    return context
}

/// How many scenarios the tests run at once in this process: one per core, plus one. Unlimited,
/// about ninety ran at once early in a test run, their tasks queued on the cooperative pool (a
/// thread per core; some scenarios block or spin theirs on purpose), and a scenario whose server
/// answers from a task waited past its 30 s.
actor ScenarioSlots {
    static let shared = ScenarioSlots(ProcessInfo.processInfo.activeProcessorCount + 1)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = max(2, count) }

    func take() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func giveBack() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// Runs `body` — scenarios, or a REPL that runs them — once a scenario slot is free; the wait
/// suspends, it does not hold a thread.
func withScenarioSlot<Value: Sendable>(_ body: () async throws -> Value) async rethrows -> Value {
    await ScenarioSlots.shared.take()
    do {
        let value = try await body()
        await ScenarioSlots.shared.giveBack()
        return value
    } catch {
        await ScenarioSlots.shared.giveBack()
        throw error
    }
}

/// Runs a built chapter executable (found beside the test bundle) with `arguments`, feeding
/// `input` on standard input, in English unless the arguments say otherwise.
/// Runs a chapter program as a child process. The wait is on a thread of its own: a test that
/// blocked a cooperative-pool thread for the seconds a program runs starved the scenarios other
/// tests run at the same time (the pool has a thread per core).
func runChapterExecutable(_ name: String, _ arguments: [String], input: String = "") async throws -> (status: Int32, standardOutput: String, standardError: String) {
    let executable = try #require(ChildProcess.sibling(named: name), "\(name) not found beside the test bundle")
    var environment = ProcessInfo.processInfo.environment
    for key in ["LC_ALL", "LC_MESSAGES", "LANG", "NO_COLOR"] { environment[key] = nil }
    environment["LANG"] = "C.UTF-8"
    let process = ChildProcess(executable: executable, arguments: arguments, environment: environment)
    let outcome = try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try process.run(timeoutSeconds: 60, input: input) }) }.start()
    }
    guard case let .exited(status) = outcome.termination else {
        Issue.record("\(name) \(arguments.joined(separator: " ")) ended with \(outcome.termination)")
        return (-1, outcome.standardOutput, outcome.standardError)
    }
    return (status, outcome.standardOutput, outcome.standardError)
}

/// `text` with every run of spaces and line breaks made one space: sentences the chapters wrap
/// to the terminal read as one line again.
func unwrapped(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
}
