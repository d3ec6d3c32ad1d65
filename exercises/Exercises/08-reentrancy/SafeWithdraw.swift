import ExerciseKit

// Exercise 08-reentrancy/SafeWithdraw — read chapters/en/08-reentrancy.md (ja: chapters/ja/08-reentrancy.md) first.
//
// Goal: `withdraw` reads the balance, waits for the fraud check, and debits. It is an actor, so
// no two calls run at the same moment — but while it waits at `await fraudCheck.approve`, other
// calls run on the account: a second withdrawal passes the same balance check, a deposit lands,
// and the debit then works from a balance that is no longer true. Make it so that, in every
// schedule:
//   - the balance never goes below zero, and two withdrawals never spend the same money;
//   - no deposit or withdrawal is lost: the balance ends as the start plus the deposits minus
//     the withdrawals that returned true;
//   - a withdrawal that returns false changes nothing;
//   - a withdrawal the balance covers and the fraud check approves is carried out, also when
//     another one is waiting for its check.
//
// Check your answer:   swift test --filter ExercisesTests.SafeWithdraw
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

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
        let current = balance
        guard current >= amount else { return false }
        // TODO: the balance read above is not true after the `await` below. Then delete the
        // next line.
        todo(fix: "a withdrawal that holds after the fraud check")
        guard await fraudCheck.approve(amount) else { return false }
        balance = current - amount
        return true
    }
}
