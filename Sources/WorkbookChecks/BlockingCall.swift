import Foundation
import WorkbookCore

/// A call into the answer that may block, made on a thread of its own: the check watches whether
/// and when it returns, what it returned, and what its thread spent while inside it.
///
/// Chapter 03 uses it for `take()` on an empty buffer, `put` on a full one and `join()`: the
/// check starts the call, waits until its thread is asleep (`waitUntilBlocked`), changes what
/// the call waits for, and then expects it to return — or, when nothing changed, not to.
final class BlockingCall<Value: Sendable>: @unchecked Sendable {  // `thread` is written before `init` returns; the rest is in `outcome`
    let label: String
    /// The call's thread, where the kernel can be asked about it.
    private(set) var thread: KernelThread?
    private let outcome = Locked<(value: Value, usage: ThreadUsage, seconds: Double)?>(nil)
    private let running = DispatchGroup()

    init(_ label: String, trace: Trace, _ body: @escaping @Sendable () -> Value) {
        self.label = label
        let started = DispatchSemaphore(value: 0)
        let kernelThread = Locked<KernelThread?>(nil)
        running.enter()
        Thread.detachNewThread { [self] in
            kernelThread.withLock { $0 = KernelThread.current() }
            started.signal()
            let before = ThreadUsage.current()
            let start = MonotonicClock.now()
            let value = trace.span(label) { body() }
            let seconds = Double(MonotonicClock.now() - start) / 1e9
            let usage = ThreadUsage.current() - before
            outcome.withLock { $0 = (value, usage, seconds) }
            running.leave()
        }
        started.wait()
        thread = kernelThread.current
    }

    var hasReturned: Bool { outcome.current != nil }
    var value: Value? { outcome.current?.value }
    /// What the thread spent inside the call, and how long the call took; nil until it returned.
    var spent: (usage: ThreadUsage, seconds: Double)? { outcome.current.map { ($0.usage, $0.seconds) } }

    /// True once the call has returned; false if it is still inside after `seconds`.
    func waitForReturn(seconds: Double) -> Bool {
        running.wait(timeout: .now() + seconds) == .success
    }

    /// Waits until the call's thread is asleep inside it (see `waitUntilBlocked`).
    func waitUntilAsleep() { waitUntilBlocked(thread) }

    /// Waits for the call to return after the change that should wake it: `seconds` (half the
    /// deadline: a correct answer returns in microseconds, a loaded machine may take a while);
    /// then one `broadcast()` on the answer's conditions tells a missed wake-up from a deadlock.
    func awaitWake(seconds: Double, conditions: LearnerConditions) -> BlockedCallWake {
        if waitForReturn(seconds: seconds) { return .returned }
        guard !conditions.isEmpty else { return .stuck }
        conditions.broadcast()
        return waitForReturn(seconds: seconds) ? .onlyAfterExtraBroadcast : .stuck
    }

    /// A sentence about a call that polled instead of waiting (see `pollingDescription`), or
    /// nil if it slept or returned within 50 ms.
    func pollingDescription() -> Localized? {
        guard let (usage, seconds) = spent, seconds >= 0.05 else { return nil }
        return WorkbookChecks.pollingDescription(Localized("\(label) was inside the call", ja: "\(label) は呼び出しの中にいて"), usage: usage, seconds: seconds)
    }
}

/// How a blocked call ended after the change that should have woken it.
enum BlockedCallWake: Sendable {
    /// It returned within the time given.
    case returned
    /// It returned only after the check broadcast on the answer's conditions: nothing woke it.
    case onlyAfterExtraBroadcast
    /// It did not return even then.
    case stuck
}
