import Foundation
import WorkbookCore

/// An `NSLock` that tells the check who waits for it and who holds it.
///
/// It behaves as a plain lock. The check can arm a rendezvous: a thread that has just taken its
/// first tracked lock waits (briefly) until another thread has taken one too. With the locks
/// taken in opposite orders that makes the lock-order deadlock happen every time, instead of
/// once in a while; with one global order the second thread never gets its first lock, and the
/// wait simply times out.
public final class TrackedLock: NSLocking, @unchecked Sendable {
    private let base = NSLock()
    /// Shown on the trace: `account 1`.
    public var name = "lock"
    /// Set by the check.
    public var trace: Trace?
    public var rendezvous: Rendezvous?

    public init() {}

    public func lock() {
        trace?.record("waits for \(name)")
        base.lock()
        trace?.record("holds \(name)")
        let held = HeldLocks.increment()
        if held == 1, let rendezvous { rendezvous.arrive() }
    }

    public func unlock() {
        HeldLocks.decrement()
        trace?.record("releases \(name)")
        base.unlock()
    }

    /// Lets the first lock of each of `parties` threads wait for the others, once.
    public final class Rendezvous: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private let parties: Int
        private let seconds: Double
        private var used = false

        public init(parties: Int, seconds: Double) {
            self.parties = parties
            self.seconds = seconds
        }

        func arrive() {
            condition.lock()
            defer { condition.unlock() }
            guard !used else { return }
            arrived += 1
            if arrived >= parties {
                used = true
                condition.broadcast()
                return
            }
            let deadline = Date(timeIntervalSinceNow: seconds)
            while arrived < parties && !used {
                if !condition.wait(until: deadline) { used = true }
            }
        }
    }
}

/// How many tracked locks the calling thread holds.
enum HeldLocks {
    private static let key = "workbook.held-tracked-locks"
    static func increment() -> Int {
        let count = (Thread.current.threadDictionary[key] as? Int ?? 0) + 1
        Thread.current.threadDictionary[key] = count
        return count
    }
    static func decrement() {
        Thread.current.threadDictionary[key] = max(0, (Thread.current.threadDictionary[key] as? Int ?? 1) - 1)
    }
}
