import Foundation
import Synchronization
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Learns when a thread ends, from the thread itself: a thread-specific value whose destructor
/// runs as the thread exits (POSIX `pthread_key_create`).
///
/// Chapter 03's Worker check uses it to tell a thread of the worker's own — it ends when the
/// worker ends — from a pool thread of a `DispatchQueue`, which goes back to the pool and lives on.
final class ThreadEndWatch: Sendable {
    private let ended = Atomic<Bool>(false)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { threadEnded($0) } == 0, "pthread_key_create failed")
        return key
    }()

    /// The watch of the calling thread (made on first use).
    static func current() -> ThreadEndWatch {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadEndWatch>.fromOpaque(raw).takeUnretainedValue()
        }
        let watch = ThreadEndWatch()
        pthread_setspecific(key, Unmanaged.passRetained(watch).toOpaque())
        return watch
    }

    var hasEnded: Bool { ended.load(ordering: .sequentiallyConsistent) }

    /// True once the thread has ended; false if it still runs after `seconds`.
    func waitForEnd(seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while !hasEnded {
            if MonotonicClock.now() > deadline { return false }
            usleep(500)
        }
        return true
    }

    fileprivate func markEnded() { ended.store(true, ordering: .sequentiallyConsistent) }
}

private func threadEnded(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    Unmanaged<ThreadEndWatch>.fromOpaque(raw).takeRetainedValue().markEnded()
}

/// Returns once `thread` is blocked — asleep in two looks a millisecond apart — after a
/// load-adaptive observation window; where the kernel cannot be asked, after the window alone.
/// Checks use it before they change what a blocked call waits for, so that "the call was
/// already waiting" is a fact and not a guess.
func waitUntilBlocked(_ thread: KernelThread?, maxSeconds: Double = 2) {
    observationWindow()
    guard let thread else { return }
    var watch = KernelThread.BlockedWatch(thread)
    pollUntil(seconds: maxSeconds) { watch.look() }
}

/// Looks every millisecond until `condition` holds, for at most `seconds`; true if it held.
@discardableResult
func pollUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
    while !condition() {
        guard MonotonicClock.now() < deadline else { return false }
        usleep(1_000)
    }
    return true
}

/// A sentence about a thread that polled instead of waiting — it went to sleep and woke up
/// again and again, or burned CPU, while nothing changed — or nil if it slept.
///
/// A thread blocked in `condition.wait()` goes to sleep once and is woken once (twice if it
/// then waits for the lock); one that sleeps a millisecond and looks again wakes up dozens of
/// times in 50 ms, and one that spins uses the CPU the whole time.
///
/// `wakeUps`: how many wake-ups mean polling. Inside a call that is woken once it did its job
/// (and may then wait for the lock), more than a few; while nothing at all happens (an idle
/// thread), a waiting thread wakes up never, so a few already mean polling — a thread that
/// polls every millisecond woke only 3 to 8 times in 100 ms when a loaded machine starved it.
func pollingDescription(_ who: Localized, usage: ThreadUsage, seconds: Double, wakeUps: Int = 9) -> Localized? {
    let ms = Int(seconds * 1000), cpuMs = Int(usage.cpuSeconds * 1000)
    if let sleeps = usage.sleeps, sleeps >= wakeUps {
        return Localized(
            "\(who.en) for \(ms) ms, and its thread went to sleep and woke up \(sleeps) times in that span (a thread waiting on a condition sleeps once, until it is woken): it polls",
            ja: "\(who.ja)（\(ms) ms）、その間にスレッドが \(sleeps) 回スリープしては起きました（条件変数で待つスレッドは起こされるまで 1 回スリープするだけです）。ポーリングしています")
    }
    if usage.cpuSeconds > max(0.015, 0.25 * seconds) {
        return Localized(
            "\(who.en) for \(ms) ms, and its thread used \(cpuMs) ms of CPU while nothing changed (a thread waiting on a condition uses none): it spins",
            ja: "\(who.ja)（\(ms) ms）、何も変わらない間にスレッドが CPU を \(cpuMs) ms 使いました（条件変数で待つスレッドは使いません）。スピンしています")
    }
    return nil
}

/// Watches an idle thread of the answer's for `seconds` and describes it if it polled.
///
/// A window counts only if this thread's own sleep of `seconds` was not held up: when the
/// machine is so loaded that the process gets no CPU for a while (a container's CPU quota
/// throttles every thread of it for up to 100 ms), a polling thread cannot wake up either,
/// and one such window once let a thread that polls every millisecond look asleep. Up to five
/// windows; a thread waiting on a condition shows no wake-up in any of them, so three wake-ups
/// in one are polling (a poller starved by a loaded machine showed fewer than nine: passed 1
/// run in 20 with the machine busy).
func pollingWhileIdle(_ thread: KernelThread?, who: Localized, seconds: Double = 0.1) -> Localized? {
    guard let thread else { return nil }
    for _ in 0..<5 {
        guard let before = thread.usage else { return nil }
        let start = MonotonicClock.now()
        Thread.sleep(forTimeInterval: seconds)
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        guard let after = thread.usage else { return nil }
        if let polling = pollingDescription(who, usage: after - before, seconds: elapsed, wakeUps: 3) { return polling }
        if elapsed <= seconds * 1.5 { return nil }  // a fair window, and it slept
    }
    return nil
}
