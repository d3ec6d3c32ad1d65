import Foundation
import ExerciseKit

// Exercise 03-threads/BoundedBuffer — read chapters/en/03-threads.md (ja: chapters/ja/03-threads.md) first.
//
// Goal: a first-in-first-out buffer of `capacity` items shared by producer and consumer
// threads. `put` waits while the buffer is full; `take` waits while it is empty. No item is
// lost, duplicated or invented, and the items of each producer come out in the order it put them.
//
// Tool: `NSCondition` — `lock()`/`unlock()` like a lock, plus `wait()` (unlocks, sleeps until
// signalled, locks again) and `signal()`/`broadcast()`.
//
// Check your answer:   swift test --filter ExercisesTests.BoundedBuffer
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

/// `@unchecked Sendable`: you promise that `condition` guards `items`; the check tests it.
public final class BoundedBuffer: BoundedBufferProtocol, @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Int] = []
    private let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public func put(_ item: Int) {
        // TODO: under the condition's lock, wait while the buffer is full, append, and wake
        // the threads waiting to take.
        todo()
    }

    public func take() -> Int {
        // TODO: under the condition's lock, wait while the buffer is empty, remove the oldest
        // item, wake the threads waiting to put, and return the item.
        todo()
    }
}
