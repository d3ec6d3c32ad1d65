import ExerciseKit

/// Reference answer for exercise 07-actors/BankAccountActor.
public actor BankAccount: BankAccountProtocol {
    // `let` constants of a `Sendable` type: readable from anywhere, without `await`.
    public let id: Int
    public let owner: String
    public private(set) var balance: Int

    public init(id: Int, owner: String, balance: Int) {
        self.id = id
        self.owner = owner
        self.balance = balance
    }

    /// Reads only the constants, so it can be `nonisolated`: a synchronous requirement.
    public nonisolated var description: String { "Account #\(id) (\(owner))" }

    public func deposit(_ amount: Int) {
        balance += amount
    }

    public func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }

    public func transfer(_ amount: Int, to other: BankAccount) async -> Bool {
        // Check and take in one go, with no `await` between them: nothing else runs on this
        // actor in the middle. Only then the hop to the other account.
        guard withdraw(amount) else { return false }
        await other.deposit(amount)
        return true
    }
}
