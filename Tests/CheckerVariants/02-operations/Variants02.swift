import WorkbookChecks

/// Chapter 02's buggy variants and the property each check must name.
let variants02: [VariantRegistration] = [
    .init("AsyncOperation.returnsEarly", "a plain main() that returns before the work is done", breaks: AsyncOperationCheck.dependantWaits) {
        AsyncOperationCheck.run { ReturnsEarlyOperation(work: $0) }
    },
    .init("AsyncOperation.silentState", "state changes without key-value notifications", breaks: AsyncOperationCheck.dependantStarts) {
        AsyncOperationCheck.run({ SilentStateOperation(work: $0) }, options: shortDeadline)
    },
    .init("AsyncOperation.ignoresCancel", "running the work although cancelled before start", breaks: AsyncOperationCheck.cancelledSkipsWork) {
        AsyncOperationCheck.run { IgnoresCancelOperation(work: $0) }
    },

    .init("ImagePipeline.saveTooEarly", "save waiting for thumbnail only", breaks: ImagePipelineCheck.edgesRespected) {
        ImagePipelineCheck.run { ImagePipelineVariant(.saveWaitsForThumbnailOnly) }
    },
    .init("ImagePipeline.decodeTooEarly", "decode not waiting for download", breaks: ImagePipelineCheck.edgesRespected) {
        ImagePipelineCheck.run { ImagePipelineVariant(.noDecodeDependency) }
    },
    .init("ImagePipeline.siblingsChained", "metadata chained after thumbnail", breaks: ImagePipelineCheck.siblingsOverlap) {
        ImagePipelineCheck.run { ImagePipelineVariant(.siblingsChained) }
    },
    .init("ImagePipeline.ownQueue", "stages on a queue of its own", breaks: ImagePipelineCheck.everyStageOnce) {
        ImagePipelineCheck.run { ImagePipelineVariant(.ownUnlimitedQueue) }
    },

    .init("CooperativeCancellation.neverChecks", "a worker that never checks isCancelled", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.neverChecks) }
    },
    .init("CooperativeCancellation.checksOnce", "a worker that checks only before it starts", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.checksOnceAtStart) }
    },
    .init("CooperativeCancellation.publisherIgnores", "a publisher that ignores a cancelled dependency", breaks: CooperativeCancellationCheck.dependantsSkip) {
        CooperativeCancellationCheck.run { CancellationVariant(.publisherIgnoresDependencies) }
    },
]
