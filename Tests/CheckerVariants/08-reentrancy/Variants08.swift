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
    .init("TokenRefresher.waitersByTicket", "a correct answer: waiters in a dictionary, a cancelled one leaves at once", breaks: passesTheCheck) {
        TokenRefresherCheck.run { WaitersByTicket(server: $0) }
    },
    // DedupingCache
    .init("DedupingCache.naive", "the starting code: check, await the download, store", breaks: DedupingCacheCheck.oneDownload) {
        DedupingCacheCheck.run { NaiveImageCache(server: $0) }
    },
    .init("DedupingCache.missLoggedFirst", "an await between finding no download and storing one", breaks: DedupingCacheCheck.oneDownload) {
        DedupingCacheCheck.run { MissLoggedFirst(server: $0) }
    },
    .init("DedupingCache.keepsFailedDownload", "the entry removed on success only: a failure is kept", breaks: DedupingCacheCheck.failureShared) {
        DedupingCacheCheck.run { KeepsFailedDownload(server: $0) }
    },
    .init("DedupingCache.removedBeforeCached", "the entry removed, then an await, then the image cached", breaks: DedupingCacheCheck.oneDownload) {
        DedupingCacheCheck.run { RemovedBeforeCached(server: $0) }
    },
    .init("DedupingCache.oneDownloadForAllKeys", "one download in flight for the whole cache", breaks: DedupingCacheCheck.rightImage) {
        DedupingCacheCheck.run { OneDownloadForAllKeys(server: $0) }
    },
    .init("DedupingCache.chainsEveryDownload", "every download chained after the one before, whatever its key", breaks: DedupingCacheCheck.sideBySide) {
        DedupingCacheCheck.run { ChainsEveryDownload(server: $0) }
    },
    .init("DedupingCache.failureDropsWaiters", "a failure forgets the waiting continuations", breaks: Property.finishes) {
        DedupingCacheCheck.run { FailureDropsWaiters(server: $0) }
    },
    .init("DedupingCache.overwritesWaiter", "one waiting continuation per key: a second waiter replaces the first", breaks: Property.finishes) {
        DedupingCacheCheck.run { OverwritesWaiter(server: $0) }
    },
    .init("DedupingCache.taskIsTheCache", "a correct answer: the task is the cache entry, dropped on failure", breaks: passesTheCheck) {
        DedupingCacheCheck.run { TaskIsTheCache(server: $0) }
    },
    .init("DedupingCache.continuationsByKey", "a correct answer: continuations by key, resumed with the download's result", breaks: passesTheCheck) {
        DedupingCacheCheck.run { ContinuationsByKey(server: $0) }
    },
    // SafeWithdraw
    .init("SafeWithdraw.staleRead", "the starting code: the balance read before the check, written back after it", breaks: SafeWithdrawCheck.overdrawn) {
        SafeWithdrawCheck.run { StaleReadAccount(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.checksBeforeOnly", "the balance re-read only before the fraud check", breaks: SafeWithdrawCheck.overdrawn) {
        SafeWithdrawCheck.run { ChecksBeforeOnly(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.rechecksWritesStale", "checked again after the check, but the balance written from the first read", breaks: SafeWithdrawCheck.lostUpdate) {
        SafeWithdrawCheck.run { RechecksWritesStale(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.holdsWithoutReturning", "money held before the check, not given back when refused", breaks: SafeWithdrawCheck.refusedChanged) {
        SafeWithdrawCheck.run { HoldsWithoutReturning(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.restoresOldBalance", "a refusal puts back the balance seen before, undoing a deposit", breaks: SafeWithdrawCheck.lostUpdate) {
        SafeWithdrawCheck.run { RestoresOldBalance(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.oneAtATimeOrRefuse", "a withdrawal turned away while another waits for its check", breaks: SafeWithdrawCheck.carriedOut) {
        SafeWithdrawCheck.run { OneAtATimeOrRefuse(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.debitsThenChecksFunds", "debits first, checks the funds after the check: below zero meanwhile", breaks: SafeWithdrawCheck.overdrawn) {
        SafeWithdrawCheck.run { DebitsThenChecksFunds(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.ledgerBeforeDebit", "checked again after the check, then an await before the debit", breaks: SafeWithdrawCheck.overdrawn) {
        SafeWithdrawCheck.run { LedgerBeforeDebit(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.oneHoldForAll", "one property notes the held amount for every withdrawal in flight", breaks: SafeWithdrawCheck.lostUpdate) {
        SafeWithdrawCheck.run { OneHoldForAll(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.checksAgainAfterAwait", "a correct answer: checked before and after the fraud check, debited at once", breaks: passesTheCheck) {
        SafeWithdrawCheck.run { ChecksAgainAfterAwait(balance: $0, fraudCheck: $1) }
    },
    .init("SafeWithdraw.heldInPot", "a correct answer: the money held in a separate pot during the check", breaks: passesTheCheck) {
        SafeWithdrawCheck.run { HeldInPot(balance: $0, fraudCheck: $1) }
    },
]
