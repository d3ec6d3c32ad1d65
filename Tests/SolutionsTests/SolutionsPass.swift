import Foundation
import Solutions
import Testing
import WorkbookChecks
import WorkbookCore

/// The reference solutions must pass their checks, every time.
func expectPasses(_ result: CheckResult, sourceLocation: SourceLocation = #_sourceLocation) {
    if case let .failed(failure) = result {
        Issue.record("the reference failed:\n\(Report.failed("solution", failure, terminal: .plain, language: .en))", sourceLocation: sourceLocation)
    }
}

@Suite("Reference solutions pass")
struct ReferenceSolutionsPass {
    @Test("01-gcd SafeCounter") func safeCounter() { expectPasses(SafeCounterCheck.run { SafeCounter() }) }
    @Test("01-gcd ReadersWriters") func readersWriters() { expectPasses(ReadersWritersCheck.run { ReadersWriters(storage: $0) }) }
    @Test("01-gcd FanOut") func fanOut() { expectPasses(FanOutCheck.run { FanOut() }) }
    @Test("02-operations ImagePipeline") func imagePipeline() { expectPasses(ImagePipelineCheck.run { ImagePipeline() }) }
    @Test("02-operations CooperativeCancellation") func cooperativeCancellation() { expectPasses(CooperativeCancellationCheck.run { CooperativeCancellation() }) }
    @Test("02-operations AsyncOperation") func asyncOperation() { expectPasses(AsyncOperationCheck.run { CallbackOperation(work: $0) }) }
    @Test("03-threads Worker") func worker() { expectPasses(WorkerCheck.run { Worker() }) }
    @Test("03-threads BoundedBuffer") func boundedBuffer() { expectPasses(BoundedBufferCheck.run { BoundedBuffer(capacity: $0) }) }
    @Test("03-threads Transfers") func transfers() { expectPasses(TransfersCheck.run { Transfers() }) }
}

@Suite("Reference solutions pass through exercise-runner")
struct ReferenceSolutionsThroughRunner {
    static let exercises = ["SafeCounter", "ReadersWriters", "FanOut", "ImagePipeline", "CooperativeCancellation",
                            "AsyncOperation", "Worker", "BoundedBuffer", "Transfers"]

    /// The learner's path — a child process, its exit status and output — with a correct answer.
    @Test("each reference is done in a child process", arguments: exercises)
    func throughRunner(exercise: String) throws {
        let runner = try #require(ChildProcess.sibling(named: RunnerProtocol.executableName))
        let outcome = try ChildProcess(executable: runner, arguments: [exercise, "--reference"]).run(timeoutSeconds: RunnerProtocol.timeoutSeconds)
        #expect(outcome.termination == .exited(RunnerProtocol.doneExitCode),
                "\(exercise): \(outcome.termination)\n\(outcome.standardOutput)\n\(outcome.standardError.suffix(2_000))")
    }
}
