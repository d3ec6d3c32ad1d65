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
