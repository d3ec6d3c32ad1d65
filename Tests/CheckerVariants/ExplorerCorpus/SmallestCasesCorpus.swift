import Foundation
import WorkbookExplorer

/// The smallest case of each way `Task {}`, the main actor and time escaped the explorer
/// (issue 27's items 1–4), buggy where there is a bug to find.
let smallestCasesCorpus: [CorpusBody] = [
    CorpusBody("smallest.mainActorCounter", shape: "two Task { @MainActor in } on one main-actor object", .passes, body: mainActorCounter),
    CorpusBody("smallest.actorTaskReadHopWrite", shape: "a Task {} made in an actor method reads, hops to another actor, writes",
               .fails("two stock updates read 5 before either writes: one sale is lost"), body: actorTaskReadHopWrite),
    CorpusBody("smallest.actorTaskOneTurn", shape: "a Task {} made in an actor method reads, hops to another actor, writes",
               .passes, body: actorTaskOneTurn),
    CorpusBody("smallest.storedRefreshPlainSleeps", shape: "token refresh with a stored task and plain sleeps",
               .passes, body: storedRefreshPlainSleeps),
    CorpusBody("smallest.incrementsOneMillisecondApart", shape: "two increments 1 ms apart, real work between read and write",
               .fails("the second increment reads before the first writes: one is lost"), body: incrementsOneMillisecondApart),
    CorpusBody("smallest.incrementsOnAnActor", shape: "two increments 1 ms apart, real work between read and write",
               .passes, body: incrementsOnAnActor),
]

// MARK: Item 1: correct main-actor code is never reported racing

@MainActor private final class TapCounter {
    var taps = 0
}

@Sendable private func mainActorCounter() async throws -> String {
    let counter = await MainActor.run { TapCounter() }
    let first = Task { @MainActor in counter.taps += 1 }
    let second = Task { @MainActor in counter.taps += 1 }
    await first.value
    await second.value
    let taps = await counter.taps
    guard taps == 2 else { throw InvariantViolation("\(taps) taps counted for two") }
    return "taps: \(taps)"
}

// MARK: Item 2: a Task {} made in an actor method, its hop a scheduling point

private actor PriceList {
    func price(of item: String) -> Int { item.count }
}

private actor Stock {
    private(set) var apples = 5
    let prices = PriceList()
    private var sales: [Task<Void, Never>] = []

    /// Reads, hops to the price list, writes what it read minus one.
    func sellSplit() {
        sales.append(Task {
            let before = self.apples
            _ = await self.prices.price(of: "apple")
            self.store(before - 1)
        })
    }

    /// Reads and writes after the hop, in one turn.
    func sellInOneTurn() {
        sales.append(Task {
            _ = await self.prices.price(of: "apple")
            self.decrement()
        })
    }

    private func store(_ value: Int) { apples = value }
    private func decrement() { apples -= 1 }

    func finishSales() async {
        for sale in sales { await sale.value }
    }
}

private func twoSales(_ sell: @escaping @Sendable (Stock) async -> Void) async throws -> String {
    let stock = Stock()
    await sell(stock)
    await sell(stock)
    await stock.finishSales()
    let apples = await stock.apples
    guard apples == 3 else { throw InvariantViolation("two sales from 5 apples left \(apples)") }
    return "apples: \(apples)"
}

@Sendable private func actorTaskReadHopWrite() async throws -> String { try await twoSales { await $0.sellSplit() } }
@Sendable private func actorTaskOneTurn() async throws -> String { try await twoSales { await $0.sellInOneTurn() } }

// MARK: Item 3: plain Task.sleep in virtual time, a stored refresh task

private actor TokenStore {
    private var token = "expired"
    private var refresh: Task<String, Never>?

    func validToken() async -> String {
        if let refresh { return await refresh.value }
        guard token == "expired" else { return token }
        let task = Task { () -> String in
            try? await Task.sleep(for: .milliseconds(50))   // the network
            try? await Task.sleep(for: .milliseconds(50))   // and the server's answer
            return "fresh"
        }
        refresh = task
        let fresh = await task.value
        token = fresh
        refresh = nil
        return fresh
    }
}

@Sendable private func storedRefreshPlainSleeps() async throws -> String {
    let store = TokenStore()
    nameNextTasks("A", "B")
    async let a = store.validToken()
    async let b = store.validToken()
    let tokens = await [a, b]
    guard tokens == ["fresh", "fresh"] else { throw InvariantViolation("tokens \(tokens)") }
    return "tokens: \(tokens.joined(separator: ", "))"
}

// MARK: Item 4: work takes time

/// Shared state with nothing but timing between its users.
private final class Tally: @unchecked Sendable {
    var count = 0
}

/// Real work between a read and a write: a few thousand steps of arithmetic.
private func busyWork() -> Int {
    var sum = 0
    for index in 0..<5_000 { sum = sum &+ index &* 31 }
    return sum
}

private func oneMillisecondApart(_ increment: @escaping @Sendable () async -> Void) async {
    let first = Task { await increment() }
    let second = Task {
        try? await Task.sleep(for: .milliseconds(1))
        await increment()
    }
    await first.value
    await second.value
}

@Sendable private func incrementsOneMillisecondApart() async throws -> String {
    let tally = Tally()
    let gate = PriceList()
    await oneMillisecondApart {
        let before = tally.count
        _ = busyWork()
        _ = await gate.price(of: "tick")
        tally.count = before + 1
    }
    guard tally.count == 2 else { throw InvariantViolation("two increments counted \(tally.count)") }
    return "count: \(tally.count)"
}

private actor Counter {
    private(set) var count = 0
    func increment() { _ = busyWork(); count += 1 }
}

@Sendable private func incrementsOnAnActor() async throws -> String {
    let counter = Counter()
    await oneMillisecondApart { await counter.increment() }
    let count = await counter.count
    guard count == 2 else { throw InvariantViolation("two increments counted \(count)") }
    return "count: \(count)"
}
