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
//   exercise-runner --list | --properties | --properties-markdown en|ja
//   exercise-runner <Exercise> --reference    (the reference solution, for the workbook's own tests)
//
// Exit status: 0 done, 1 failing, 2 usage, 3 not started (the code reached `todo()`),
// 66 ThreadSanitizer stopped it.

/// The one registration list: each exercise's check, on the learner's type and on the reference.
let registrations: [CheckRegistration] = [
    .init("SafeCounter", properties: SafeCounterCheck.properties, learner: { SafeCounterCheck.run { Exercises.SafeCounter() } },
          reference: { SafeCounterCheck.run { Solutions.SafeCounter() } }),
    .init("ReadersWriters", properties: ReadersWritersCheck.properties, learner: { ReadersWritersCheck.run { Exercises.ReadersWriters(storage: $0) } },
          reference: { ReadersWritersCheck.run { Solutions.ReadersWriters(storage: $0) } }),
    .init("FanOut", properties: FanOutCheck.properties, learner: { FanOutCheck.run { Exercises.FanOut() } },
          reference: { FanOutCheck.run { Solutions.FanOut() } }),
    .init("ImagePipeline", properties: ImagePipelineCheck.properties, learner: { ImagePipelineCheck.run { Exercises.ImagePipeline() } },
          reference: { ImagePipelineCheck.run { Solutions.ImagePipeline() } }),
    .init("CooperativeCancellation", properties: CooperativeCancellationCheck.properties, learner: { CooperativeCancellationCheck.run { Exercises.CooperativeCancellation() } },
          reference: { CooperativeCancellationCheck.run { Solutions.CooperativeCancellation() } }),
    .init("AsyncOperation", properties: AsyncOperationCheck.properties, learner: { AsyncOperationCheck.run { Exercises.CallbackOperation(work: $0) } },
          reference: { AsyncOperationCheck.run { Solutions.CallbackOperation(work: $0) } }),
    .init("Worker", properties: WorkerCheck.properties, learner: { WorkerCheck.run { Exercises.Worker() } },
          reference: { WorkerCheck.run { Solutions.Worker() } }),
    .init("BoundedBuffer", properties: BoundedBufferCheck.properties, learner: { BoundedBufferCheck.run { Exercises.BoundedBuffer(capacity: $0) } },
          reference: { BoundedBufferCheck.run { Solutions.BoundedBuffer(capacity: $0) } }),
    .init("Transfers", properties: TransfersCheck.properties, learner: { TransfersCheck.run { Exercises.Transfers() } },
          reference: { TransfersCheck.run { Solutions.Transfers() } }),
]

RunnerMain.run(
    program: RunnerProtocol.executableName,
    listing: registrations.map(\.id),
    properties: registrations.map { ($0.id, $0.properties) },
    checks: Dictionary(uniqueKeysWithValues: registrations.map { registration in
        (registration.id, { @Sendable (reference: Bool) -> CheckResult? in reference ? registration.reference() : registration.learner() })
    }))
