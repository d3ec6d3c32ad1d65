/// Exercise 03-threads/Worker: a thread of its own that runs submitted jobs one at a time, in
/// order, and can be shut down, cancelled and joined.
public protocol WorkerProtocol: Sendable {
    init()
    /// Starts the worker thread.
    func start()
    /// Queues `job` for the worker thread. Returns false, and never runs the job, once the
    /// worker has been shut down or cancelled.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool
    /// Stops accepting jobs; the jobs already accepted all run; then the thread ends.
    func shutdown()
    /// Stops accepting jobs; jobs that have not started never start; the running one (if any)
    /// finishes; then the thread ends.
    func cancel()
    /// Blocks until the worker thread has ended.
    func join()
    /// True once the worker thread has ended — after every job it will ever run.
    var isFinished: Bool { get }
}
