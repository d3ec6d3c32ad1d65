import WorkbookChecks

/// Chapter 02's buggy variants and the property each check must name.
let variants02: [VariantRegistration] = [
    // AsyncOperation
    /// main() returns while the work is out: the queue calls it finished too early.
    .init("AsyncOperation.returnsEarly", "a plain main() that returns before the work is done", breaks: AsyncOperationCheck.dependantWaits) {
        AsyncOperationCheck.run { ReturnsEarlyOperation(work: $0) }
    },
    /// The flags change, but no key-value notification tells the queue.
    .init("AsyncOperation.silentState", "state changes without key-value notifications", breaks: AsyncOperationCheck.dependantStarts) {
        AsyncOperationCheck.run({ SilentStateOperation(work: $0) }, options: shortDeadline)
    },
    /// Runs the work although it was cancelled before it started.
    .init("AsyncOperation.ignoresCancel", "running the work although cancelled before start", breaks: AsyncOperationCheck.cancelledSkipsWork) {
        AsyncOperationCheck.run { IgnoresCancelOperation(work: $0) }
    },
    /// Cancelled before start, returns from start() without finishing.
    .init("AsyncOperation.cancelledNeverFinishes", "a cancelled operation that never finishes", breaks: AsyncOperationCheck.cancelledSkipsWork) {
        AsyncOperationCheck.run({ FlawedAsyncOperation(.cancelledNeverFinishes, work: $0) }, options: shortDeadline)
    },
    /// Reads the flags outside the lock that guards them (a race that does not crash).
    .init("AsyncOperation.readsOutsideLock", "isExecuting and isFinished read without the lock", breaks: VerdictProperty.dataRace) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.readsOutsideLock, work: $0) }
    },
    /// Announces isFinished but never isExecuting.
    .init("AsyncOperation.executingNotAnnounced", "isExecuting changed without willChange/didChange", breaks: AsyncOperationCheck.changesAnnounced) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.executingNotAnnounced, work: $0) }
    },
    /// finish() flips the flags and is not guarded, so a second done() un-finishes it.
    .init("AsyncOperation.togglesFlags", "a finish() that toggles the flags and runs again on a second done", breaks: AsyncOperationCheck.finishesOnce) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.togglesFlags, work: $0) }
    },
    /// finish() has no once-guard: a second done() sets the same flags and announces them again.
    .init("AsyncOperation.unguardedFinish", "a finish() without a once-guard, announcing again on a second done", breaks: AsyncOperationCheck.finishesOnce) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.unguardedFinish, work: $0) }
    },
    /// finish() holds its recursive lock across the announcements: waitUntilFinished() can deadlock it.
    .init("AsyncOperation.lockAcrossAnnouncement", "a recursive lock held across willChangeValue/didChangeValue", breaks: AsyncOperationCheck.announcesUnlocked) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.lockAcrossAnnouncement, work: $0) }
    },
    /// start() reports finished without ever calling the work.
    .init("AsyncOperation.skipsWork", "an operation that finishes without running the work", breaks: AsyncOperationCheck.runsTheWork) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.skipsWork, work: $0) }
    },
    /// Becomes executing after starting the work: a work that finishes at once leaves it executing.
    .init("AsyncOperation.executingAfterWork", "executing set after the work was started", breaks: AsyncOperationCheck.stateReadsRight) {
        AsyncOperationCheck.run { FlawedAsyncOperation(.executingAfterWork, work: $0) }
    },

    // ImagePipeline
    /// save waits for thumbnail only: it may start while metadata runs.
    .init("ImagePipeline.saveTooEarly", "save waiting for thumbnail only", breaks: ImagePipelineCheck.edgesRespected) {
        ImagePipelineCheck.run { ImagePipelineVariant(.saveWaitsForThumbnailOnly) }
    },
    /// decode does not wait for download.
    .init("ImagePipeline.decodeTooEarly", "decode not waiting for download", breaks: ImagePipelineCheck.edgesRespected) {
        ImagePipelineCheck.run { ImagePipelineVariant(.noDecodeDependency) }
    },
    /// metadata chained after thumbnail: the siblings never overlap.
    .init("ImagePipeline.siblingsChained", "metadata chained after thumbnail", breaks: ImagePipelineCheck.siblingsOverlap) {
        ImagePipelineCheck.run { ImagePipelineVariant(.siblingsChained) }
    },
    /// The stages run on a queue of its own; the given queue gets one waiting block.
    .init("ImagePipeline.ownQueue", "stages on a queue of its own", breaks: ImagePipelineCheck.everyStageOnce) {
        ImagePipelineCheck.run { ImagePipelineVariant(.ownUnlimitedQueue) }
    },
    /// All five queued first, dependencies added afterwards.
    .init("ImagePipeline.dependenciesAfterQueued", "dependencies added after the operations were queued", breaks: ImagePipelineCheck.dependenciesFirst) {
        ImagePipelineCheck.run { ImagePipelineVariant(.dependenciesAfterQueued) }
    },
    /// download also depends on save: nothing can ever start.
    .init("ImagePipeline.cycle", "a dependency cycle (download depends on save)", breaks: ImagePipelineCheck.noCycle) {
        ImagePipelineCheck.run({ ImagePipelineVariant(.cycle) }, options: shortDeadline)
    },
    /// One block starts every stage itself: the stages skip the queue (and run one at a time).
    .init("ImagePipeline.runsStagesInOneBlock", "one block that starts the stages itself, in order", breaks: ImagePipelineCheck.everyStageOnce) {
        ImagePipelineCheck.run { ImagePipelineVariant(.runsStagesInOneBlock) }
    },
    /// Raises the queue's limit.
    /// No dependencies: a width-1 queue and the stages in order, instead of the arrows.
    .init("ImagePipeline.serialQueueInstead", "a width-1 queue in place of the dependencies", breaks: ImagePipelineCheck.edgesRespected) {
        ImagePipelineCheck.run { SerialQueuePipeline() }
    },
    .init("ImagePipeline.raisesLimit", "maxConcurrentOperationCount raised to 5", breaks: ImagePipelineCheck.withinLimit) {
        ImagePipelineCheck.run { ImagePipelineVariant(.raisesLimit) }
    },
    /// Never adds save to the queue: the last stage is skipped.
    .init("ImagePipeline.forgetsSave", "four of the five operations added to the queue", breaks: ImagePipelineCheck.everyStageOnce) {
        ImagePipelineCheck.run { ImagePipelineVariant(.forgetsSave) }
    },
    /// Keeps the operations in an unguarded var (a race that does not crash).
    .init("ImagePipeline.operationsInVar", "operations kept in an unguarded var of the pipeline", breaks: VerdictProperty.dataRace) {
        ImagePipelineCheck.run { OperationsInVarPipeline() }
    },

    // CooperativeCancellation
    /// The worker never looks at isCancelled.
    .init("CooperativeCancellation.neverChecks", "a worker that never checks isCancelled", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.neverChecks) }
    },
    /// The worker looks after each item: a cancel as main() begins lets item 0 through.
    .init("CooperativeCancellation.checksAfterEachItem", "a worker that checks after each item, not before", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.checksAfterEachItem) }
    },
    /// The publisher looks only at its dependencies: cancelled itself, it still publishes.
    .init("CooperativeCancellation.publisherIgnoresItself", "a publisher that checks its dependencies but not itself", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.publisherIgnoresItself) }
    },
    /// The worker looks once, before the first item.
    .init("CooperativeCancellation.checksOnce", "a worker that checks only before it starts", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.checksOnceAtStart) }
    },
    /// The worker looks only every tenth item.
    .init("CooperativeCancellation.checksEveryTenth", "a worker that checks only every tenth item", breaks: CooperativeCancellationCheck.stopsWhenCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.checksEveryTenth) }
    },
    /// The publisher ignores its dependencies' cancellation.
    .init("CooperativeCancellation.publisherIgnores", "a publisher that ignores a cancelled dependency", breaks: CooperativeCancellationCheck.dependantsSkip) {
        CooperativeCancellationCheck.run { CancellationVariant(.publisherIgnoresDependencies) }
    },
    /// The publisher looks at its first dependency only.
    .init("CooperativeCancellation.publisherChecksFirst", "a publisher that checks only its first dependency", breaks: CooperativeCancellationCheck.dependantsSkip) {
        CooperativeCancellationCheck.run { CancellationVariant(.publisherChecksFirstDependency) }
    },
    /// cancel() overridden without super: the worker stops, but nobody else learns it was cancelled.
    .init("CooperativeCancellation.cancelWithoutSuper", "a cancel() override that never calls super.cancel()", breaks: CooperativeCancellationCheck.dependantsSkip) {
        CooperativeCancellationCheck.run { CancellationVariant(.cancelWithoutSuper) }
    },
    /// The worker returns at once: nothing is processed.
    .init("CooperativeCancellation.skipsWork", "a worker that processes nothing", breaks: CooperativeCancellationCheck.completesWhenNotCancelled) {
        CooperativeCancellationCheck.run { CancellationVariant(.skipsWork) }
    },
    /// A home-made stop flag in a plain var (a race that does not crash).
    .init("CooperativeCancellation.ownFlagRace", "its own stop flag in an unguarded var, set in cancel()", breaks: VerdictProperty.dataRace) {
        CooperativeCancellationCheck.run { OwnFlagCancellation() }
    },
    /// A progress count shared by all workers in an unguarded var.
    .init("CooperativeCancellation.sharedProgressRace", "a progress count shared by the workers, unguarded", breaks: VerdictProperty.dataRace) {
        CooperativeCancellationCheck.run { SharedProgressCancellation() }
    },
]
