import Foundation
import WorkbookCore

/// The stages of exercise 02-operations/ImagePipeline: download → decode → (thumbnail,
/// metadata) → save.
public enum PipelineStage: String, CaseIterable, Sendable {
    case download, decode, thumbnail, metadata, save

    /// The stages this one needs finished before it may start.
    public var needs: [PipelineStage] {
        switch self {
        case .download: []
        case .decode: [.download]
        case .thumbnail, .metadata: [.decode]
        case .save: [.thumbnail, .metadata]
        }
    }
}

/// Makes the operation for each stage. The check supplies it: every operation records when it
/// starts and ends, on which queue, and may be held by the check while it runs.
public final class PipelineStages: Sendable {
    public let trace: Trace
    private let hold: @Sendable (PipelineStage) -> Void
    private let made = Locked<[(stage: PipelineStage, operation: Operation)]>([])
    private let queues = Locked<[PipelineStage: ObjectIdentifier?]>([:])

    public init(trace: Trace = Trace(), hold: @escaping @Sendable (PipelineStage) -> Void = { _ in }) {
        self.trace = trace
        self.hold = hold
    }

    /// A new operation that does `stage`'s work. Make one per stage.
    public func operation(for stage: PipelineStage) -> Operation {
        let operation = BlockOperation { [self] in
            let queue = OperationQueue.current.map(ObjectIdentifier.init)
            queues.withLock { $0[stage] = queue }
            trace.begin(stage.rawValue, lane: stage.rawValue)
            hold(stage)
            trace.end(stage.rawValue, lane: stage.rawValue)
        }
        made.withLock { $0.append((stage, operation)) }
        return operation
    }

    // MARK: For the check

    /// The stages `operation(for:)` was asked for, in order.
    public var madeStages: [PipelineStage] { made.current.map(\.stage) }

    /// For each stage made once, the stages it depends on, directly or through others.
    public func transitiveNeeds() -> [PipelineStage: Set<PipelineStage>] {
        let made = made.current
        var stageOf: [ObjectIdentifier: PipelineStage] = [:]
        for (stage, operation) in made { stageOf[ObjectIdentifier(operation)] = stage }
        var direct: [PipelineStage: Set<PipelineStage>] = [:]
        for (stage, operation) in made {
            direct[stage] = Set(operation.dependencies.compactMap { stageOf[ObjectIdentifier($0)] })
        }
        var result: [PipelineStage: Set<PipelineStage>] = [:]
        for stage in direct.keys {
            var seen: Set<PipelineStage> = [], next = direct[stage] ?? []
            while let item = next.popFirst() {
                guard seen.insert(item).inserted else { continue }
                next.formUnion(direct[item] ?? [])
            }
            result[stage] = seen
        }
        return result
    }

    /// The queue each stage ran on.
    public var queueOfStage: [PipelineStage: ObjectIdentifier?] { queues.current }
}

/// Exercise 02-operations/ImagePipeline: wire the five stages with dependencies.
public protocol ImagePipelineProtocol: Sendable {
    init()
    /// Makes one operation per stage with `stages.operation(for:)`, makes each depend on the
    /// stages it needs, and adds all five to `queue` (without changing the queue's settings).
    func schedule(_ stages: PipelineStages, on queue: OperationQueue)
}
