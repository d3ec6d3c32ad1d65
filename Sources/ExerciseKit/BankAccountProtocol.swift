/// Exercise 07-actors/BankAccountActor: an account many tasks use at once.
///
/// `id`, `owner` and `description` are synchronous requirements: an actor meets them only with
/// `let` constants and `nonisolated` members, so they stay reachable without `await`.
public protocol BankAccountProtocol: AnyObject, Sendable, Identifiable, CustomStringConvertible where ID == Int {
    init(id: Int, owner: String, balance: Int)
    var id: Int { get }
    var owner: String { get }
    /// `Account #id (owner)`.
    var description: String { get }
    var balance: Int { get async }
    /// Adds `amount`; it is in `balance` when the call returns.
    func deposit(_ amount: Int) async
    /// Takes `amount` and returns true, or returns false and takes nothing when the balance is
    /// short: the balance never goes below zero.
    func withdraw(_ amount: Int) async -> Bool
    /// Moves `amount` from this account to `other` and returns true, or returns false and moves
    /// nothing when this account's balance is short. When it returns, the money is in `other`:
    /// the two balances add up to what they did before.
    func transfer(_ amount: Int, to other: Self) async -> Bool
}
