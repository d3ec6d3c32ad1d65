import Foundation
import ExerciseKit

/// Locks the source first, then the destination: two opposite transfers can each hold one lock
/// and wait for the other forever.
final class SourceFirstTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        source.lock.lock()
        defer { source.lock.unlock() }
        destination.lock.lock()
        defer { destination.lock.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}

/// Locks the destination first, then the source: the same deadlock, the other way round.
final class DestinationFirstTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        destination.lock.withLock {
            source.lock.withLock {
                source.balance -= amount
                destination.balance += amount
            }
        }
    }
}

/// Holds the source lock and spins on `try()` for the destination's without ever letting go:
/// no thread sleeps, but two opposite transfers still wait for each other for ever.
final class SpinningTryTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        source.lock.lock()
        defer { source.lock.unlock() }
        while !destination.lock.try() { sched_yield() }
        defer { destination.lock.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}

/// Never holds both locks: no deadlock, but between the two steps the money is in neither
/// account.
final class OneLockAtATimeTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        source.lock.lock()
        source.balance -= amount
        source.lock.unlock()
        destination.lock.lock()
        destination.balance += amount
        destination.lock.unlock()
    }
}

/// Takes both locks in id order but releases them before the deposit: the destination's
/// balance is written with no lock held.
final class ReleasesEarlyTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        let (first, second) = source.id < destination.id ? (source, destination) : (destination, source)
        first.lock.lock()
        second.lock.lock()
        source.balance -= amount
        second.lock.unlock()
        first.lock.unlock()
        destination.balance += amount  // the race: both locks already released
    }
}

/// Holds only the source's lock while it changes both balances: the destination's balance is
/// guarded by whichever lock the caller happened to take.
final class SourceLockOnlyTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        source.lock.withLock {
            source.balance -= amount
            destination.balance += amount
        }
    }
}

/// Takes both locks in id order and moves no money.
final class DoesNothingTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        let (first, second) = source.id < destination.id ? (source, destination) : (destination, source)
        first.lock.withLock { second.lock.withLock {} }
    }
}

/// Takes both locks in id order and moves the money the wrong way.
final class BackwardsTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        let (first, second) = source.id < destination.id ? (source, destination) : (destination, source)
        first.lock.withLock {
            second.lock.withLock {
                source.balance += amount
                destination.balance -= amount
            }
        }
    }
}

// MARK: Correct answers in other styles (the check must pass them)

/// Correct: one global order, highest id first.
final class DescendingOrderTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        let (first, second) = source.id > destination.id ? (source, destination) : (destination, source)
        first.lock.lock()
        defer { first.lock.unlock() }
        second.lock.lock()
        defer { second.lock.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}

/// Correct: take the first lock, try the second; if it is busy, let go of both and start again.
final class TryAndBackOffTransfers: TransfersProtocol {
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        while true {
            source.lock.lock()
            if destination.lock.try() {
                source.balance -= amount
                destination.balance += amount
                destination.lock.unlock()
                source.lock.unlock()
                return
            }
            source.lock.unlock()
            sched_yield()
        }
    }
}

/// One lock of its own for every transfer: no deadlock and the totals stay right, but the
/// accounts' own locks are never taken while their balances change.
final class OneGlobalLockTransfers: TransfersProtocol {
    private static let everything = NSLock()
    func transfer(_ amount: Int, from source: Account, to destination: Account) {
        Self.everything.lock()
        defer { Self.everything.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}
