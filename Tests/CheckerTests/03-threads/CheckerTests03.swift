import Testing
import WorkbookChecks

@Suite("TransfersCheck rejects")
struct TransfersCheckRejects {
    @Test("locking the source first, as a lock-order deadlock")
    func sourceFirst() { expect(TransfersCheck.run({ SourceFirstTransfers() }, options: shortDeadline), toBreak: TransfersCheck.noLockOrderDeadlock) }

    @Test("holding one lock at a time, as money in flight")
    func oneLockAtATime() { expect(TransfersCheck.run { OneLockAtATimeTransfers() }, toBreak: TransfersCheck.moneyConserved) }
}
