import ExerciseKit

// Exercise 07-actors/BankAccountActor — read chapters/en/07-actors.md (ja: chapters/ja/07-actors.md) first.
//
// Goal: `BankAccount` is a class that many tasks use at once, and `@unchecked Sendable` is a
// promise it does not keep: two deposits at the same moment can lose one, and two withdrawals
// can both pass the balance check and overdraw. Make it an actor, so the compiler keeps the
// promise instead:
//   - deposits and withdrawals from many tasks at once lose nothing;
//   - `withdraw` never takes more than the balance (it returns false and takes nothing);
//   - `transfer(_:to:)` moves money to another account, or nothing when the balance is short,
//     and when it returns the two balances add up to what they did before;
//   - `id`, `owner` and `description` stay readable without `await`.
// Then delete the `todo(fix:)` line.
//
// Check your answer:   swift test --filter ExercisesTests.BankAccountActor
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class BankAccount: BankAccountProtocol, @unchecked Sendable {
    public let id: Int
    public let owner: String
    public private(set) var balance: Int

    public init(id: Int, owner: String, balance: Int) {
        // TODO: `actor BankAccount` instead of the class (and no `@unchecked Sendable`): then
        // read what the compiler asks of `description` and of `transfer`. Delete this line.
        todo(fix: "make BankAccount an actor")
        self.id = id
        self.owner = owner
        self.balance = balance
    }

    public var description: String { "Account #\(id) (\(owner))" }

    public func deposit(_ amount: Int) {
        balance += amount
    }

    public func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }

    public func transfer(_ amount: Int, to other: BankAccount) -> Bool {
        guard withdraw(amount) else { return false }
        other.deposit(amount)
        return true
    }
}
