import Foundation
import Testing
@testable import WorkbookChecks
import WorkbookCore
import WorkbookExplorer

@Suite("Replaying one explored case")
struct ReplayOptions {
    @Test("--replay takes a case number and a token, as a report prints them")
    func parses() throws {
        let options = try RunnerOptions.parse(["OrderedThumbnails", "--replay", "3:w1d:0x9"])
        #expect(options.replay?.number == 3)
        #expect(options.replay?.token == ReplayToken(choices: Array(repeating: 0, count: 9)))
    }

    @Test("a case number that is missing or zero, or a token that is not one, is a usage error", arguments: ["w1d:0x9", "0:w1d:0x9", "x:w1d:0x9", "3:nonsense", "3:"])
    func rejects(argument: String) {
        #expect(throws: RunnerOptions.UsageError.self) { try RunnerOptions.parse(["OrderedThumbnails", "--replay", argument]) }
    }
}

@Suite("A failing schedule replays alone, the same way", .workbookSelfTest)
struct ReplayRuns {
    /// Runs `variant-runner` with `arguments`, on a thread of its own (a cooperative thread
    /// blocked for the seconds a child takes starves the scenarios other tests run meanwhile);
    /// its exit code and output.
    func variantRunner(_ arguments: [String]) async throws -> (code: Int32, output: String) {
        let runner = try #require(ChildProcess.sibling(named: "variant-runner"))
        let outcome = try await onDedicatedThread { Result { try ChildProcess(executable: runner, arguments: arguments).run(timeoutSeconds: 60) } }.get()
        guard case let .exited(code) = outcome.termination else { return (-1, outcome.standardOutput) }
        return (code, outcome.standardOutput)
    }

    @Test("the case and token a report prints fail again with --replay, and a correct answer holds on them")
    func replaysTheFailure() async throws {
        let (_, report) = try await variantRunner(["OrderedThumbnails.completionOrder"])
        let line = try #require(report.split(separator: "\n").first { $0.contains("--replay ") })
        let argument = String(line.split(separator: " ").drop { $0 != "--replay" }.dropFirst().first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "`,"))
        let again = try await variantRunner(["OrderedThumbnails.completionOrder", "--replay", argument])
        #expect(again.code == RunnerProtocol.failingExitCode)
        #expect(again.output.contains("Schedule found by replay"), "\(again.output)")
        // The same property (a one-run tally no longer repeats its id in a table).
        #expect(again.output.contains("failing: results in the order asked for"), "\(again.output)")
        let correct = try await variantRunner(["OrderedThumbnails.nextWhenFull", "--replay", argument])
        #expect(correct.code == RunnerProtocol.doneExitCode)
        #expect(correct.output.contains("it holds now"), "\(correct.output)")
    }
}
