import Testing
import WorkbookChecks

@Suite("AsyncOperationCheck rejects")
struct AsyncOperationCheckRejects {
    @Test("a plain main() that returns before the work is done, as a dependant starting early")
    func returnsEarly() { expect(AsyncOperationCheck.run { ReturnsEarlyOperation(work: $0) }, toBreak: AsyncOperationCheck.dependantWaits) }

    @Test("state changes without key-value notifications, as a queue that never learns")
    func silentState() { expect(AsyncOperationCheck.run({ SilentStateOperation(work: $0) }, options: shortDeadline), toBreak: AsyncOperationCheck.dependantStarts) }

    @Test("running the work although cancelled before start, as ran when cancelled")
    func ignoresCancel() { expect(AsyncOperationCheck.run { IgnoresCancelOperation(work: $0) }, toBreak: AsyncOperationCheck.cancelledSkipsWork) }
}
