import ReleasePoints

/// Stops a thread of the learner's code right after it releases something — a lock's unlock, a
/// semaphore's signal, the end of a queue's `sync`, a group's `leave` — so that another thread
/// can run a whole step at exactly that moment.
///
/// FanOut's fake client uses it for the last two replies: it pauses the first callback after its
/// k-th release and runs the second one whole, for k = 1, 2, 3, … A callback that records its
/// reply in one locked step and asks "was that the last one?" in another completes twice, every
/// run — where letting two threads race would show it once in thousands.
///
/// The racy way, which only a pause between the two steps exposes:
/// ```swift
/// lock.withLock { results[index] = result; remaining -= 1 }
/// if lock.withLock({ remaining }) == 0 { completion(results) }  // both callbacks may see 0
/// ```
/// The safe way decides in the same step: `let last = lock.withLock { remaining -= 1; return remaining == 0 }`.
///
/// Releases are reported only where the interposers are linked (the runners on Linux); see
/// `isAvailable`. Inside `Synchronization.Mutex`'s uncontended path and atomics there is no call
/// to take, so those are not pause points.
public enum ReleasePoint {
    /// True when releases are reported in this process.
    public static var isAvailable: Bool { workbook_release_points_available() }

    /// Runs `body` on the calling thread; right after the thread's `count`-th release inside it,
    /// runs `pause` there, once. Returns `body`'s value and whether the pause point was reached.
    public static func run<Value>(pausingAfterRelease count: Int, pause: @escaping () -> Void, _ body: () -> Value) -> (value: Value, paused: Bool) {
        let box = PauseBox(pause)
        let context = Unmanaged.passRetained(box).toOpaque()
        workbook_arm_release_point(Int32(count), { context in
            guard let context else { return }
            Unmanaged<PauseBox>.fromOpaque(context).takeUnretainedValue().reach()
        }, context)
        let value = body()
        workbook_arm_release_point(0, nil, nil)
        Unmanaged<PauseBox>.fromOpaque(context).release()
        return (value, box.reached)
    }
}

/// The pause and whether it ran; used only on the armed thread.
private final class PauseBox {
    let pause: () -> Void
    var reached = false
    init(_ pause: @escaping () -> Void) { self.pause = pause }
    func reach() {
        reached = true
        pause()
    }
}

/// Runs something at the moment a thread of the learner's code creates a checked continuation —
/// an allocation point (see ReleasePoints.h): `withCheckedContinuation` makes a small "canary"
/// object first, and the runners see that allocation.
///
/// DelegateBridge's check uses it to run a second caller whole between the first caller's look
/// at its slot and the continuation it stores. The racy way, which only that moment exposes:
/// ```swift
/// guard pending.withLock({ $0 == nil }) else { throw LocationError.busy }
/// return try await withCheckedThrowingContinuation { continuation in
///     pending.withLock { $0 = continuation }  // a second caller may have stored its own by now
///     provider.requestLocation()
/// }
/// ```
/// The safe way looks and stores in one hold of the lock, inside the continuation's closure.
public enum ContinuationPoint {
    /// The class of a checked continuation's canary (its address), read from one made here; nil where
    /// allocation points are not reported (see `ReleasePoint.isAvailable`) or a continuation is
    /// not the single reference it is on this runtime.
    public static func canaryClass() async -> UInt? {
        guard ReleasePoint.isAvailable,
              MemoryLayout<CheckedContinuation<UnsafeRawPointer?, Never>>.size == MemoryLayout<UnsafeRawPointer>.size
        else { return nil }
        return await withCheckedContinuation { (continuation: CheckedContinuation<UInt?, Never>) in
            let canary = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
            continuation.resume(returning: canary.load(as: UInt.self))  // an object's first word is its class
        }
    }

    /// Runs `body` on the calling thread; the first time a continuation is created on this
    /// thread inside it (before the continuation exists), runs `pause` there, once. Returns
    /// `body`'s value and whether the point was reached.
    public static func run<Value>(canaryClass: UInt, pause: @escaping () -> Void, _ body: () -> Value) -> (value: Value, paused: Bool) {
        let box = PauseBox(pause)
        let context = Unmanaged.passRetained(box).toOpaque()
        workbook_arm_allocation_point(UnsafeRawPointer(bitPattern: canaryClass), { context in
            guard let context else { return }
            Unmanaged<PauseBox>.fromOpaque(context).takeUnretainedValue().reach()
        }, context)
        let value = body()
        workbook_arm_allocation_point(nil, nil, nil)
        Unmanaged<PauseBox>.fromOpaque(context).release()
        return (value, box.reached)
    }
}
