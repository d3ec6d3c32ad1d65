import WorkbookCore

/// A task executor that runs nothing by itself: tasks created with it as their preference queue
/// their jobs here, and the check runs them — one at a time, on its own thread, in the order it
/// chooses, even one job inside another (at a `ContinuationPoint`). Outside the explorer, for a
/// case that needs a moment inside a job rather than between jobs.
///
/// Code isolated to an actor does not come here (its jobs go to the actor); a check using this
/// executor must allow for that.
final class InlineTaskExecutor: TaskExecutor, @unchecked Sendable {  // `jobs` is guarded by its lock
    private let jobs = Locked<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Takes the oldest job queued, to run with `run(_:)`.
    func next() -> UnownedJob? {
        jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }

    /// Runs queued jobs, oldest first, until none is left.
    func drain() {
        while let job = next() { run(job) }
    }
}

