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

RunnerMain.run(
    program: RunnerProtocol.executableName,
    listing: registrations.map(\.id),
    checks: Dictionary(uniqueKeysWithValues: registrations.map { registration in
        (registration.id, { @Sendable (reference: Bool) -> CheckResult? in reference ? registration.reference() : registration.learner() })
    }))
