import WorkbookChecks

/// Chapter 08's buggy variants and the property each check must name.
let variants08: [VariantRegistration] = [
    // TokenRefresher
    .init("TokenRefresher.naive", "the starting code: no refresh kept, every caller asks the server", breaks: TokenRefresherCheck.freshToken) {
        TokenRefresherCheck.run { NaiveRefresher(server: $0) }
    },
    .init("TokenRefresher.slidesHalfFix", "the story's fix: refreshToken() joins the refresh, token() does not", breaks: TokenRefresherCheck.freshToken) {
        TokenRefresherCheck.run { SlidesHalfFix(server: $0) }
    },
    .init("TokenRefresher.storedAfterAwait", "the task stored only after its value came", breaks: TokenRefresherCheck.freshToken) {
        TokenRefresherCheck.run { StoredAfterAwait(server: $0) }
    },
    .init("TokenRefresher.checksThenAwaits", "an await between finding no refresh and storing one", breaks: TokenRefresherCheck.oneRefresh) {
        TokenRefresherCheck.run { ChecksThenAwaits(server: $0) }
    },
    .init("TokenRefresher.neverCleared", "the task never cleared: a failure sticks", breaks: TokenRefresherCheck.failureShared) {
        TokenRefresherCheck.run { NeverCleared(server: $0) }
    },
    .init("TokenRefresher.clearedBeforeStored", "the task cleared before the token is stored", breaks: TokenRefresherCheck.freshToken) {
        TokenRefresherCheck.run { ClearedBeforeStored(server: $0) }
    },
    .init("TokenRefresher.cancelsShared", "a waiter's cancellation cancels the shared refresh", breaks: TokenRefresherCheck.cancelStaysLocal) {
        TokenRefresherCheck.run { CancelsShared(server: $0) }
    },
    .init("TokenRefresher.refreshInCallerTask", "the refresh runs in the first caller's task", breaks: TokenRefresherCheck.cancelStaysLocal) {
        TokenRefresherCheck.run { RefreshInCallerTask(server: $0) }
    },
    .init("TokenRefresher.failureForgetsWaiters", "waiters resumed on success only: the next refresh answers them", breaks: TokenRefresherCheck.failureShared) {
        TokenRefresherCheck.run { FailureForgetsWaiters(server: $0) }
    },
    .init("TokenRefresher.cancelDropsWaiters", "a cancelled first caller drops the refresh and its waiters", breaks: Property.finishes) {
        TokenRefresherCheck.run { CancelDropsWaiters(server: $0) }
    },
    .init("TokenRefresher.remembersFailure", "a failure remembered: the next call does not retry", breaks: TokenRefresherCheck.failureShared) {
        TokenRefresherCheck.run { RemembersFailure(server: $0) }
    },
    .init("TokenRefresher.continuationWaiters", "a correct answer: continuations resumed with the refresh's result", breaks: passesTheCheck) {
        TokenRefresherCheck.run { ContinuationWaiters(server: $0) }
    },
    .init("TokenRefresher.sharedTaskHelper", "a correct answer: one helper starts or joins the task", breaks: passesTheCheck) {
        TokenRefresherCheck.run { SharedTaskHelper(server: $0) }
    },
]
