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
    .init("CompletionToAsync.continuationsIgnoreCancel", "continuations around the callbacks, and nothing looks at the caller's cancel", breaks: CompletionToAsyncCheck.errorReachesCaller) {
        CompletionToAsyncCheck.run { ContinuationsIgnoreCancel(server: $0) }
    },
    .init("CompletionToAsync.continuationsDoneRight", "a correct answer: continuations around the callbacks, a detached task for the handler", breaks: passesTheCheck) {
        CompletionToAsyncCheck.run { ContinuationsDoneRight(server: $0) }
    },
    .init("CompletionToAsync.nestedIfs", "a correct answer: if-chains and a catch that rethrows", breaks: passesTheCheck) {
        CompletionToAsyncCheck.run { NestedIfs(server: $0) }
    },
]
