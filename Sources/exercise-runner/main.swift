import Foundation
import ExerciseKit
import Exercises
import Solutions
import WorkbookChecks
import WorkbookCore

// Runs the check of one exercise against the learner's code, in its own process, so that a
// crash or a deadlock in that code ends this process and not the test run. The exercises are
// compiled with ThreadSanitizer (see Package.swift): a data race in them stops this process
// with TSan's report, which `ExerciseChecker` turns into the verdict.
//
//   exercise-runner <Exercise> [--color] [--unicode] [--width N] [--lang en|ja]
//   exercise-runner --list
//   exercise-runner <Exercise> --reference    (the reference solution, for the workbook's own tests)
//
// Exit status: 0 done, 1 failing, 2 usage, 3 not started (the code reached `todo()`),
// 66 ThreadSanitizer stopped it.

/// The one registration list: each exercise's check, on the learner's type and on the reference.
let registrations: [CheckRegistration] = [
    .init("SafeCounter", learner: { SafeCounterCheck.run { Exercises.SafeCounter() } },
          reference: { SafeCounterCheck.run { Solutions.SafeCounter() } }),
    .init("ReadersWriters", learner: { ReadersWritersCheck.run { Exercises.ReadersWriters(storage: $0) } },
          reference: { ReadersWritersCheck.run { Solutions.ReadersWriters(storage: $0) } }),
    .init("FanOut", learner: { FanOutCheck.run { Exercises.FanOut() } },
          reference: { FanOutCheck.run { Solutions.FanOut() } }),
    .init("ImagePipeline", learner: { ImagePipelineCheck.run { Exercises.ImagePipeline() } },
          reference: { ImagePipelineCheck.run { Solutions.ImagePipeline() } }),
    .init("CooperativeCancellation", learner: { CooperativeCancellationCheck.run { Exercises.CooperativeCancellation() } },
          reference: { CooperativeCancellationCheck.run { Solutions.CooperativeCancellation() } }),
    .init("AsyncOperation", learner: { AsyncOperationCheck.run { Exercises.CallbackOperation(work: $0) } },
          reference: { AsyncOperationCheck.run { Solutions.CallbackOperation(work: $0) } }),
    .init("Worker", learner: { WorkerCheck.run { Exercises.Worker() } },
          reference: { WorkerCheck.run { Solutions.Worker() } }),
    .init("BoundedBuffer", learner: { BoundedBufferCheck.run { Exercises.BoundedBuffer(capacity: $0) } },
          reference: { BoundedBufferCheck.run { Solutions.BoundedBuffer(capacity: $0) } }),
    .init("Transfers", learner: { TransfersCheck.run { Exercises.Transfers() } },
          reference: { TransfersCheck.run { Solutions.Transfers() } }),
]

let options: RunnerOptions
do {
    options = try RunnerOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.error("exercise-runner: \(error)")
    exit(RunnerProtocol.usageExitCode)
}
if options.list {
    Console.line(registrations.map(\.id).joined(separator: "\n"))
    exit(0)
}
guard let exercise = options.exercise, let registration = registrations.first(where: { $0.id == exercise }) else {
    Console.error("usage: exercise-runner <\(registrations.map(\.id).joined(separator: "|"))> [--reference] [--color] [--unicode] [--width N] [--lang en|ja]")
    exit(RunnerProtocol.usageExitCode)
}

// The check runs on a thread of its own while the main thread serves the main queue and run
// loop: an answer may deliver its completion on `DispatchQueue.main`.
let checkThread = Thread { [options] in
    let result = options.reference ? registration.reference() : registration.learner()
    if !RaceDetector.isActive { Console.line(RunnerProtocol.raceDetectorOffMarker) }
    let code = RunnerOutput.print(result, exercise: exercise, options: options)
    exit(code)
}
checkThread.name = "check"
checkThread.stackSize = 8 << 20
checkThread.start()
while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
