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
