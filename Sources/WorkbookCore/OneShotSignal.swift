import Dispatch

/// A one-time signal that tasks and threads can wait for: `fire()` it once, and every wait
/// returns — the waits already waiting and the ones that come later.
///
/// The scenarios make an order happen with it instead of sleeping for it: a child task does its
/// first step, fires `started`, and the caller cancels only after `try await started.wait(…)`.
/// A task waits suspended, holding no thread; a plain thread or a child process waits with
/// `waitBlocking`.
///
/// The blocking way, `DispatchSemaphore.wait()` inside a task, parks one of the cooperative
/// pool's threads (two on a two-core machine): with both parked, the task that would signal
/// never runs. Chapter 05 builds waits like this one from continuations.
///
/// A wait ignores cancellation on purpose (a cancelled child still waits for the caller's
/// `go`, so the scenario decides when it looks at `Task.isCancelled`), and gives up after
/// `seconds` with `ScenarioStuck`, so a scenario never hangs. The default is generous: on Linux
/// tasks share libdispatch's pool with GCD work, and under `swift test`, with other tests
/// blocking pool threads, a task was seen to wait over a second for a thread.
public final class OneShotSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())
    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    /// Ends every wait, now and later. Firing twice is harmless.
    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>]? in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return }
        semaphore.signal()
        for waiter in waiters { waiter.resume(returning: true) }
    }

    public var hasFired: Bool { state.withLock { $0.fired } }

    /// Suspends until `fire()`; throws `ScenarioStuck(what:)` if that takes longer than `seconds`.
    public func wait(seconds: Double = 30, _ what: Localized) async throws {
        let fired = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = state.withLock { state -> Int? in
                guard !state.fired else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let waiter else { return continuation.resume(returning: true) }
            let state = self.state
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume(returning: false)
            }
        }
        if !fired { throw ScenarioStuck(what: what) }
    }

    /// Blocks the calling thread until `fire()`; false after `seconds`. Only for plain threads
    /// and child processes, never inside a task.
    public func waitBlocking(seconds: Double = 10) -> Bool {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        semaphore.signal()  // later blocking waits return at once too
        return true
    }
}
