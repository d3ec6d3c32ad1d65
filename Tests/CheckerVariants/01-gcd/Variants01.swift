import WorkbookChecks

/// Chapter 01's buggy variants and the property each check must name.
let variants01: [VariantRegistration] = [
    .init("SafeCounter.readThenWrite", "an increment that reads and writes in two blocks", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { ReadThenWriteCounter() }
    },
    .init("SafeCounter.readSyncWriteAsync", "an increment that reads with sync and writes back with async", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { ReadSyncWriteAsyncCounter() }
    },
    .init("SafeCounter.countsKnownPagesOnly", "a cheat: an atomic counter per page name a check might use, nothing for the others", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { CountsKnownPagesOnly() }
    },
    .init("SafeCounter.publishedCopy", "reads from a copy published later", breaks: SafeCounterCheck.readsSeeWrites) {
        SafeCounterCheck.run { PublishedCopyCounter() }
    },
    .init("SafeCounter.syncOntoItself", "a sync onto its own queue from inside it (libdispatch traps)", breaks: VerdictProperty.crash) {
        SafeCounterCheck.run { SyncOntoItselfCounter() }
    },
    .init("SafeCounter.neverSignalled", "an increment that blocks forever", breaks: .finishes) {
        SafeCounterCheck.run({ NeverSignalledCounter() }, options: shortDeadline)
    },
    .init("SafeCounter.countOffQueue", "count(of:) reads counts off the queue", breaks: VerdictProperty.dataRace) {
        SafeCounterCheck.run { CountOffQueueCounter() }
    },
    .init("SafeCounter.snapshotOffQueue", "snapshot() reads counts off the queue", breaks: VerdictProperty.dataRace) {
        SafeCounterCheck.run { SnapshotOffQueueCounter() }
    },
    .init("SafeCounter.newQueueEachTime", "a computed queue property: a new queue for every call", breaks: VerdictProperty.dataRace) {
        SafeCounterCheck.run { NewQueueEachTimeCounter() }
    },
    .init("SafeCounter.concurrentQueue", "a concurrent queue without barriers", breaks: VerdictProperty.dataRace) {
        SafeCounterCheck.run { ConcurrentQueueCounter() }
    },
    .init("SafeCounter.workItemBarrier", "a correct answer: a concurrent queue, increments as barrier work items", breaks: passesTheCheck) {
        SafeCounterCheck.run { WorkItemBarrierCounter() }
    },
    .init("SafeCounter.threadLocal", "counts kept per thread instead of one shared dictionary", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { ThreadLocalCounter() }
    },
    .init("SafeCounter.forgetsFirstIncrement", "an increment that adds only to a page already counted", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { ForgetsFirstIncrementCounter() }
    },
    .init("SafeCounter.dropsEveryHundredth", "an increment that drops every 100th call", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { DropsEveryHundredthCounter() }
    },
    .init("SafeCounter.forceUnwrap", "count(of:) force-unwraps: a page never seen crashes", breaks: VerdictProperty.crash) {
        SafeCounterCheck.run { ForceUnwrapCounter() }
    },
    .init("SafeCounter.countsFirstTwice", "a new page's first increment counts twice", breaks: SafeCounterCheck.noLostUpdate) {
        SafeCounterCheck.run { CountsFirstTwiceCounter() }
    },

    .init("ReadersWriters.noBarrier", "writes without a barrier", breaks: ReadersWritersCheck.writeAlone) {
        ReadersWritersCheck.run { NoBarrierStore(storage: $0) }
    },
    .init("ReadersWriters.serialQueue", "a serial queue", breaks: ReadersWritersCheck.readsOverlap) {
        ReadersWritersCheck.run { SerialQueueStore(storage: $0) }
    },
    .init("ReadersWriters.detouredWrite", "a write detoured through a global queue", breaks: ReadersWritersCheck.readAfterWrite) {
        ReadersWritersCheck.run { DetouredWriteStore(storage: $0) }
    },
    .init("ReadersWriters.delayedBarrier", "a barrier write scheduled 2 ms later with asyncAfter", breaks: ReadersWritersCheck.readAfterWrite) {
        ReadersWritersCheck.run { DelayedBarrierStore(storage: $0) }
    },
    .init("ReadersWriters.readOffQueue", "reads straight from the storage, off the queue", breaks: ReadersWritersCheck.writeAlone) {
        ReadersWritersCheck.run { ReadOffQueueStore(storage: $0) }
    },
    .init("ReadersWriters.cachedCopy", "a copy written in the barrier and read off the queue", breaks: VerdictProperty.dataRace) {
        ReadersWritersCheck.run { CachedCopyStore(storage: $0) }
    },
    .init("ReadersWriters.countsReads", "a count of reads kept in the plain read block", breaks: VerdictProperty.dataRace) {
        ReadersWritersCheck.run { CountsReadsStore(storage: $0) }
    },
    .init("ReadersWriters.countsWritesBesideBarrier", "a count of writes bumped in a plain block beside the barrier", breaks: VerdictProperty.dataRace) {
        ReadersWritersCheck.run { CountsWritesBesideBarrierStore(storage: $0) }
    },
    .init("ReadersWriters.workItemBarrier", "a correct answer: barriers as DispatchWorkItem(flags: .barrier), a write count kept on the queue", breaks: passesTheCheck) {
        ReadersWritersCheck.run { WorkItemBarrierStore(storage: $0, style: .asyncWorkItem) }
    },
    .init("ReadersWriters.barrierWithQoS", "a correct answer: async(qos:flags: .barrier), a write count kept on the queue", breaks: passesTheCheck) {
        ReadersWritersCheck.run { WorkItemBarrierStore(storage: $0, style: .asyncWithQoS) }
    },
    .init("ReadersWriters.syncWorkItemBarrier", "a correct answer: sync(execute:) of a barrier work item, a write count kept on the queue", breaks: passesTheCheck) {
        ReadersWritersCheck.run { WorkItemBarrierStore(storage: $0, style: .syncWorkItem) }
    },
    .init("ReadersWriters.globalQueueBarrier", "a barrier on a global queue, where it does nothing", breaks: ReadersWritersCheck.writeAlone) {
        ReadersWritersCheck.run { GlobalQueueBarrierStore(storage: $0) }
    },
    .init("ReadersWriters.barrierReads", "reads submitted as barriers too", breaks: ReadersWritersCheck.readsOverlap) {
        ReadersWritersCheck.run { BarrierReadsStore(storage: $0) }
    },
    .init("ReadersWriters.oneLock", "one lock around everything instead of the queue", breaks: ReadersWritersCheck.readsOverlap) {
        ReadersWritersCheck.run { OneLockStore(storage: $0) }
    },

    .init("FanOut.lastReplyInTwoSteps", "a count of replies left, checked in a second locked step", breaks: FanOutCheck.completionOnce) {
        FanOutCheck.run { TwoStepCountFanOut(.lock) }
    },
    .init("FanOut.lastReplyInTwoSyncs", "a count of replies left on a serial queue, checked in a second sync", breaks: FanOutCheck.completionOnce) {
        FanOutCheck.run { TwoStepCountFanOut(.serialQueue) }
    },
    .init("FanOut.lastReplyInOneStep", "a correct answer: a count of replies left, decided in the step that records", breaks: passesTheCheck) {
        FanOutCheck.run { TwoStepCountFanOut(.oneStep) }
    },
    .init("FanOut.noLimit", "no semaphore", breaks: FanOutCheck.withinLimit) {
        FanOutCheck.run { FanOutVariant { $0.limitsInFlight = false } }
    },
    .init("FanOut.permitAfterFetch", "the permit taken after starting each fetch (one too many in flight)", breaks: FanOutCheck.withinLimit) {
        FanOutCheck.run { FanOutVariant { $0.takesPermitAfterFetch = true } }
    },
    .init("FanOut.appendsOnArrival", "results appended as they arrive", breaks: FanOutCheck.resultsInOrder) {
        FanOutCheck.run { FanOutVariant { $0.storesByIndex = false } }
    },
    .init("FanOut.notifiesEarly", "notify registered before any enter", breaks: FanOutCheck.completionAfterAll) {
        FanOutCheck.run { FanOutVariant { $0.notifiesBeforeStarting = true } }
    },
    .init("FanOut.oneEarly", "a countdown that reaches zero one reply early", breaks: FanOutCheck.completionAfterAll) {
        FanOutCheck.run { OneEarlyFanOut() }
    },
    .init("FanOut.missingLeave", "no leave on a failed fetch", breaks: .finishes) {
        FanOutCheck.run({ FanOutVariant { $0.leavesOnFailure = false } }, options: shortDeadline)
    },
    .init("FanOut.starvedPool", "one blocking global-queue block per id, bookkeeping sent to a queue that needs a pool thread", breaks: .finishes) {
        FanOutCheck.run({ StarvedPoolFanOut() }, options: shortDeadline)
    },
    .init("FanOut.sequential", "waiting for each reply before the next fetch", breaks: FanOutCheck.usesConcurrency) {
        FanOutCheck.run { FanOutVariant { $0.waitsForEachReply = true } }
    },
    .init("FanOut.doubleCompletion", "completion called twice", breaks: FanOutCheck.completionOnce) {
        FanOutCheck.run { DoubleCompletionFanOut() }
    },
    .init("FanOut.unguardedSlots", "result slots written from several reply threads without a lock", breaks: VerdictProperty.dataRace) {
        FanOutCheck.run { UnguardedSlotsFanOut() }
    },
    .init("FanOut.guessedReplies", "results guessed instead of passed on from the replies", breaks: FanOutCheck.resultsInOrder) {
        FanOutCheck.run { GuessedRepliesFanOut() }
    },
    .init("FanOut.leaveBeforeStore", "leave() before the result is stored", breaks: FanOutCheck.resultsInOrder) {
        FanOutCheck.run { LeaveBeforeStoreFanOut() }
    },
]
