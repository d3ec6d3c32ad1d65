import Testing
import WorkbookChecks

@Suite("TransfersCheck rejects")
struct TransfersCheckRejects {
    @Test("locking the source first, as a lock-order deadlock")
    func sourceFirst() { expect(TransfersCheck.run({ SourceFirstTransfers() }, options: shortDeadline), toBreak: TransfersCheck.noLockOrderDeadlock) }

    @Test("holding one lock at a time, as money in flight")
    func oneLockAtATime() { expect(TransfersCheck.run { OneLockAtATimeTransfers() }, toBreak: TransfersCheck.moneyConserved) }
}

@Suite("BoundedBufferCheck rejects")
struct BoundedBufferCheckRejects {
    @Test("last in, first out, as not FIFO")
    func lifo() { expect(BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .lastInFirstOut) }, toBreak: BoundedBufferCheck.fifo) }

    @Test("a take that returns at once from an empty buffer, as not waiting")
    func takeNeverWaits() { expect(BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .takeNeverWaits) }, toBreak: BoundedBufferCheck.takeWaits) }

    @Test("a put that never waits, as not waiting when full")
    func putNeverWaits() { expect(BoundedBufferCheck.run { BoundedBufferVariant(capacity: $0, mistake: .putNeverWaits) }, toBreak: BoundedBufferCheck.putWaits) }
}

@Suite("WorkerCheck rejects")
struct WorkerCheckRejects {
    @Test("running jobs on the caller's thread, as not the worker's thread")
    func runsOnCaller() { expect(WorkerCheck.run { WorkerVariant(.runsOnCaller) }, toBreak: WorkerCheck.inOrderOnOneThread) }

    @Test("finished as soon as the queue empties, as finished before the work")
    func finishedEarly() { expect(WorkerCheck.run { WorkerVariant(.finishedWhenQueueEmpties) }, toBreak: WorkerCheck.finishedAfterWork) }

    @Test("cancel that keeps the queued jobs, as work after cancel")
    func cancelKeepsQueue() { expect(WorkerCheck.run { WorkerVariant(.cancelKeepsQueue) }, toBreak: WorkerCheck.nothingStartsAfterCancel) }

    @Test("running the job loop inside start(), as a call that never returns")
    func loopInStart() { expect(WorkerCheck.run({ WorkerVariant(.loopInStart) }, options: shortDeadline), toBreak: .finishes) }
}
