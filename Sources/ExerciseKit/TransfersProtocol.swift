import Foundation
import WorkbookCore

/// A bank account for exercise 03-threads/Transfers. Each account has its own lock; a transfer
/// must hold both accounts' locks so no one sees money in flight.
public final class Account: @unchecked Sendable {  // `balance` is guarded by `lock`
    public let id: Int
    public let lock: TrackedLock
    /// Read and write only while holding `lock`.
    public var balance: Int

    public init(id: Int, balance: Int, lock: TrackedLock = TrackedLock()) {
        self.id = id
        self.balance = balance
        self.lock = lock
        lock.name = Localized("account \(id)", ja: "口座 \(id)")
    }
}

/// Exercise 03-threads/Transfers: move money between accounts from many threads without a
/// deadlock and without creating or destroying money.
public protocol TransfersProtocol: Sendable {
    init()
    /// Moves `amount` from `source` to `destination`, holding both accounts' locks while it
    /// changes the balances.
    func transfer(_ amount: Int, from source: Account, to destination: Account)
}
