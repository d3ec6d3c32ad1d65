import WorkbookChecks

/// Chapter 03's buggy variants and the property each check must name.
let variants03: [VariantRegistration] = [
    .init("Transfers.sourceFirst", "locking the source first", breaks: TransfersCheck.noLockOrderDeadlock) {
        TransfersCheck.run({ SourceFirstTransfers() }, options: shortDeadline)
    },
    .init("Transfers.oneLockAtATime", "holding one lock at a time", breaks: TransfersCheck.moneyConserved) {
        TransfersCheck.run { OneLockAtATimeTransfers() }
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

    .init("Worker.runsOnCaller", "running jobs on the caller's thread", breaks: WorkerCheck.inOrderOnOneThread) {
        WorkerCheck.run { WorkerVariant(.runsOnCaller) }
    },
    .init("Worker.finishedEarly", "finished as soon as the queue empties", breaks: WorkerCheck.finishedAfterWork) {
        WorkerCheck.run { WorkerVariant(.finishedWhenQueueEmpties) }
    },
    .init("Worker.cancelKeepsQueue", "cancel that keeps the queued jobs", breaks: WorkerCheck.nothingStartsAfterCancel) {
        WorkerCheck.run { WorkerVariant(.cancelKeepsQueue) }
    },
    .init("Worker.loopInStart", "running the job loop inside start()", breaks: .finishes) {
        WorkerCheck.run({ WorkerVariant(.loopInStart) }, options: shortDeadline)
    },
]
