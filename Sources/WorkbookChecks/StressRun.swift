import Foundation
import WorkbookCore

/// Runs `body` on `threads` real threads that start together, and waits for them all.
///
/// The threads wait at a gate until every one of them exists, so they really run at the same
/// time instead of one finishing before the next starts. Returns false if they did not all
/// finish within `deadlineSeconds` (the stuck threads are left behind).
func runOnThreads(_ threads: Int, deadlineSeconds: Double, _ body: @escaping @Sendable (_ thread: Int) -> Void) -> Bool {
    let ready = DispatchGroup(), gate = DispatchSemaphore(value: 0), finished = DispatchGroup()
    for index in 0..<threads {
        ready.enter()
        finished.enter()
        let thread = Thread {
            ready.leave()
            gate.wait()
            body(index)
            finished.leave()
        }
        thread.name = "check-\(index + 1)"
        thread.start()
    }
    ready.wait()
    for _ in 0..<threads { gate.signal() }
    return finished.wait(timeout: .now() + deadlineSeconds) == .success
}

/// Returns once a thread started now has run: on a busy machine that takes longer, so a window
/// measured this way grows with the load. Checks use it to give a wrong answer time to show
/// itself (a call that should block returning, a write entering) without a fixed sleep that is
/// too short under load or wasteful when idle. A new thread, not a block on a global queue:
/// the check's own held work may occupy the dispatch pool.
func waitForSchedulerRound(maxSeconds: Double = 2) {
    let ran = DispatchSemaphore(value: 0)
    Thread.detachNewThread { ran.signal() }
    _ = ran.wait(timeout: .now() + maxSeconds)
}

/// Waits (at most `maxSeconds`) until a block submitted now to the default global queue has
/// started: by then GCD has handed out every block submitted to that pool before it.
func waitForPoolRound(maxSeconds: Double = 2) {
    let ran = DispatchSemaphore(value: 0)
    DispatchQueue.global().async { ran.signal() }
    _ = ran.wait(timeout: .now() + maxSeconds)
}

/// A load-adaptive observation window: one scheduler round, then `margin` seconds.
func observationWindow(margin: Double = 0.02) {
    waitForSchedulerRound()
    Thread.sleep(forTimeInterval: margin)
}
