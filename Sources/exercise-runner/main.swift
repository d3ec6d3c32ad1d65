import Foundation
import ExerciseKit
import Exercises
import Solutions
import WorkbookChecks
import WorkbookCore

// Runs the check of one exercise against the learner's code, in its own process, so that a
// crash or a deadlock in that code ends this process and not the test run.
//
//   exercise-runner <Exercise> [--color] [--unicode] [--width N] [--lang en|ja]
//   exercise-runner --list
//   exercise-runner <Exercise> --reference    (the reference solution, for the workbook's own tests)
//
// Exit status: 0 done, 1 failing, 2 usage, 3 not started (the code reached `todo()`).

/// The learner's code, by exercise.
let checks: [String: @Sendable () -> CheckResult] = [
    "SafeCounter": { SafeCounterCheck.run { Exercises.SafeCounter() } },
    "ReadersWriters": { ReadersWritersCheck.run { Exercises.ReadersWriters(storage: $0) } },
    "FanOut": { FanOutCheck.run { Exercises.FanOut() } },
    "ImagePipeline": { ImagePipelineCheck.run { Exercises.ImagePipeline() } },
    "CooperativeCancellation": { CooperativeCancellationCheck.run { Exercises.CooperativeCancellation() } },
    "AsyncOperation": { AsyncOperationCheck.run { Exercises.CallbackOperation(work: $0) } },
    "Worker": { WorkerCheck.run { Exercises.Worker() } },
    "BoundedBuffer": { BoundedBufferCheck.run { Exercises.BoundedBuffer(capacity: $0) } },
    "Transfers": { TransfersCheck.run { Exercises.Transfers() } },
]

/// The reference solutions, the same way: the workbook's tests run them through this runner
/// too, so the learner's path is proven with a correct answer.
let referenceChecks: [String: @Sendable () -> CheckResult] = [
    "SafeCounter": { SafeCounterCheck.run { Solutions.SafeCounter() } },
    "ReadersWriters": { ReadersWritersCheck.run { Solutions.ReadersWriters(storage: $0) } },
    "FanOut": { FanOutCheck.run { Solutions.FanOut() } },
    "ImagePipeline": { ImagePipelineCheck.run { Solutions.ImagePipeline() } },
    "CooperativeCancellation": { CooperativeCancellationCheck.run { Solutions.CooperativeCancellation() } },
    "AsyncOperation": { AsyncOperationCheck.run { Solutions.CallbackOperation(work: $0) } },
    "Worker": { WorkerCheck.run { Solutions.Worker() } },
    "BoundedBuffer": { BoundedBufferCheck.run { Solutions.BoundedBuffer(capacity: $0) } },
    "Transfers": { TransfersCheck.run { Solutions.Transfers() } },
]

var arguments = Array(CommandLine.arguments.dropFirst())
var terminal = Terminal.plain
var language = Language.fromEnvironment()
var exercise: String?
var reference = false
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--list":
        Console.line(checks.keys.sorted().joined(separator: "\n"))
        exit(0)
    case "--reference": reference = true
    case "--color": terminal.usesColor = true
    case "--unicode": terminal.usesUnicode = true
    case "--width":
        guard let text = arguments.first, let width = Int(text), width > 0 else {
            Console.error("exercise-runner: --width needs a number")
            exit(RunnerProtocol.usageExitCode)
        }
        arguments.removeFirst()
        terminal.width = width
    case "--lang":
        guard let text = arguments.first, let value = Language(rawValue: text) else {
            Console.error("exercise-runner: --lang takes en or ja")
            exit(RunnerProtocol.usageExitCode)
        }
        arguments.removeFirst()
        language = value
    default:
        exercise = argument
    }
}
guard let exercise, let check = (reference ? referenceChecks : checks)[exercise] else {
    Console.error("usage: exercise-runner <\(checks.keys.sorted().joined(separator: "|"))> [--color] [--unicode] [--width N] [--lang en|ja]")
    exit(RunnerProtocol.usageExitCode)
}

switch check() {
case let .passed(properties):
    Console.line(Report.passed(exercise, properties: properties, terminal: terminal, language: language))
    Console.line("\(RunnerProtocol.verdictMarker) done")
    exit(RunnerProtocol.doneExitCode)
case let .failed(failure):
    Console.line(Report.failed(exercise, failure, terminal: terminal, language: language))
    Console.line("\(RunnerProtocol.verdictMarker) failing \(failure.property.id)")
    exit(RunnerProtocol.failingExitCode)
}
