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
