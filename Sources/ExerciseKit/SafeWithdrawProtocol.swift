/// Exercise 08-reentrancy/SafeWithdraw: an account whose withdrawals wait for a fraud check.
public protocol SafeWithdrawProtocol: Actor {
    init(balance: Int, fraudCheck: FraudCheck)
    var balance: Int { get }
    /// Adds `amount`; it is in `balance` when the call returns.
    func deposit(_ amount: Int)
    /// Takes `amount` and returns true when the balance covers it and the fraud check approves;
    /// else returns false and changes nothing. The balance never goes below zero.
    func withdraw(_ amount: Int) async -> Bool
}
