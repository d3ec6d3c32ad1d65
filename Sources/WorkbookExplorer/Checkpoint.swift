import Dispatch
import ExplorerDispatchInterposer
/// Labels a point in code under exploration; a failure report names, for every step, the
/// checkpoints passed, and for every waiting task the last one it passed.
///
/// Outside an exploration it does nothing.
public func checkpoint(_ label: String) {
    DriverThread.current?.checkpoint(label)
}

/// Names the calling task in reports (`reader`, `refresher`) instead of `task 2`.
public func nameTask(_ name: String) {
    DriverThread.current?.nameCurrent(name)
}

/// Names the next tasks the calling code creates, in the order they are created — so a report
/// or a game names them from the moment they are ready, before their first step runs:
/// `nameNextTasks("A", "B"); async let a = …; async let b = …`.
public func nameNextTasks(_ names: String...) {
    DriverThread.current?.nameNextTasks(names)
}

/// Suspends the calling task until nothing else in the run can go on — no other job ready, no
/// timer set — so a check can count what unstructured tasks did once they are all done or
/// stuck: `fetcher.thumbnail(for: id) { calls.append($0) }; await untilQuiet()`.
/// Work from outside the run (a Dispatch callback) is not waited for. Outside an exploration
/// it returns at once.
public func untilQuiet() async {
    guard let run = DriverThread.current else { return }
    await withUnsafeContinuation { run.waitUntilQuiet($0) }
}

/// True while the calling code runs under the explorer.
public var isExploring: Bool { DriverThread.current != nil }

/// Whether the calling code runs isolated to the main actor, as the run ran it: under the
/// explorer a main-actor job runs on a lane thread, so `Thread.isMainThread` cannot tell, and
/// `MainActor.assertIsolated()` traps instead of answering. Nil outside an exploration.
public var isRunningOnMainActor: Bool? {
    guard DriverThread.current != nil else { return nil }
    return workbook_explorer_running_main_actor_job()
}

/// Suspends the calling task until the main queue has run what was queued on it so far — work
/// sent with `DispatchQueue.main.async` runs outside the run, on the main thread. Under the
/// explorer the block queued here resumes the task only once the run has nothing else to do and
/// waits for it: resumed any sooner, the task could go on without suspending, and a replay of
/// the same schedule would take other steps.
public func mainQueueDrained() async {
    let run = DriverThread.current
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        // A closure value, not a literal: Swift 6 takes a closure literal given to
        // `DispatchQueue.main.async` to be `@MainActor` and checks its isolation on entry, which
        // asks the runtime for the main executor — the explorer's hook, from the main thread.
        let resume: @Sendable () -> Void = {
            workbook_explorer_main_queue_block_waits(true)
            run?.waitUntilAwaitingForeignWork(seconds: 2)
            workbook_explorer_main_queue_block_waits(false)
            done.resume()
        }
        DispatchQueue.main.async(execute: resume)
    }
}
