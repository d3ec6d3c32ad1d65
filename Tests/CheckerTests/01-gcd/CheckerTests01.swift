import Testing
import WorkbookChecks

@Suite("SafeCounterCheck rejects")
struct SafeCounterCheckRejects {
    @Test("an increment that reads and writes in two blocks, as a lost update")
    func readThenWrite() { expect(SafeCounterCheck.run { ReadThenWriteCounter() }, toBreak: SafeCounterCheck.noLostUpdate) }

    @Test("reads from a copy published later, as a stale read")
    func publishedCopy() { expect(SafeCounterCheck.run { PublishedCopyCounter() }, toBreak: SafeCounterCheck.readsSeeWrites) }

    @Test("an increment that blocks forever, as a deadlock")
    func neverSignalled() { expect(SafeCounterCheck.run({ NeverSignalledCounter() }, options: shortDeadline), toBreak: .finishes) }
}

@Suite("ReadersWritersCheck rejects")
struct ReadersWritersCheckRejects {
    @Test("writes without a barrier, as a write overlapping reads")
    func noBarrier() { expect(ReadersWritersCheck.run { NoBarrierStore(storage: $0) }, toBreak: ReadersWritersCheck.writeAlone) }

    @Test("a serial queue, as serialized reads")
    func serialQueue() { expect(ReadersWritersCheck.run { SerialQueueStore(storage: $0) }, toBreak: ReadersWritersCheck.readsOverlap) }

    @Test("a write detoured through a global queue, as a stale read")
    func detouredWrite() { expect(ReadersWritersCheck.run { DetouredWriteStore(storage: $0) }, toBreak: ReadersWritersCheck.readAfterWrite) }
}

@Suite("FanOutCheck rejects")
struct FanOutCheckRejects {
    @Test("no semaphore, as too many in flight")
    func noLimit() { expect(FanOutCheck.run { FanOutVariant { $0.limitsInFlight = false } }, toBreak: FanOutCheck.withinLimit) }

    @Test("results appended as they arrive, as the wrong order")
    func appendsOnArrival() { expect(FanOutCheck.run { FanOutVariant { $0.storesByIndex = false } }, toBreak: FanOutCheck.resultsInOrder) }

    @Test("notify registered before any enter, as an early completion")
    func notifiesEarly() { expect(FanOutCheck.run { FanOutVariant { $0.notifiesBeforeStarting = true } }, toBreak: FanOutCheck.completionAfterAll) }

    @Test("no leave on a failed fetch, as a deadlock")
    func missingLeave() { expect(FanOutCheck.run({ FanOutVariant { $0.leavesOnFailure = false } }, options: shortDeadline), toBreak: .finishes) }

    @Test("waiting for each reply before the next fetch, as no concurrency")
    func sequential() { expect(FanOutCheck.run { FanOutVariant { $0.waitsForEachReply = true } }, toBreak: FanOutCheck.usesConcurrency) }

    @Test("completion called twice, as more than once")
    func doubleCompletion() { expect(FanOutCheck.run { DoubleCompletionFanOut() }, toBreak: FanOutCheck.completionOnce) }
}
