import Testing
import WorkbookChecks

@Suite("AsyncOperationCheck rejects")
struct AsyncOperationCheckRejects {
    @Test("a plain main() that returns before the work is done, as a dependant starting early")
    func returnsEarly() { expect(AsyncOperationCheck.run { ReturnsEarlyOperation(work: $0) }, toBreak: AsyncOperationCheck.dependantWaits) }

    @Test("state changes without key-value notifications, as a queue that never learns")
    func silentState() { expect(AsyncOperationCheck.run({ SilentStateOperation(work: $0) }, options: shortDeadline), toBreak: AsyncOperationCheck.dependantStarts) }

    @Test("running the work although cancelled before start, as ran when cancelled")
    func ignoresCancel() { expect(AsyncOperationCheck.run { IgnoresCancelOperation(work: $0) }, toBreak: AsyncOperationCheck.cancelledSkipsWork) }
}

@Suite("ImagePipelineCheck rejects")
struct ImagePipelineCheckRejects {
    @Test("save waiting for thumbnail only, as a broken arrow")
    func saveTooEarly() { expect(ImagePipelineCheck.run { ImagePipelineVariant(.saveWaitsForThumbnailOnly) }, toBreak: ImagePipelineCheck.edgesRespected) }

    @Test("decode not waiting for download, as a broken arrow")
    func decodeTooEarly() { expect(ImagePipelineCheck.run { ImagePipelineVariant(.noDecodeDependency) }, toBreak: ImagePipelineCheck.edgesRespected) }

    @Test("metadata chained after thumbnail, as serialized siblings")
    func siblingsChained() { expect(ImagePipelineCheck.run { ImagePipelineVariant(.siblingsChained) }, toBreak: ImagePipelineCheck.siblingsOverlap) }

    @Test("stages on a queue of its own, as not on the given queue")
    func ownQueue() { expect(ImagePipelineCheck.run { ImagePipelineVariant(.ownUnlimitedQueue) }, toBreak: ImagePipelineCheck.everyStageOnce) }
}

@Suite("CooperativeCancellationCheck rejects")
struct CooperativeCancellationCheckRejects {
    @Test("a worker that never checks isCancelled, as work after cancel")
    func neverChecks() { expect(CooperativeCancellationCheck.run { CancellationVariant(.neverChecks) }, toBreak: CooperativeCancellationCheck.stopsWhenCancelled) }

    @Test("a worker that checks only before it starts, as work after cancel")
    func checksOnce() { expect(CooperativeCancellationCheck.run { CancellationVariant(.checksOnceAtStart) }, toBreak: CooperativeCancellationCheck.stopsWhenCancelled) }

    @Test("a publisher that ignores a cancelled dependency, as a dependant that ran")
    func publisherIgnores() { expect(CooperativeCancellationCheck.run { CancellationVariant(.publisherIgnoresDependencies) }, toBreak: CooperativeCancellationCheck.dependantsSkip) }
}
