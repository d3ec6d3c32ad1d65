import Foundation
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `NSLock` that tells the check who waits for it and who holds it.
///
/// It behaves as a plain lock (`lock()`, `unlock()`, `try()`, and `withLock` from `NSLocking`).
/// The check can arm three things on it:
/// - a `trace`, which records "waits for", "holds" and "releases" on the thread's lane;
/// - a `rendezvous`: a thread that has just taken its first tracked lock waits until another
///   thread has taken one too. With the locks taken in opposite orders that makes the
///   lock-order deadlock happen every time, instead of once in a while. With one global order
///   the second thread finds its first lock taken and has to wait for it — which ends the
///   rendezvous at once, since it can never complete;
/// - a `stepper`, called on the locking thread right after each lock is taken and right after
///   each is released, so the check can pause a transfer at exactly those moments and look at
///   the accounts (money in flight shows when a transfer holds no lock in the middle of its work).
public final class TrackedLock: NSLocking, @unchecked Sendable {  // the vars are set by the check before any thread uses the lock
    private let base = NSLock()
    /// Shown on the trace: `account 1` (口座 1).
    public var name = Localized("lock", ja: "ロック")
    /// Set by the check.
    public var trace: Trace?
    public var rendezvous: Rendezvous?
    public var stepper: (@Sendable (Step) -> Void)?

    /// A moment the `stepper` hears about.
    public enum Step: Sendable, Equatable {
        case took(Localized)
        case released(Localized)
    }

    public init() {}

    public func lock() {
        if !base.try() {
            trace?.record(Localized("waits for \(name.en)", ja: "\(name.ja) を待つ"))
            // This thread cannot take the lock now: a rendezvous waiting for it can never complete.
            rendezvous?.release()
            base.lock()
        }
        took()
    }

    /// Takes the lock if it is free; false (and nothing held) if another thread holds it.
    public func `try`() -> Bool {
        guard base.try() else {
            trace?.record(Localized("\(name.en) is busy", ja: "\(name.ja) は使用中"))
            return false
        }
        took()
        return true
    }

    public func unlock() {
        HeldLocks.decrement()
        trace?.record(Localized("releases \(name.en)", ja: "\(name.ja) を解放"))
        base.unlock()
        stepper?(.released(name))
    }

    /// For the check's auditor only: takes the lock if it is free, telling no trace, rendezvous
    /// or stepper.
    public func auditorTry() -> Bool { base.try() }

    /// For the check's auditor only: releases a lock taken with `auditorTry()`.
    public func auditorUnlock() { base.unlock() }

    private func took() {
        trace?.record(Localized("holds \(name.en)", ja: "\(name.ja) を保持"))
        let held = HeldLocks.increment()
        if held == 1, let rendezvous { rendezvous.arrive() }
        stepper?(.took(name))
    }

    /// Lets the first lock of each of `parties` threads wait for the others, once.
    public final class Rendezvous: @unchecked Sendable {  // all state is guarded by `condition`
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

        /// Ends the rendezvous for everyone: a party is blocked on a lock and cannot arrive.
        func release() {
            condition.lock()
            defer { condition.unlock() }
            used = true
            condition.broadcast()
        }
    }
}

/// How many tracked locks the calling thread holds (thread-specific, no lock of its own).
enum HeldLocks {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static func increment() -> Int {
        let count = Int(bitPattern: pthread_getspecific(key)) + 1
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: count))
        return count
    }

    static func decrement() {
        let count = max(0, Int(bitPattern: pthread_getspecific(key)) - 1)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: count))
    }
}
