import WorkbookExplorer

// Chapter 08: an account actor awaits a fraud check between reading the balance and debiting it.

let withdrawCorpus0608: [CorpusBody] = [
    CorpusBody("bank0608.checkedBeforeFraudReview", shape: "withdraw across an await (fraud check)",
               .fails("overdraft: rent and bike both pass the balance check before either fraud review ends"),
               body: checkedBeforeFraudReview),
    CorpusBody("bank0608.recheckedAfterFraudReview", shape: "withdraw across an await (fraud check)",
               .passes, body: recheckedAfterFraudReview),
    CorpusBody("bank0608.holdThenRefund", shape: "withdraw across an await (fraud check)",
               .passes, body: holdThenRefund),
]

/// A fraud service: every review takes 20 ms; the casino is always refused.
private actor FraudService {
    func approves(_ amount: Int, at merchant: String) async -> Bool {
        do { try await Task.sleep(for: .milliseconds(20)) } catch { return false }
        return merchant != "casino"
    }
}

private enum Policy: Sendable {
    /// Checks the balance, awaits the review, debits (the bug).
    case checkThenReview
    /// Checks, awaits the review, checks again in the turn that debits.
    case recheckAfterReview
    /// Debits (holds) before the await; gives the money back if the review refuses.
    case holdThenRefund
}

private actor Account {
    private(set) var balance = 100
    private(set) var lowest = 100
    private let fraud = FraudService()
    private let policy: Policy
    init(policy: Policy) { self.policy = policy }

    func withdraw(_ amount: Int, at merchant: String) async -> Bool {
        guard balance >= amount else { return false }
        switch policy {
        case .checkThenReview:
            guard await fraud.approves(amount, at: merchant) else { return false }
            debit(amount)
            return true
        case .recheckAfterReview:
            guard await fraud.approves(amount, at: merchant) else { return false }
            guard balance >= amount else { return false }
            debit(amount)
            return true
        case .holdThenRefund:
            debit(amount)
            guard await fraud.approves(amount, at: merchant) else {
                balance += amount
                return false
            }
            return true
        }
    }

    private func debit(_ amount: Int) {
        balance -= amount
        lowest = min(lowest, balance)
    }
}

/// Rent, a bike and a casino payment arrive together against a balance of 100.
private func threePayments(_ policy: Policy) async throws -> String {
    let account = Account(policy: policy)
    let payments = [("rent", 70), ("bike", 70), ("casino", 50)].map { payment in
        Task {
            nameTask(payment.0)
            return (merchant: payment.0, amount: payment.1, granted: await account.withdraw(payment.1, at: payment.0))
        }
    }
    var granted: [(merchant: String, amount: Int)] = []
    for payment in payments {
        let result = await payment.value
        if result.granted { granted.append((result.merchant, result.amount)) }
    }
    let (balance, lowest) = await (account.balance, account.lowest)
    let paid = granted.map(\.amount).reduce(0, +)
    let names = granted.map(\.merchant).joined(separator: ", ")
    guard lowest >= 0, balance == 100 - paid, !granted.contains(where: { $0.merchant == "casino" }) else {
        throw InvariantViolation("granted [\(names)] from 100: balance \(balance), lowest \(lowest)")
    }
    return "granted [\(names)], balance \(balance)"
}

/// rent sees 100 ≥ 70 and awaits the review; bike sees 100 ≥ 70 too; at 20 ms both debit: -40.
@Sendable private func checkedBeforeFraudReview() async throws -> String {
    try await threePayments(.checkThenReview)
}

/// Correct: the balance is checked again after the review, in the turn that debits.
@Sendable private func recheckedAfterFraudReview() async throws -> String {
    try await threePayments(.recheckAfterReview)
}

/// Correct: the money is held before the await and refunded when the review refuses; the balance
/// never goes below zero (a held payment may make another one be declined).
@Sendable private func holdThenRefund() async throws -> String {
    try await threePayments(.holdThenRefund)
}
