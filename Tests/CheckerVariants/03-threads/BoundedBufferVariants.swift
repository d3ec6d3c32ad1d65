import Foundation
import ExerciseKit

/// Shared shape of the buffer variants: an `NSCondition` and a list, with one mistake each.
final class BoundedBufferVariant: BoundedBufferProtocol, @unchecked Sendable {
    enum Mistake { case lastInFirstOut, putNeverWaits, takeNeverWaits }
    private let condition = NSCondition()
    private var items: [Int] = []
    private let capacity: Int
    private let mistake: Mistake

    init(capacity: Int) { self.capacity = capacity; mistake = .lastInFirstOut }
    init(capacity: Int, mistake: Mistake) { self.capacity = capacity; self.mistake = mistake }

    func put(_ item: Int) {
        condition.lock()
        defer { condition.unlock() }
        while mistake != .putNeverWaits && items.count >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
    }

    func take() -> Int {
        condition.lock()
        defer { condition.unlock() }
        if mistake == .takeNeverWaits && items.isEmpty { return -1 }
        while items.isEmpty { condition.wait() }
        let item = mistake == .lastInFirstOut ? items.removeLast() : items.removeFirst()
        condition.broadcast()
        return item
    }
}
