import ExerciseKit

/// Reference: always lock the account with the smaller id first. With one global order, two
/// transfers can never each hold the lock the other needs.
public final class Transfers: TransfersProtocol {
    public init() {}

    public func transfer(_ amount: Int, from source: Account, to destination: Account) {
        let (first, second) = source.id < destination.id ? (source, destination) : (destination, source)
        first.lock.lock()
        defer { first.lock.unlock() }
        second.lock.lock()
        defer { second.lock.unlock() }
        source.balance -= amount
        destination.balance += amount
    }
}
