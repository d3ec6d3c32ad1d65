import Dispatch
import ExerciseKit
import WorkbookCore

/// Reads on the queue, then writes on the queue: two blocks, so another thread's increment can
/// run in between and one of the two is lost.
final class ReadThenWriteCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.read-then-write")
    private var counts: [String: Int] = [:]

    func increment(_ page: String) {
        let current = queue.sync { counts[page, default: 0] }
        queue.sync { counts[page] = current + 1 }
    }
    func count(of page: String) -> Int { queue.sync { counts[page, default: 0] } }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Writes go through the queue asynchronously, but reads look at a copy the queue publishes
/// afterwards: a read right after an increment can miss it.
final class PublishedCopyCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "variant.published-copy")
    private var counts: [String: Int] = [:]
    private let published = Locked<[String: Int]>([:])

    func increment(_ page: String) {
        queue.async {
            self.counts[page, default: 0] += 1
            let copy = self.counts
            self.published.withLock { $0 = copy }
        }
    }
    func count(of page: String) -> Int { published.current[page, default: 0] }
    func snapshot() -> [String: Int] { queue.sync { counts } }
}

/// Waits for a signal nobody sends: every increment blocks forever.
final class NeverSignalledCounter: SafeCounterProtocol {
    private let semaphore = DispatchSemaphore(value: 0)
    func increment(_ page: String) { semaphore.wait() }
    func count(of page: String) -> Int { 0 }
    func snapshot() -> [String: Int] { [:] }
}
