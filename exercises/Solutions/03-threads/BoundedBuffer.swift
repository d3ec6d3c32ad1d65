import Foundation
import ExerciseKit

/// Reference: one `NSCondition` guards the items. Each side waits in a `while` loop — a wakeup
/// only means "look again" — and `broadcast` wakes both producers and consumers, so no waiter
/// sleeps through the change it waits for.
public final class BoundedBuffer: BoundedBufferProtocol, @unchecked Sendable {  // `items` is guarded by `condition`
    private let condition = NSCondition()
    private var items: [Int] = []
    private let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public func put(_ item: Int) {
        condition.lock()
        defer { condition.unlock() }
        while items.count == capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
    }

    public func take() -> Int {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }
}
