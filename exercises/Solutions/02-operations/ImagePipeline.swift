import Foundation
import ExerciseKit

/// Reference: one operation per stage, a dependency for every arrow of the pipeline, and
/// nothing more — thumbnail and metadata only need decode, so the queue may run them together.
public final class ImagePipeline: ImagePipelineProtocol {
    public init() {}

    public func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
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
        // Any order works: dependencies, not the order of adding, decide what may start.
        queue.addOperations([save, metadata, thumbnail, decode, download], waitUntilFinished: false)
    }
}
