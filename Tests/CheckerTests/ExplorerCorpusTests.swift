import Foundation
import Testing
@testable import WorkbookChecks
import WorkbookCore

/// The explorer corpus (`Tests/CheckerVariants/ExplorerCorpus`): bodies in the shapes chapters
/// 06–08 teach, buggy and fixed, each run by `variant-runner` as a learner's explored check runs
/// (ThreadSanitizer, with the race lane) and, unless only TSan can see its bug, by
/// `variant-runner-plain` too.
@Suite("The explorer corpus gets its verdict through both runners", .workbookSelfTest)
struct ExplorerCorpusThroughRunners {
    static let bodies = ListedCorpusBody.all()

    @Test("the corpus is there: at least 30 bodies, buggy and fixed")
    func corpusIsThere() {
        #expect(Self.bodies.count >= 30)
        #expect(Self.bodies.filter { $0.breaks == ListedVariant.passes }.count >= 15)
        #expect(Self.bodies.filter { $0.breaks != ListedVariant.passes }.count >= 15)
    }

    @Test("the body's verdict is the one expected, under ThreadSanitizer and without it", arguments: bodies)
    func verdict(body: ListedCorpusBody) async throws {
        let runner = try #require(ChildProcess.sibling(named: "variant-runner"))
        let plain = runner.deletingLastPathComponent().appendingPathComponent("variant-runner-plain")
        let underSanitizer = await onDedicatedThread { withCheckSlot { CorpusVerdict.of(body.name, runner: runner) } }
        #expect(underSanitizer.matches(body.breaks), "\(body.name) under ThreadSanitizer: \(underSanitizer), expected \(body.breaks)")
        // Without TSan's runtime a data race is invisible, so a body whose bug only TSan sees passes there.
        guard body.breaks != VerdictProperty.dataRace else { return }
        // A correct body runs without TSan only in the full self-test (`SelfTest.isFull`): CI's time
        // goes to showing that each bug is still found without it.
        guard body.breaks != ListedVariant.passes || SelfTest.isFull else { return }
        let confirmed = await onDedicatedThread { withCheckSlot { CorpusVerdict.of(body.name, runner: plain) } }
        #expect(confirmed.matches(body.breaks), "\(body.name) without ThreadSanitizer: \(confirmed), expected \(body.breaks)")
    }
}

/// A corpus body as `variant-runner --list` gives it.
struct ListedCorpusBody: Sendable, CustomTestStringConvertible {
    let name: String
    let breaks: String
    let shape: String
    var testDescription: String { "\(name) → \(breaks)" }

    static func all() -> [ListedCorpusBody] {
        guard let runner = ChildProcess.sibling(named: "variant-runner"),
              let outcome = try? ChildProcess(executable: runner, arguments: ["--list"]).run(timeoutSeconds: 20) else { return [] }
        return outcome.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, fields[1] == ListedVariant.corpusExercise else { return nil }
            return ListedCorpusBody(name: fields[0], breaks: fields[2], shape: fields[3])
        }
    }
}

/// What one run of a corpus body said: done, or the property it failed with.
enum CorpusVerdict: Equatable, CustomStringConvertible {
    case done
    case failing(String)
    case other(String)

    static func of(_ name: String, runner: URL) -> CorpusVerdict {
        guard let outcome = try? ChildProcess(executable: runner, arguments: [name], environment: ExerciseChecker.runnerEnvironment())
            .run(timeoutSeconds: RunnerProtocol.timeoutSeconds) else { return .other("could not start \(runner.path)") }
        if outcome.standardError.contains("WARNING: ThreadSanitizer: data race") || outcome.standardError.contains("WARNING: ThreadSanitizer: Swift access race") {
            return .failing(VerdictProperty.dataRace)
        }
        let marker = outcome.standardOutput.split(separator: "\n").last { $0.hasPrefix(RunnerProtocol.verdictMarker) }?
            .split(separator: " ").map(String.init) ?? []
        switch (outcome.termination, marker.count) {
        case (.exited(RunnerProtocol.doneExitCode), 2...) where marker[1] == "done": return .done
        case (.exited(RunnerProtocol.failingExitCode), 3...): return .failing(marker[2])
        default: return .other("\(outcome.termination): \(outcome.standardError.suffix(400))")
        }
    }

    func matches(_ breaks: String) -> Bool {
        breaks == ListedVariant.passes ? self == .done : self == .failing(breaks)
    }

    var description: String {
        switch self {
        case .done: "done"
        case let .failing(property): "failing \(property)"
        case let .other(text): text
        }
    }
}
