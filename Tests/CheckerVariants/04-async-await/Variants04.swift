import WorkbookChecks

/// Chapter 04's buggy variants and the property each check must name.
let variants04: [VariantRegistration] = [
    // CompletionToAsync
    .init("CompletionToAsync.swallowsServerError", "`try?` on the request: offline becomes badID", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { SwallowsServerError(server: $0) }
    },
    .init("CompletionToAsync.noStatusCheck", "no status check: a 404 page fails to decode as badImage", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { NoStatusCheck(server: $0) }
    },
    .init("CompletionToAsync.everyErrorIsBadImage", "one catch that turns every failure into badImage", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { EveryErrorIsBadImage(server: $0) }
    },
    .init("CompletionToAsync.tooSmallIsBadID", "an image with no thumbnail reported as badID", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { TooSmallIsBadID(server: $0) }
    },
    .init("CompletionToAsync.cancellationBecomesBadID", "the server's error passed on, a cancellation turned into badID", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { OnlyServerErrorPassesThrough(server: $0) }
    },
    .init("CompletionToAsync.continuationMissingElse", "the old callbacks in a continuation, with the old code's missing else", breaks: CompletionToAsyncCheck.neverLeftWaiting) {
        CompletionToAsyncCheck.run { ContinuationMissingElse(server: $0) }
    },
    .init("CompletionToAsync.latestRequestOnly", "the latest request's id kept in an actor, older replies dropped as stale", breaks: CompletionToAsyncCheck.callsIndependent) {
        CompletionToAsyncCheck.run { LatestRequestOnly(server: $0) }
    },
    .init("CompletionToAsync.blocksOnSemaphore", "a semaphore waiting for the old callback inside async code", breaks: Property.finishes) {
        CompletionToAsyncCheck.run { BlocksOnSemaphore(server: $0) }
    },
    .init("CompletionToAsync.completionOnlyOnSuccess", "a handler called only when there is a thumbnail", breaks: CompletionToAsyncCheck.neverLeftWaiting) {
        CompletionToAsyncCheck.run { CompletionOnlyOnSuccess(server: $0) }
    },
    .init("CompletionToAsync.callbacksMissingReturn", "old callbacks with an if that does not return: the handler called twice", breaks: CompletionToAsyncCheck.calledOnce) {
        CompletionToAsyncCheck.run { CallbacksMissingReturn(server: $0) }
    },
    .init("CompletionToAsync.completionErrorsBecomeBadImage", "the handler gets badImage for every failure", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { CompletionErrorsBecomeBadImage(server: $0) }
    },
    .init("CompletionToAsync.sharedPendingHandler", "one handler kept in an actor, replaced by the next call's", breaks: CompletionToAsyncCheck.callsIndependent) {
        CompletionToAsyncCheck.run { SharedPendingHandler(server: $0) }
    },
    .init("CompletionToAsync.racyCache", "a cache of thumbnails in an @unchecked Sendable class: two calls write it at once", breaks: VerdictProperty.dataRace) {
        CompletionToAsyncCheck.run { RacyCache(server: $0) }
    },
    .init("CompletionToAsync.continuationsIgnoreCancel", "continuations around the callbacks, and nothing looks at the caller's cancel", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { ContinuationsIgnoreCancel(server: $0) }
    },
    .init("CompletionToAsync.continuationsDoneRight", "a correct answer: continuations around the callbacks, a detached task for the handler", breaks: passesTheCheck) {
        CompletionToAsyncCheck.run { ContinuationsDoneRight(server: $0) }
    },
    .init("CompletionToAsync.nestedIfs", "a correct answer: if-chains and a catch that rethrows", breaks: passesTheCheck) {
        CompletionToAsyncCheck.run { NestedIfs(server: $0) }
    },

    // OrderedThumbnails
    .init("OrderedThumbnails.completionOrder", "results appended in the order the loads end", breaks: OrderedThumbnailsCheck.inputOrder) {
        OrderedThumbnailsCheck.run { CompletionOrderGallery() }
    },
    .init("OrderedThumbnails.sortedByID", "the order put back by sorting on the id", breaks: OrderedThumbnailsCheck.inputOrder) {
        OrderedThumbnailsCheck.run { SortedByIDGallery() }
    },
    .init("OrderedThumbnails.unbounded", "every child added up front", breaks: OrderedThumbnailsCheck.limitRespected) {
        OrderedThumbnailsCheck.run { UnboundedGallery() }
    },
    .init("OrderedThumbnails.offByOne", "waits only when more than the limit run", breaks: OrderedThumbnailsCheck.limitRespected) {
        OrderedThumbnailsCheck.run { OffByOneGallery() }
    },
    .init("OrderedThumbnails.fromTheEnd", "a sliding window that starts the loads from the last id", breaks: OrderedThumbnailsCheck.startsInOrder) {
        OrderedThumbnailsCheck.run { FromTheEndGallery() }
    },
    .init("OrderedThumbnails.batches", "batches of maxInFlight, each waiting for its slowest load", breaks: OrderedThumbnailsCheck.slotsKeptBusy) {
        OrderedThumbnailsCheck.run { BatchesGallery() }
    },
    .init("OrderedThumbnails.oneByOne", "one load at a time in a plain loop", breaks: OrderedThumbnailsCheck.slotsKeptBusy) {
        OrderedThumbnailsCheck.run { OneByOneGallery() }
    },
    .init("OrderedThumbnails.keepsGoing", "the first error kept for the end, loads added after it", breaks: OrderedThumbnailsCheck.noStartAfterFailure) {
        OrderedThumbnailsCheck.run { KeepsGoingGallery() }
    },
    .init("OrderedThumbnails.breakWithoutCancel", "a group of Results left at the first failure without cancelAll()", breaks: OrderedThumbnailsCheck.failureCancels) {
        OrderedThumbnailsCheck.run { BreakWithoutCancelGallery() }
    },
    .init("OrderedThumbnails.swallowsFailure", "try? per load, holes closed up", breaks: OrderedThumbnailsCheck.failureThrown) {
        OrderedThumbnailsCheck.run { SwallowsFailureGallery() }
    },
    .init("OrderedThumbnails.drainsBeforeRethrow", "cancelAll, then a drain that rethrows a sibling's CancellationError", breaks: OrderedThumbnailsCheck.failureThrown) {
        OrderedThumbnailsCheck.run { DrainsBeforeRethrowGallery() }
    },
    .init("OrderedThumbnails.ignoresShortList", "the first maxInFlight started by index, fewer ids than that", breaks: VerdictProperty.crash) {
        OrderedThumbnailsCheck.run { IgnoresShortListGallery() }
    },
    .init("OrderedThumbnails.racySharedResults", "children append to a shared @unchecked Sendable list", breaks: VerdictProperty.dataRace) {
        OrderedThumbnailsCheck.run { RacySharedResults() }
    },
    .init("OrderedThumbnails.nextWhenFull", "a correct answer: group.next() when the window is full, a dictionary by index", breaks: passesTheCheck) {
        OrderedThumbnailsCheck.run { NextWhenFullGallery() }
    },
    .init("OrderedThumbnails.resultsWithCancelAll", "a correct answer: a group of Results, cancelAll at the first failure", breaks: passesTheCheck) {
        OrderedThumbnailsCheck.run { ResultsWithCancelAllGallery() }
    },

    // SequentialPresenter
    .init("SequentialPresenter.resumesRightAway", "resumed as soon as the screen is presented", breaks: SequentialPresenterCheck.waitsForDismissal) {
        SequentialPresenterCheck.run { ResumesRightAway(host: $0) }
    },
    .init("SequentialPresenter.concurrentScreens", "every screen presented from a task group", breaks: SequentialPresenterCheck.oneAtATime) {
        SequentialPresenterCheck.run { ConcurrentScreens(host: $0) }
    },
    .init("SequentialPresenter.noCancellationHandler", "checks before and after each screen, no cancellation handler", breaks: SequentialPresenterCheck.dismissesOnCancel) {
        SequentialPresenterCheck.run { NoCancellationHandler(host: $0) }
    },
    .init("SequentialPresenter.handlerResumesInstead", "a handler that resumes instead of dismissing: resumed twice", breaks: VerdictProperty.crash) {
        SequentialPresenterCheck.run { HandlerResumesInstead(host: $0) }
    },
    .init("SequentialPresenter.handlerDismissesAndResumes", "a handler that dismisses and also resumes: resumed twice", breaks: VerdictProperty.crash) {
        SequentialPresenterCheck.run { HandlerDismissesAndResumes(host: $0) }
    },
    .init("SequentialPresenter.handlerOnly", "the handler alone: a cancelled task still presents", breaks: SequentialPresenterCheck.stopsWhenCancelled) {
        SequentialPresenterCheck.run { HandlerOnly(host: $0) }
    },
    .init("SequentialPresenter.checksOnceBeforeLoop", "cancellation checked once, before the loop", breaks: SequentialPresenterCheck.stopsWhenCancelled) {
        SequentialPresenterCheck.run { ChecksOnceBeforeLoop(host: $0) }
    },
    .init("SequentialPresenter.swallowsCancellation", "try? in the loop: the call returns normally", breaks: SequentialPresenterCheck.cancellationThrown) {
        SequentialPresenterCheck.run { SwallowsCancellation(host: $0) }
    },
    .init("SequentialPresenter.noResumeWhenCancelled", "the dismiss handler resumes only when not cancelled", breaks: SequentialPresenterCheck.neverLeftWaiting) {
        SequentialPresenterCheck.run { NoResumeWhenCancelled(host: $0) }
    },
    .init("SequentialPresenter.lockedHandshake", "a correct answer: presented/cancelled flags under a lock", breaks: passesTheCheck) {
        SequentialPresenterCheck.run { LockedHandshake(host: $0) }
    },
    .init("SequentialPresenter.asksIsCancelledInHandler", "the dismiss handler resumes by Task.isCancelled, of the wrong task", breaks: SequentialPresenterCheck.cancellationThrown) {
        SequentialPresenterCheck.run { AsksIsCancelledInHandler(host: $0) }
    },
    .init("SequentialPresenter.racyHistory", "a history array appended by the dismiss handler after it resumes, and by the loop", breaks: VerdictProperty.dataRace) {
        SequentialPresenterCheck.run { RacyHistory(host: $0) }
    },
    .init("SequentialPresenter.recursiveChecked", "a correct answer: a throwing continuation, the task's own check after it, a recursive presentAll", breaks: passesTheCheck) {
        SequentialPresenterCheck.run { RecursiveChecked(host: $0) }
    },
    .init("SequentialPresenter.lockAcrossPresent", "a lock held across host.present that the handler takes too: the cancel waits for present", breaks: Property.finishes) {
        SequentialPresenterCheck.run { LockAcrossPresent(host: $0) }
    },
]
