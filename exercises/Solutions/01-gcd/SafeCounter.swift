import Dispatch
import ExerciseKit

/// Reference: every access to `counts` happens inside a block on one serial queue.
///
/// The queue runs one block at a time in FIFO order, so increments cannot interleave and a
/// read queued after a write sees it. `@unchecked Sendable` is a promise the compiler cannot
/// verify — the queue keeps it, and the check tests it.
public final class SafeCounter: SafeCounterProtocol, @unchecked Sendable {
    private let queue = DispatchQueue(label: "workbook.safe-counter")
    private var counts: [String: Int] = [:]

    public init() {}

    public func increment(_ page: String) {
        queue.async { self.counts[page, default: 0] += 1 }
    }

    public func count(of page: String) -> Int {
        queue.sync { counts[page, default: 0] }
    }

    public func snapshot() -> [String: Int] {
        queue.sync { counts }
    }
}
