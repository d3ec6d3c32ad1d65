import ExerciseKit
import Foundation

// BankAccountActor answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// The starting class as it is: `@unchecked Sendable` promises what nothing keeps.
final class RacyClass: BankAccountProtocol, @unchecked Sendable {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: RacyClass) -> Bool {
        guard withdraw(amount) else { return false }
        other.deposit(amount)
        return true
    }
}

/// A lock around deposits only: withdrawals still read and write the balance unlocked.
final class LockedDepositsOnly: BankAccountProtocol, @unchecked Sendable {
    let id: Int
    let owner: String
    private let lock = NSLock()
    private var stored: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.stored) = (id, owner, balance) }
    var description: String { "Account #\(id) (\(owner))" }
    var balance: Int { lock.withLock { stored } }
    func deposit(_ amount: Int) { lock.withLock { stored += amount } }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= stored else { return false }
        stored -= amount
        return true
    }
    func transfer(_ amount: Int, to other: LockedDepositsOnly) -> Bool {
        guard withdraw(amount) else { return false }
        other.deposit(amount)
        return true
    }
}

/// Something to await in the middle, as an approval or an audit call would be.
private func approve(_ amount: Int) async -> Bool {
    await Task.yield()
    return amount > 0
}

/// Checks the balance, awaits an approval, then takes the money: a check-then-act across `await`.
actor WithdrawAwaitsApproval: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard amount <= balance else { return false }
        guard await approve(amount) else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: WithdrawAwaitsApproval) async -> Bool {
        guard await withdraw(amount) else { return false }
        await other.deposit(amount)
        return true
    }
}

/// `transfer` checks, deposits into the other account, and takes the money only after that `await`.
actor TransferChecksThenAwaits: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: TransferChecksThenAwaits) async -> Bool {
        guard amount <= balance else { return false }
        await other.deposit(amount)
        balance -= amount
        return true
    }
}

/// `transfer` forgets the balance check: the money leaves whatever the balance.
actor TransferWithoutCheck: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: TransferWithoutCheck) async -> Bool {
        balance -= amount
        await other.deposit(amount)
        return true
    }
}

/// The withdrawal itself made in a `Task {}` inside the actor method: the task runs on the
/// actor, but after calls already waiting there — which pass the same balance check.
actor WithdrawInTask: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        Task { self.take(amount) }
        return true
    }
    private func take(_ amount: Int) { balance -= amount }
    func transfer(_ amount: Int, to other: WithdrawInTask) async -> Bool {
        guard withdraw(amount) else { return false }
        await other.deposit(amount)
        return true
    }
}

/// The other account's deposit made in a `Task {}` inside `transfer`: on this actor first, then
/// a hop — `transfer` returns before the money arrives.
actor TransferDepositsInTask: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: TransferDepositsInTask) -> Bool {
        guard withdraw(amount) else { return false }
        Task { await other.deposit(amount) }
        return true
    }
}

/// The other account's deposit sent off in a `Task.detached`: `transfer` returns before it lands.
actor TransferDepositsDetached: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: TransferDepositsDetached) async -> Bool {
        guard withdraw(amount) else { return false }
        Task.detached { await other.deposit(amount) }
        return true
    }
}

/// `transfer` reads the other account's balance and writes it back plus the amount: a deposit
/// made into it between the two `await`s is lost.
actor TransferReadsThenWrites: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func setBalance(_ newBalance: Int) { balance = newBalance }
    func withdraw(_ amount: Int) -> Bool {
        guard amount <= balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: TransferReadsThenWrites) async -> Bool {
        guard withdraw(amount) else { return false }
        let theirs = await other.balance
        await other.setBalance(theirs + amount)
        return true
    }
}

/// `<` where `<=` belongs: a withdrawal of exactly the balance is refused.
actor RefusesExactBalance: BankAccountProtocol {
    let id: Int
    let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        guard amount < balance else { return false }
        balance -= amount
        return true
    }
    func transfer(_ amount: Int, to other: RefusesExactBalance) async -> Bool {
        guard withdraw(amount) else { return false }
        await other.deposit(amount)
        return true
    }
}

/// A correct answer: a ledger of entries, the balance their sum.
actor LedgerAccount: BankAccountProtocol {
    let id: Int
    let owner: String
    private var entries: [Int]
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.entries) = (id, owner, [balance]) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    var balance: Int { entries.reduce(0, +) }
    func deposit(_ amount: Int) { entries.append(amount) }
    func withdraw(_ amount: Int) -> Bool {
        if balance < amount { return false }
        entries.append(-amount)
        return true
    }
    func transfer(_ amount: Int, to other: LedgerAccount) async -> Bool {
        let taken = withdraw(amount)
        if taken { await other.deposit(amount) }
        return taken
    }
}

/// A correct answer: `transfer` takes the money itself before its one `await`, and the other
/// side's `receive` is its own method.
actor TakesThenSends: BankAccountProtocol {
    nonisolated let id: Int
    nonisolated let owner: String
    private(set) var balance: Int
    init(id: Int, owner: String, balance: Int) { (self.id, self.owner, self.balance) = (id, owner, balance) }
    nonisolated var description: String { "Account #\(id) (\(owner))" }
    func deposit(_ amount: Int) { receive(amount) }
    private func receive(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) -> Bool {
        if balance >= amount {
            balance -= amount
            return true
        }
        return false
    }
    func transfer(_ amount: Int, to other: TakesThenSends) async -> Bool {
        guard balance >= amount else { return false }
        balance -= amount
        await other.deposit(amount)
        return true
    }
}
