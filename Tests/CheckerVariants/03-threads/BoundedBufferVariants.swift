import Foundation
import ExerciseKit

/// Shared shape of most buffer variants: an `NSCondition` and a list, with one mistake each.
final class BoundedBufferVariant: BoundedBufferProtocol, @unchecked Sendable {  // `items` is guarded by `condition` (except where the mistake says)
    enum Mistake {
        /// Removes the newest item instead of the oldest.
        case lastInFirstOut
        /// Appends even when the buffer is full.
        case putNeverWaits
        /// Returns -1 at once from an empty buffer.
        case takeNeverWaits
        /// Wakes one waiter with `signal()`, which may be a thread of the other kind.
        case signalInsteadOfBroadcast
        /// Waits under `if`: after a wake-up it goes on without looking again.
        case ifInsteadOfWhile
        /// `take` never wakes anyone, so a `put` waiting on a full buffer sleeps on.
        case takeNeverWakes
        /// Reads `items` before taking the lock (to count how often takers find nothing).
        case peeksOutsideLock
        /// Stores nothing: `put` returns at once and `take` makes up a value.
        case skipsTheWork
    }
    private let condition = NSCondition()
    private var items: [Int] = []
    private var emptyLooks = 0
    private let capacity: Int
    private let mistake: Mistake

    init(capacity: Int) { self.capacity = capacity; mistake = .lastInFirstOut }
    init(capacity: Int, mistake: Mistake) { self.capacity = capacity; self.mistake = mistake }

    func put(_ item: Int) {
        if mistake == .skipsTheWork { return }
        condition.lock()
        defer { condition.unlock() }
        switch mistake {
        case .putNeverWaits: break
        case .ifInsteadOfWhile: if items.count >= capacity { condition.wait() }
        default: while items.count >= capacity { condition.wait() }
        }
        items.append(item)
        wake()
    }

    func take() -> Int {
        if mistake == .skipsTheWork { return 0 }
        let looksEmpty = mistake == .peeksOutsideLock ? items.isEmpty : false  // the race: no lock held
        condition.lock()
        defer { condition.unlock() }
        if looksEmpty { emptyLooks += 1 }
        switch mistake {
        case .takeNeverWaits: if items.isEmpty { return -1 }
        case .ifInsteadOfWhile: if items.isEmpty { condition.wait() }
        default: while items.isEmpty { condition.wait() }
        }
        let item = mistake == .lastInFirstOut ? items.removeLast() : items.removeFirst()
        if mistake != .takeNeverWakes { wake() }
        return item
    }

    private func wake() {
        if mistake == .signalInsteadOfBroadcast { condition.signal() } else { condition.broadcast() }
    }
}

/// Waits by polling: an `NSLock`, and a millisecond's sleep between looks at the list.
final class SleepPollingBuffer: BoundedBufferProtocol, @unchecked Sendable {  // `items` is guarded by `lock`
    private let lock = NSLock()
    private var items: [Int] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func put(_ item: Int) {
        while true {
            lock.lock()
            if items.count < capacity {
                items.append(item)
                lock.unlock()
                return
            }
            lock.unlock()
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    func take() -> Int {
        while true {
            lock.lock()
            if !items.isEmpty {
                let item = items.removeFirst()
                lock.unlock()
                return item
            }
            lock.unlock()
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}

/// Waits by spinning: it has an `NSCondition` but only unlocks and locks it again in a loop.
final class SpinningBuffer: BoundedBufferProtocol, @unchecked Sendable {  // `items` is guarded by `condition`
    private let condition = NSCondition()
    private var items: [Int] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func put(_ item: Int) {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity { condition.unlock(); condition.lock() }
        items.append(item)
    }

    func take() -> Int {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.unlock(); condition.lock() }
        return items.removeFirst()
    }
}

// MARK: Correct answers in other styles (the check must pass them)

/// Correct: a ring of fixed size with a head index, one `NSCondition`, and `broadcast()` after
/// unlocking.
final class RingBuffer: BoundedBufferProtocol, @unchecked Sendable {  // all `var`s are guarded by `condition`
    private let condition = NSCondition()
    private var slots: [Int]
    private var head = 0, count = 0

    init(capacity: Int) { slots = Array(repeating: 0, count: capacity) }

    func put(_ item: Int) {
        condition.lock()
        while count == slots.count { condition.wait() }
        slots[(head + count) % slots.count] = item
        count += 1
        condition.unlock()
        condition.broadcast()
    }

    func take() -> Int {
        condition.lock()
        while count == 0 { condition.wait() }
        let item = slots[head]
        head = (head + 1) % slots.count
        count -= 1
        condition.unlock()
        condition.broadcast()
        return item
    }
}

/// Correct: two counting semaphores (free slots, stored items) and a lock for the list.
final class SemaphoreBuffer: BoundedBufferProtocol, @unchecked Sendable {  // `items` is guarded by `lock`
    private let free: DispatchSemaphore
    private let stored = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var items: [Int] = []

    init(capacity: Int) { free = DispatchSemaphore(value: capacity) }

    func put(_ item: Int) {
        free.wait()
        lock.withLock { items.append(item) }
        stored.signal()
    }

    func take() -> Int {
        stored.wait()
        let item = lock.withLock { items.removeFirst() }
        free.signal()
        return item
    }
}
