import WorkbookExplorer

let actorReentrancyCorpus: [CorpusCase] = [
    CorpusCase(name: "bank.withdrawAcrossAwait", shape: "withdraw across await (actor reentrancy)", items: [],
               expectation: .fails("two withdrawals both pass the balance check: the balance goes negative"),
               traps: false, body: withdrawAcrossAwait),
    CorpusCase(name: "bank.recheckAfterAwait", shape: "withdraw across await (actor reentrancy)", items: [],
               expectation: .passes, traps: false, body: recheckAfterAwait),
    CorpusCase(name: "booking.checkThenAct", shape: "check-then-act on an actor", items: [],
               expectation: .fails("one seat booked by two customers"), traps: false, body: checkThenAct),
    CorpusCase(name: "booking.bookInOneCall", shape: "check-then-act on an actor", items: [],
               expectation: .passes, traps: false, body: bookInOneCall),
    CorpusCase(name: "likes.splitIncrement", shape: "lost update split over two actor calls", items: [],
               expectation: .fails("a like is lost: read and write are separate actor calls"), traps: false, body: splitIncrement),
    CorpusCase(name: "likes.incrementInOneCall", shape: "lost update split over two actor calls", items: [],
               expectation: .passes, traps: false, body: incrementInOneCall),
]

/// A fraud check on an actor of its own: awaiting it releases the account.
private actor FraudCheck {
    func approve(_ amount: Int) -> Bool { amount < 1_000 }
}

private actor Account {
    private(set) var balance = 100
    let fraud = FraudCheck()
    let rechecks: Bool
    init(rechecks: Bool) { self.rechecks = rechecks }

    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        guard await fraud.approve(amount) else { return false }
        // The buggy version trusts the check made before the await.
        if rechecks && balance < amount { return false }
        balance -= amount
        return true
    }
}

private func twoWithdrawals(_ account: Account) async throws -> String {
    async let rent = { nameTask("rent"); return await account.withdraw(80) }()
    async let bike = { nameTask("bike"); return await account.withdraw(80) }()
    let granted = await [rent, bike].filter { $0 }.count
    let balance = await account.balance
    guard balance >= 0, granted == 1 else { throw InvariantViolation("\(granted) withdrawals of 80 from 100: balance \(balance)") }
    return "one withdrawal, balance \(balance)"
}

/// rent checks 100 ≥ 80 and awaits the fraud check; bike checks 100 ≥ 80 too; both subtract.
@Sendable private func withdrawAcrossAwait() async throws -> String {
    try await twoWithdrawals(Account(rechecks: false))
}

/// Correct: the balance is checked again in the same turn that subtracts.
@Sendable private func recheckAfterAwait() async throws -> String {
    try await twoWithdrawals(Account(rechecks: true))
}

private actor Theater {
    private var seats: [Int: String] = [:]
    func isFree(_ seat: Int) -> Bool { seats[seat] == nil }
    func assign(_ seat: Int, to name: String) { seats[seat] = name }
    func book(_ seat: Int, for name: String) -> Bool {
        guard seats[seat] == nil else { return false }
        seats[seat] = name
        return true
    }
}

/// Ana asks whether seat 7 is free, Ben asks too before Ana assigns it: both are told they booked.
@Sendable private func checkThenAct() async throws -> String {
    let theater = Theater()
    let confirmations = await withTaskGroup(of: Bool.self) { group in
        for name in ["Ana", "Ben"] {
            group.addTask {
                nameTask(name)
                guard await theater.isFree(7) else { return false }
                await theater.assign(7, to: name)
                return true
            }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    guard confirmations == 1 else { throw InvariantViolation("seat 7 confirmed to \(confirmations) customers") }
    return "one confirmation"
}

/// Correct: the check and the assignment are one actor call.
@Sendable private func bookInOneCall() async throws -> String {
    let theater = Theater()
    let confirmations = await withTaskGroup(of: Bool.self) { group in
        for name in ["Ana", "Ben"] {
            group.addTask { nameTask(name); return await theater.book(7, for: name) }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    guard confirmations == 1 else { throw InvariantViolation("seat 7 confirmed to \(confirmations) customers") }
    return "one confirmation"
}

private actor Post {
    private(set) var likes = 0
    func read() -> Int { likes }
    func write(_ value: Int) { likes = value }
    func like() { likes += 1 }
}

/// Two of three likers read the same count before either writes it back.
@Sendable private func splitIncrement() async throws -> String {
    let post = Post()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 {
            group.addTask {
                let current = await post.read()
                await post.write(current + 1)
            }
        }
    }
    let likes = await post.likes
    guard likes == 3 else { throw InvariantViolation("\(likes) likes after three taps") }
    return "3 likes"
}

/// Correct: read and write happen in one actor call.
@Sendable private func incrementInOneCall() async throws -> String {
    let post = Post()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 { group.addTask { await post.like() } }
    }
    let likes = await post.likes
    guard likes == 3 else { throw InvariantViolation("\(likes) likes after three taps") }
    return "3 likes"
}
