import Foundation
import ExerciseKit

/// The pipeline with one mistake at a time.
struct ImagePipelineVariant: ImagePipelineProtocol {
    enum Mistake { case saveWaitsForThumbnailOnly, siblingsChained, noDecodeDependency, ownUnlimitedQueue }
    let mistake: Mistake
    init() { mistake = .saveWaitsForThumbnailOnly }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
        let download = stages.operation(for: .download)
        let decode = stages.operation(for: .decode)
        let thumbnail = stages.operation(for: .thumbnail)
        let metadata = stages.operation(for: .metadata)
        let save = stages.operation(for: .save)
        if mistake != .noDecodeDependency { decode.addDependency(download) }
        thumbnail.addDependency(decode)
        metadata.addDependency(decode)
        if mistake == .siblingsChained { metadata.addDependency(thumbnail) }
        save.addDependency(thumbnail)
        if mistake != .saveWaitsForThumbnailOnly { save.addDependency(metadata) }
        let operations = [download, decode, thumbnail, metadata, save]
        if mistake == .ownUnlimitedQueue {
            let own = OperationQueue()
            own.addOperations(operations, waitUntilFinished: false)
            queue.addOperation { own.waitUntilAllOperationsAreFinished() }
        } else {
            queue.addOperations(operations, waitUntilFinished: false)
        }
    }
}
