import WorkbookChecks

/// Chapter 07's buggy variants and the property each check must name.
let variants07: [VariantRegistration] = [
    // BankAccountActor
    .init("BankAccountActor.racyClass", "the starting class as it is: @unchecked Sendable, no lock", breaks: VerdictProperty.dataRace) {
        BankAccountActorCheck.run(RacyClass.self)
    },
    .init("BankAccountActor.lockedDepositsOnly", "a lock around deposits, withdrawals unlocked", breaks: VerdictProperty.dataRace) {
        BankAccountActorCheck.run(LockedDepositsOnly.self)
    },
    .init("BankAccountActor.withdrawAwaitsApproval", "an actor whose withdraw checks, awaits an approval, then takes", breaks: BankAccountActorCheck.overdrawn) {
        BankAccountActorCheck.run(WithdrawAwaitsApproval.self)
    },
    .init("BankAccountActor.transferChecksThenAwaits", "transfer checks, awaits the other deposit, then takes", breaks: BankAccountActorCheck.overdrawn) {
        BankAccountActorCheck.run(TransferChecksThenAwaits.self)
    },
    .init("BankAccountActor.transferWithoutCheck", "transfer takes the money whatever the balance", breaks: BankAccountActorCheck.overdrawn) {
        BankAccountActorCheck.run(TransferWithoutCheck.self)
    },
    .init("BankAccountActor.withdrawInTask", "withdraw takes the money in a Task {} created inside the actor method", breaks: BankAccountActorCheck.overdrawn) {
        BankAccountActorCheck.run(WithdrawInTask.self)
    },
    .init("BankAccountActor.transferDepositsInTask", "transfer sends the other deposit off in a Task {} created inside the actor method", breaks: BankAccountActorCheck.appliedOnReturn) {
        BankAccountActorCheck.run(TransferDepositsInTask.self)
    },
    .init("BankAccountActor.transferDepositsDetached", "transfer sends the other deposit off in a Task.detached", breaks: BankAccountActorCheck.appliedOnReturn) {
        BankAccountActorCheck.run(TransferDepositsDetached.self)
    },
    .init("BankAccountActor.transferReadsThenWrites", "transfer reads the other balance, then writes it back plus the amount", breaks: BankAccountActorCheck.totalKept) {
        BankAccountActorCheck.run(TransferReadsThenWrites.self)
    },
    .init("BankAccountActor.refusesExactBalance", "`<` for `<=`: a withdrawal of exactly the balance is refused", breaks: BankAccountActorCheck.overdrawn) {
        BankAccountActorCheck.run(RefusesExactBalance.self)
    },
    .init("BankAccountActor.ledgerAccount", "a correct answer: a ledger of entries, the balance their sum", breaks: passesTheCheck) {
        BankAccountActorCheck.run(LedgerAccount.self)
    },
    .init("BankAccountActor.takesThenSends", "a correct answer: nonisolated lets, transfer takes before its one await", breaks: passesTheCheck) {
        BankAccountActorCheck.run(TakesThenSends.self)
    },
    // MainActorViewModel
    .init("MainActorViewModel.slidesTask", "the story's Task {} made in the completion: not on the main actor", breaks: MainActorViewModelCheck.onMainActor) {
        MainActorViewModelCheck.run { SlidesTask(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.directFromCompletion", "the screen changed straight from the completion: off the main actor in some schedules", breaks: MainActorViewModelCheck.onMainActor) {
        MainActorViewModelCheck.run { DirectFromCompletion(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.assumesMainActor", "MainActor.assumeIsolated in the completion: traps when the client answers later", breaks: VerdictProperty.crash) {
        MainActorViewModelCheck.run { AssumesMainActor(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.showsEveryAnswer", "no newest-load check: the older answer shown last", breaks: MainActorViewModelCheck.newestWins) {
        MainActorViewModelCheck.run { ShowsEveryAnswer(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.ignoresFailure", "only .success handled", breaks: MainActorViewModelCheck.failureShown) {
        MainActorViewModelCheck.run { IgnoresFailure(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.failureOffMain", "the failure shown straight from the completion", breaks: MainActorViewModelCheck.onMainActor) {
        MainActorViewModelCheck.run { FailureOffMain(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.showsTwice", "a main-actor hop and a main-queue block both show", breaks: MainActorViewModelCheck.shownOnce) {
        MainActorViewModelCheck.run { ShowsTwice(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.numbersBeforeCounting", "the load number taken before the count: no answer is the newest", breaks: MainActorViewModelCheck.shownOnce) {
        MainActorViewModelCheck.run { NumbersBeforeCounting(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.asyncWrapper", "a correct answer: an async wrapper awaited in a task that inherits the main actor", breaks: passesTheCheck) {
        MainActorViewModelCheck.run { AsyncWrapper(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.detachedMainActorRun", "a correct answer: a detached task, then MainActor.run", breaks: passesTheCheck) {
        MainActorViewModelCheck.run { DetachedMainActorRun(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.mainQueueEveryAnswer", "answers sent to the main queue, every one shown: the older answer shown last", breaks: MainActorViewModelCheck.newestWins) {
        MainActorViewModelCheck.run { MainQueueEveryAnswer(client: $0, screen: $1) }
    },
    .init("MainActorViewModel.mainQueueBlock", "a correct answer: DispatchQueue.main.async, then the newest-load check", breaks: passesTheCheck) {
        MainActorViewModelCheck.run { MainQueueBlock(client: $0, screen: $1) }
    },
    // SharedTokenStore
    .init("SharedTokenStore.storePerTab", "the starting code: a store per tab", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { StorePerTab(server: $0) }
    },
    .init("SharedTokenStore.globalStore", "one store in a global, made by the first app", breaks: Property.freshState) {
        SharedTokenStoreCheck.run { GlobalStore(server: $0) }
    },
    .init("SharedTokenStore.cachesFirstToken", "each client keeps the first token it read", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { CachesFirstToken(server: $0) }
    },
    .init("SharedTokenStore.refreshInTask", "refreshToken() starts the refresh in a Task {} and returns", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { RefreshInTask(server: $0) }
    },
    .init("SharedTokenStore.tellsOthersLater", "a store per tab; a refresh tells the others from a Task.detached", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { TellsOthersLater(server: $0) }
    },
    .init("SharedTokenStore.unlockedStore", "one class store, no lock, @unchecked Sendable", breaks: VerdictProperty.dataRace) {
        SharedTokenStoreCheck.run { UnlockedStoreApp(server: $0) }
    },
    .init("SharedTokenStore.storePerTabKept", "a store per tab, kept in a dictionary by tab", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { StorePerTabKept(server: $0) }
    },
    .init("SharedTokenStore.newStoreOnRefresh", "a refresh puts a new store in the app; older clients keep the old one", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { NewStoreOnRefresh(server: $0) }
    },
    .init("SharedTokenStore.keepsLastToken", "one store whose refresh stores whatever token came back last", breaks: SharedTokenStoreCheck.freshToken) {
        SharedTokenStoreCheck.run { KeepsLastToken(server: $0) }
    },
    .init("SharedTokenStore.ownsOneStore", "a correct answer: a final class app owns the one store", breaks: passesTheCheck) {
        SharedTokenStoreCheck.run { OwnsOneStore(server: $0) }
    },
    .init("SharedTokenStore.joinsRefreshInFlight", "a correct answer: a refresh asked for while one is in flight joins it", breaks: passesTheCheck) {
        SharedTokenStoreCheck.run { JoinsRefreshInFlight(server: $0) }
    },
    .init("SharedTokenStore.globalActorStore", "a correct answer: the app's one store isolated to a global actor", breaks: passesTheCheck) {
        SharedTokenStoreCheck.run { GlobalActorStore(server: $0) }
    },
]
