import ExerciseKit

// SafeWithdraw answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// The starting code: the balance read before the fraud check, written back after it.
actor StaleReadAccount: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        let current = balance
        guard current >= amount else { return false }
        guard await fraudCheck.approve(amount) else { return false }
        balance = current - amount
        return true
    }
}

/// Checks the balance before the fraud check only, then debits relative to now.
actor ChecksBeforeOnly: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        guard await fraudCheck.approve(amount) else { return false }
        balance -= amount
        return true
    }
}

/// Checks again after the fraud check, but writes a balance computed from the first read.
actor RechecksWritesStale: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        let before = balance
        guard before >= amount else { return false }
        guard await fraudCheck.approve(amount) else { return false }
        guard balance >= amount else { return false }
        balance = before - amount
        return true
    }
}

/// Holds the money before the check, and forgets to give it back when the check refuses.
actor HoldsWithoutReturning: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        balance -= amount
        return await fraudCheck.approve(amount)
    }
}

/// Holds the money, and on a refusal puts back the balance it saw before — undoing a deposit
/// made during the check.
actor RestoresOldBalance: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        let before = balance
        guard before >= amount else { return false }
        balance -= amount
        guard await fraudCheck.approve(amount) else {
            balance = before
            return false
        }
        return true
    }
}

/// Turns a withdrawal away while another one waits for its check.
actor OneAtATimeOrRefuse: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    private var checking = false
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard !checking, balance >= amount else { return false }
        checking = true
        defer { checking = false }
        guard await fraudCheck.approve(amount) else { return false }
        guard balance >= amount else { return false }
        balance -= amount
        return true
    }
}

/// Debits first and checks the funds afterwards, putting the money back when short: the
/// balance is below zero meanwhile.
actor DebitsThenChecksFunds: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        balance -= amount
        let approved = await fraudCheck.approve(amount)
        guard approved, balance >= 0 else {
            balance += amount
            return false
        }
        return true
    }
}

/// Checks again after the fraud check — then awaits the ledger before debiting.
actor LedgerBeforeDebit: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    private let ledger = RefreshLog()
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        guard await fraudCheck.approve(amount) else { return false }
        guard balance >= amount else { return false }
        await ledger.record("withdraw \(amount)")
        balance -= amount
        return true
    }
}

/// A correct answer: checks before the fraud check and again after it, debiting right after the
/// second check with no `await` between.
actor ChecksAgainAfterAwait: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount, await fraudCheck.approve(amount), balance >= amount else { return false }
        balance -= amount
        return true
    }
}

/// A correct answer: the money held in a separate pot while the check runs.
actor HeldInPot: SafeWithdrawProtocol {
    private var available: Int
    private var held = 0
    private let fraudCheck: FraudCheck
    init(balance: Int, fraudCheck: FraudCheck) { (available, self.fraudCheck) = (balance, fraudCheck) }
    var balance: Int { available + held }
    func deposit(_ amount: Int) { available += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard available >= amount else { return false }
        available -= amount
        held += amount
        let approved = await fraudCheck.approve(amount)
        held -= amount
        if !approved { available += amount }
        return approved
    }
}

/// Holds the money, noting the amount in one property for every call in flight: a refusal gives
/// back whatever the latest withdrawal noted.
actor OneHoldForAll: SafeWithdrawProtocol {
    private(set) var balance: Int
    private let fraudCheck: FraudCheck
    private var pending = 0
    init(balance: Int, fraudCheck: FraudCheck) { (self.balance, self.fraudCheck) = (balance, fraudCheck) }
    func deposit(_ amount: Int) { balance += amount }
    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        balance -= amount
        pending = amount
        guard await fraudCheck.approve(amount) else {
            balance += pending
            pending = 0
            return false
        }
        pending = 0
        return true
    }
}
