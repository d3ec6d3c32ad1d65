import Foundation
import WorkbookCore

/// True when a block submitted now to the default global queue has not started within
/// `seconds`: every thread of the GCD pool is busy or blocked, and blocks queued behind them wait.
///
/// A check asks this when an answer stops making progress, to tell a starved pool (pool threads
/// blocked in `semaphore.wait()` while the work that would signal them needs a pool thread too)
/// from a missing `signal()` or `leave()`. Measured on Linux (Swift 6.3.1, two cores): with 16
/// blocked blocks, a new block did not start for more than ten seconds — libdispatch adds about
/// one pool thread per second, and each new thread takes the next blocked block first.
func globalPoolIsStarved(within seconds: Double = 0.5) -> Bool {
    RaceDetector.quietly {
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { RaceDetector.quietly { _ = ran.signal() } }
        return ran.wait(timeout: .now() + seconds) == .timedOut
    }
}

/// Waits until work an answer may have just queued has had its chance to run: a new thread has
/// run, a block on the default global queue has started, and a block on the main queue (served
/// by the runner's run loop) has run — each at most `maxSeconds` — then `margin` more. The wait
/// grows with the load, so it is a fair window for "this must not have happened yet".
func waitForQueuesRound(maxSeconds: Double = 0.5, margin: Double = 0.02) {
    RaceDetector.quietly {
        waitForSchedulerRound(maxSeconds: maxSeconds)
        waitForPoolRound(maxSeconds: maxSeconds)
        let main = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { RaceDetector.quietly { _ = main.signal() } }
        _ = main.wait(timeout: .now() + maxSeconds)
        Thread.sleep(forTimeInterval: margin)
    }
}
