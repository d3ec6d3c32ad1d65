import Foundation

/// Runs blocking work on its own thread and waits at most `seconds` for it.
///
/// Deadlocks cannot be cancelled: a thread stuck in `sync` or `wait()` stays stuck. This leaves
/// it behind and reports the timeout, so the REPL or the check carries on. Returns `nil` when the
/// deadline passed.
public func withDeadline<Result: Sendable>(seconds: Double, _ body: @escaping @Sendable () -> Result) -> Result? {
    let result = Locked<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    thread.name = "deadline-guarded"
    thread.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.current
}

/// Runs blocking work on its own thread (see `withDeadline`); true if it returned within `seconds`.
public func returnsWithin(seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    withDeadline(seconds: seconds) { body(); return true } != nil
}

/// Runs async work from synchronous code and waits at most `seconds` for it (see `withDeadline`).
public func waitForAsync<Result: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> Result) -> Result? {
    let result = Locked<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.current
}

/// Runs blocking work on a thread of its own and awaits its result.
///
/// Blocking a Swift concurrency thread (a semaphore `wait`, a REPL waiting for a scenario) can
/// starve the small cooperative pool that the awaited work itself needs; a dedicated thread
/// cannot. Tests that drive the REPL use this.
public func onDedicatedThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// Runs `body` once fewer than one child check per core, plus two, are running in this process,
/// so a test run that checks many answers at once keeps each one's timing honest (the checks
/// wait for "what must not happen" with load-adaptive windows, not for a machine that is 40
/// times oversubscribed). The two more: a child spends most of its time waiting (for a
/// deadline, a callback that never comes) and uses about half a core; with one per core the
/// self-test kept this 2-core machine 45% idle.
public func withCheckSlot<Result>(_ body: () throws -> Result) rethrows -> Result {
    CheckSlots.semaphore.wait()
    defer { CheckSlots.semaphore.signal() }
    return try body()
}

private enum CheckSlots {
    static let semaphore = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount) + 2)
}
