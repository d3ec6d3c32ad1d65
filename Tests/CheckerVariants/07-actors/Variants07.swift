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
    .init("BankAccountActor.depositInTask", "deposit adds in a Task {} created inside the actor method", breaks: BankAccountActorCheck.appliedOnReturn) {
        BankAccountActorCheck.run(DepositInTask.self)
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
]
