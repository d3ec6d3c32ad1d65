import WorkbookChecks

/// `breaks:` for a correct answer in another style: the check must pass it (no false alarm).
let passesTheCheck = "none"

/// Chapter 03's buggy variants and the property each check must name, then correct answers in
/// other styles that each check must pass.
let variants03: [VariantRegistration] = [
    .init("Transfers.sourceFirst", "locking the source first", breaks: TransfersCheck.noLockOrderDeadlock) {
        TransfersCheck.run({ SourceFirstTransfers() }, options: shortDeadline)
    },
    .init("Transfers.destinationFirst", "locking the destination first", breaks: TransfersCheck.noLockOrderDeadlock) {
        TransfersCheck.run({ DestinationFirstTransfers() }, options: shortDeadline)
    },
    .init("Transfers.spinsOnTry", "holding the source lock and spinning on try() for the other", breaks: TransfersCheck.noLockOrderDeadlock) {
        TransfersCheck.run({ SpinningTryTransfers() }, options: shortDeadline)
    },
    .init("Transfers.oneLockAtATime", "holding one lock at a time", breaks: TransfersCheck.moneyConserved) {
        TransfersCheck.run { OneLockAtATimeTransfers() }
    },
    .init("Transfers.releasesEarly", "releasing both locks before the deposit", breaks: VerdictProperty.dataRace) {
        TransfersCheck.run { ReleasesEarlyTransfers() }
    },
    .init("Transfers.sourceLockOnly", "changing both balances under the source's lock only", breaks: VerdictProperty.dataRace) {
        TransfersCheck.run { SourceLockOnlyTransfers() }
    },
    .init("Transfers.oneGlobalLock", "one lock of its own for every transfer, the accounts' locks never taken", breaks: TransfersCheck.changesUnderLock) {
        TransfersCheck.run { OneGlobalLockTransfers() }
    },
    .init("Transfers.doesNothing", "locking in order and moving no money", breaks: TransfersCheck.exactBalances) {
        TransfersCheck.run { DoesNothingTransfers() }
    },
    .init("Transfers.backwards", "moving the money from the destination to the source", breaks: TransfersCheck.exactBalances) {
        TransfersCheck.run { BackwardsTransfers() }
    },
    .init("Transfers.descendingOrder", "a correct answer: one global order, highest id first", breaks: passesTheCheck) {
        TransfersCheck.run { DescendingOrderTransfers() }
    },
    .init("Transfers.tryAndBackOff", "a correct answer: try the second lock, back off if it is busy", breaks: passesTheCheck) {
        TransfersCheck.run { TryAndBackOffTransfers() }
    },

    .init("BoundedBuffer.lifo", "last in, first out", breaks: BoundedBufferCheck.fifo) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .lastInFirstOut) }
    },
    .init("BoundedBuffer.takeNeverWaits", "a take that returns at once from an empty buffer", breaks: BoundedBufferCheck.takeWaits) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .takeNeverWaits) }
    },
    .init("BoundedBuffer.putNeverWaits", "a put that never waits", breaks: BoundedBufferCheck.putWaits) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .putNeverWaits) }
    },
    .init("BoundedBuffer.signal", "signal() where producers and consumers share the condition", breaks: BoundedBufferCheck.wakesTheRightWaiter) {
        BoundedBufferCheck.run({ BoundedBufferVariant(capacity: $0, mistake: .signalInsteadOfBroadcast) }, options: shortDeadline)
    },
    .init("BoundedBuffer.takeNeverWakes", "a take that wakes no waiting put", breaks: BoundedBufferCheck.wakesTheRightWaiter) {
        BoundedBufferCheck.run({ BoundedBufferVariant(capacity: $0, mistake: .takeNeverWakes) }, options: shortDeadline)
    },
    .init("BoundedBuffer.ifNotWhile", "waiting under if instead of while", breaks: BoundedBufferCheck.looksAgain) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .ifInsteadOfWhile) }
    },
    .init("BoundedBuffer.sleepPolling", "an NSLock and a millisecond's sleep between looks", breaks: BoundedBufferCheck.sleepsWhileWaiting) {
        BoundedBufferCheck.run { SleepPollingBuffer(capacity: $0) }
    },
    .init("BoundedBuffer.spinning", "unlocking and locking again in a loop instead of wait()", breaks: BoundedBufferCheck.sleepsWhileWaiting) {
        BoundedBufferCheck.run { SpinningBuffer(capacity: $0) }
    },
    .init("BoundedBuffer.peeksOutsideLock", "reading the items before taking the lock", breaks: VerdictProperty.dataRace) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .peeksOutsideLock) }
    },
    .init("BoundedBuffer.skipsTheWork", "storing nothing and making up the items", breaks: BoundedBufferCheck.everyItemOnce) {
        BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .skipsTheWork) }
    },
    .init("BoundedBuffer.ring", "a correct answer: a ring of slots, broadcast after unlocking", breaks: passesTheCheck) {
        BoundedBufferCheck.run { RingBuffer(capacity: $0) }
    },
    .init("BoundedBuffer.semaphores", "a correct answer: two counting semaphores and a lock", breaks: passesTheCheck) {
        BoundedBufferCheck.run { SemaphoreBuffer(capacity: $0) }
    },

    .init("Worker.runsOnCaller", "running jobs on the caller's thread", breaks: WorkerCheck.inOrderOnOneThread) {
        WorkerCheck.run { WorkerVariant(.runsOnCaller) }
    },
    .init("Worker.skipsTheWork", "a submit that says yes and forgets the job", breaks: WorkerCheck.inOrderOnOneThread) {
        WorkerCheck.run { WorkerVariant(.skipsTheWork) }
    },
    .init("Worker.dispatchQueue", "a serial DispatchQueue instead of a thread of its own", breaks: WorkerCheck.ownThread) {
        WorkerCheck.run { QueueWorker() }
    },
    .init("Worker.loopInStart", "running the job loop inside start()", breaks: WorkerCheck.returnsAtOnce) {
        WorkerCheck.run({ WorkerVariant(.loopInStart) }, options: shortDeadline)
    },
    .init("Worker.jobUnderLock", "running each job while holding the lock", breaks: WorkerCheck.returnsAtOnce) {
        WorkerCheck.run({ WorkerVariant(.jobUnderLock) }, options: shortDeadline)
    },
    .init("Worker.shutdownDoesNotWake", "a shutdown that wakes no idle worker", breaks: WorkerCheck.wakesIdle) {
        WorkerCheck.run({ WorkerVariant(.shutdownDoesNotWake) }, options: shortDeadline)
    },
    .init("Worker.finishedEarly", "finished as soon as the queue empties", breaks: WorkerCheck.finishedAfterWork) {
        WorkerCheck.run { WorkerVariant(.finishedWhenQueueEmpties) }
    },
    .init("Worker.cancelKeepsQueue", "cancel that keeps the queued jobs", breaks: WorkerCheck.nothingStartsAfterCancel) {
        WorkerCheck.run { WorkerVariant(.cancelKeepsQueue) }
    },
    .init("Worker.cancelIgnoredAfterShutdown", "cancel that does nothing once shutdown was called", breaks: WorkerCheck.nothingStartsAfterCancel) {
        WorkerCheck.run { WorkerVariant(.cancelIgnoredAfterShutdown) }
    },
    .init("Worker.shutdownUndoesCancel", "a shutdown after cancel that lets the queued jobs run", breaks: WorkerCheck.nothingStartsAfterCancel) {
        WorkerCheck.run { StateWorker() }
    },
    .init("Worker.joinOnce", "a join that waits for a signal given once", breaks: WorkerCheck.joinEveryTime) {
        WorkerCheck.run({ SignalOnceJoinWorker() }, options: shortDeadline)
    },
    .init("Worker.pollsForWork", "a thread that looks for work every millisecond", breaks: WorkerCheck.sleepsWhileWaiting) {
        WorkerCheck.run { WorkerVariant(.pollsForWork) }
    },
    .init("Worker.pollingJoin", "a join that sleeps a millisecond and looks again", breaks: WorkerCheck.sleepsWhileWaiting) {
        WorkerCheck.run { WorkerVariant(.pollingJoin) }
    },
    .init("Worker.joinWithIf", "a join that waits with if instead of while", breaks: WorkerCheck.joinEveryTime) {
        WorkerCheck.run { WorkerVariant(.joinWithIf) }
    },
    .init("Worker.waitsForWorkWithIf", "a thread that waits for work with if instead of while", breaks: WorkerCheck.waitsAgain) {
        WorkerCheck.run { WorkerVariant(.waitsForWorkWithIf) }
    },
    .init("Worker.isFinishedWithoutLock", "isFinished reading the flag without the lock", breaks: VerdictProperty.dataRace) {
        WorkerCheck.run { UnlockedFlagWorker() }
    },
    .init("Worker.relayJoin", "a correct answer: join on a semaphore that each joiner passes on", breaks: passesTheCheck) {
        WorkerCheck.run { SignalOnceJoinWorker(relays: true) }
    },
]
