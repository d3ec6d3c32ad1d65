import Foundation
import ExerciseKit

/// The pipeline with one mistake at a time.
struct ImagePipelineVariant: ImagePipelineProtocol {
    enum Mistake {
        /// save waits for thumbnail but not for metadata.
        case saveWaitsForThumbnailOnly
        /// metadata is chained after thumbnail, so the siblings never overlap.
        case siblingsChained
        /// decode does not wait for download.
        case noDecodeDependency
        /// The stages go to a queue of its own, with no limit; the given queue only waits.
        case ownUnlimitedQueue
        /// All five are queued first, and the dependencies are added afterwards.
        case dependenciesAfterQueued
        /// download also depends on save: a cycle.
        case cycle
        /// One block on the queue starts every stage itself, in order.
        case runsStagesInOneBlock
        /// Raises the queue's limit "to be faster".
        case raisesLimit
        /// Forgets to add save to the queue.
        case forgetsSave
    }

    let mistake: Mistake
    init() { mistake = .saveWaitsForThumbnailOnly }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
        let download = stages.operation(for: .download)
        let decode = stages.operation(for: .decode)
        let thumbnail = stages.operation(for: .thumbnail)
        let metadata = stages.operation(for: .metadata)
        let save = stages.operation(for: .save)
        let operations = [download, decode, thumbnail, metadata, save]
        if mistake == .dependenciesAfterQueued { queue.addOperations(operations, waitUntilFinished: false) }
        if mistake != .noDecodeDependency { decode.addDependency(download) }
        thumbnail.addDependency(decode)
        metadata.addDependency(decode)
        if mistake == .siblingsChained { metadata.addDependency(thumbnail) }
        save.addDependency(thumbnail)
        if mistake != .saveWaitsForThumbnailOnly { save.addDependency(metadata) }
        if mistake == .cycle { download.addDependency(save) }
        switch mistake {
        case .dependenciesAfterQueued:
            break
        case .ownUnlimitedQueue:
            let own = OperationQueue()
            own.addOperations(operations, waitUntilFinished: false)
            queue.addOperation { own.waitUntilAllOperationsAreFinished() }
        case .runsStagesInOneBlock:
            queue.addOperation { for operation in operations { operation.start() } }
        case .raisesLimit:
            queue.maxConcurrentOperationCount = 5
            queue.addOperations(operations, waitUntilFinished: false)
        case .forgetsSave:
            queue.addOperations(Array(operations.dropLast()), waitUntilFinished: false)
        default:
            queue.addOperations(operations, waitUntilFinished: false)
        }
    }
}

/// Keeps its operations alive in a plain `var`, as the chapter advises, but unguarded: two
/// `schedule` calls from different threads write it without ordering.
final class OperationsInVarPipeline: ImagePipelineProtocol, @unchecked Sendable {  // deliberately racy
    private var operations: [Operation] = []

    init() {}

    func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
        let download = stages.operation(for: .download)
        let decode = stages.operation(for: .decode)
        let thumbnail = stages.operation(for: .thumbnail)
        let metadata = stages.operation(for: .metadata)
        let save = stages.operation(for: .save)
        decode.addDependency(download)
        thumbnail.addDependency(decode)
        metadata.addDependency(decode)
        save.addDependency(thumbnail)
        save.addDependency(metadata)
        operations = [download, decode, thumbnail, metadata, save]
        queue.addOperations(operations, waitUntilFinished: false)
    }
}

/// No dependencies at all: the queue narrowed to one at a time and the stages added in pipeline
/// order, trusting a width-1 queue to run them in that order (it need not).
struct SerialQueuePipeline: ImagePipelineProtocol {
    func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
        queue.maxConcurrentOperationCount = 1
        for stage in [PipelineStage.download, .decode, .thumbnail, .metadata, .save] {
            queue.addOperation(stages.operation(for: stage))
        }
    }
}
