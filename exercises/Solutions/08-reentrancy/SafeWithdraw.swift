import ExerciseKit

/// Reference answer for exercise 08-reentrancy/SafeWithdraw.
public actor CheckedAccount: SafeWithdrawProtocol {
    public private(set) var balance: Int
    private let fraudCheck: FraudCheck

    public init(balance: Int, fraudCheck: FraudCheck) {
        self.balance = balance
        self.fraudCheck = fraudCheck
    }

    public func deposit(_ amount: Int) {
        balance += amount
    }

    public func withdraw(_ amount: Int) async -> Bool {
        // Check and take in one stretch, before the `await`: the money is held while the fraud
        // check runs, so no other withdrawal can spend it.
        guard balance >= amount else { return false }
        balance -= amount
        guard await fraudCheck.approve(amount) else {
            balance += amount  // give back what was held — relative to now, not to a value read before
            return false
        }
        return true
    }
}
