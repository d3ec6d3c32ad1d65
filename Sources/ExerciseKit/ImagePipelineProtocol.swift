import Foundation
import WorkbookCore

/// The stages of exercise 02-operations/ImagePipeline: download → decode → (thumbnail,
/// metadata) → save.
public enum PipelineStage: String, CaseIterable, Sendable {
    case download, decode, thumbnail, metadata, save
}

/// Makes the operation for each stage. The check supplies it: every operation records when it
/// starts and ends, on which queue, and may be held by the check while it runs.
///
/// Its bookkeeping runs `RaceDetector.quietly`: its locks are the check's, not the pipeline's,
/// and must not order the learner's code for ThreadSanitizer.
public final class PipelineStages: Sendable {
    public let trace: Trace
    private let hold: @Sendable (PipelineStage) -> Void
    private let waiting: @Sendable () -> Void
    private let made = Locked<[(stage: PipelineStage, operation: Operation)]>([])
    private let queues = Locked<[PipelineStage: ObjectIdentifier?]>([:])

    /// - Parameters:
    ///   - hold: called inside each stage's operation when it begins; the check may wait in it.
    ///   - waiting: called when someone waits for a stage's operation (`waitUntilFinished()`).
    public init(trace: Trace = Trace(), hold: @escaping @Sendable (PipelineStage) -> Void = { _ in },
                waiting: @escaping @Sendable () -> Void = {}) {
        self.trace = trace
        self.hold = hold
        self.waiting = waiting
    }

    /// A new operation that does `stage`'s work. Make one per stage.
    public func operation(for stage: PipelineStage) -> Operation {
        let operation = StageOperation(waiting: waiting)
        operation.addExecutionBlock { [self] in
            let queue = OperationQueue.current.map(ObjectIdentifier.init)
            RaceDetector.quietly { queues.withLock { $0[stage] = queue } }
            trace.begin(stage.rawValue, lane: stage.rawValue)
            hold(stage)
            trace.end(stage.rawValue, lane: stage.rawValue)
        }
        RaceDetector.quietly { made.withLock { $0.append((stage, operation)) } }
        return operation
    }

    // MARK: For the check

    /// The stages `operation(for:)` was asked for, in order.
    public var madeStages: [PipelineStage] { RaceDetector.quietly { made.current.map(\.stage) } }

    /// The operations made, with their stages, in order.
    public var madeOperations: [(stage: PipelineStage, operation: Operation)] { RaceDetector.quietly { made.current } }

    /// The stage `operation` was made for, if it is one of these stages' operations.
    public func stage(of operation: Operation) -> PipelineStage? {
        madeOperations.first { $0.operation === operation }?.stage
    }

    /// The queue each stage ran on.
    public var queueOfStage: [PipelineStage: ObjectIdentifier?] { RaceDetector.quietly { queues.current } }
}

/// A stage's operation: a `BlockOperation` that tells the check when someone waits for it.
private final class StageOperation: BlockOperation, @unchecked Sendable {  // `waiting` never changes
    private let waiting: @Sendable () -> Void

    init(waiting: @escaping @Sendable () -> Void) {
        self.waiting = waiting
    }

    override func waitUntilFinished() {
        waiting()
        super.waitUntilFinished()
    }
}

/// Exercise 02-operations/ImagePipeline: wire the five stages with dependencies.
public protocol ImagePipelineProtocol: Sendable {
    init()
    /// Makes one operation per stage with `stages.operation(for:)`, makes each depend on the
    /// stages it needs, and adds all five to `queue` (without changing the queue's settings).
    /// It may be called from any thread.
    func schedule(_ stages: PipelineStages, on queue: OperationQueue)
}
