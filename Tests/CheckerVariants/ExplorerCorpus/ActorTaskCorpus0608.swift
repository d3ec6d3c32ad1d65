import WorkbookExplorer

// Chapter 07/08: a `Task {}` created inside an actor method runs on that actor; it reads the actor's
// state, hops to another actor for a price, and writes the state back.

let actorTaskCorpus0608: [CorpusBody] = [
    CorpusBody("actorTask0608.readBeforeHop", shape: "Task {} inside an actor method, hopping to another actor",
               .fails("an item's price is lost: both tasks read the total before either writes it back"),
               body: readBeforeHop),
    CorpusBody("actorTask0608.addAfterHop", shape: "Task {} inside an actor method, hopping to another actor",
               .passes, body: addAfterHop),
    CorpusBody("actorTask0608.readBeforeSlowHop", shape: "Task {} inside an actor method, hopping to another actor (10 ms price lookup)",
               .fails("an item's price is lost: both tasks read the total at 0 ms and write it back at 10 ms"),
               body: readBeforeSlowHop),
    CorpusBody("actorTask0608.addAfterSlowHop", shape: "Task {} inside an actor method, hopping to another actor (10 ms price lookup)",
               .passes, body: addAfterSlowHop),
]

private actor PriceService {
    let lookupMilliseconds: Int
    init(lookupMilliseconds: Int) { self.lookupMilliseconds = lookupMilliseconds }

    func price(of item: String) async -> Int {
        if lookupMilliseconds > 0 {
            do { try await Task.sleep(for: .milliseconds(lookupMilliseconds)) } catch { return 0 }
        }
        return item == "coffee" ? 4 : 7
    }
}

private actor Basket {
    private(set) var total = 0
    private(set) var items: [String] = []
    private let prices: PriceService
    private let readsFirst: Bool
    init(prices: PriceService, readsFirst: Bool) {
        self.prices = prices
        self.readsFirst = readsFirst
    }

    /// Adds in the background; the task inherits this actor and hops to the price service.
    func add(_ item: String) -> Task<Void, Never> {
        Task {
            if readsFirst {
                let before = total
                let price = await prices.price(of: item)
                total = before + price
            } else {
                let price = await prices.price(of: item)
                total += price
            }
            items.append(item)
        }
    }
}

private func coffeeAndCake(lookupMilliseconds: Int, readsFirst: Bool) async throws -> String {
    let basket = Basket(prices: PriceService(lookupMilliseconds: lookupMilliseconds), readsFirst: readsFirst)
    let coffee = await basket.add("coffee")
    let cake = await basket.add("cake")
    await coffee.value
    await cake.value
    let (total, items) = await (basket.total, basket.items)
    guard total == 11 else { throw InvariantViolation("total \(total) for \(items) (coffee 4 + cake 7 = 11)") }
    return "total 11 for \(items)"
}

/// The coffee task reads 0 and hops to the prices; the cake task runs on the basket meanwhile and reads 0.
@Sendable private func readBeforeHop() async throws -> String {
    try await coffeeAndCake(lookupMilliseconds: 0, readsFirst: true)
}

/// Correct: the total is read and written in the turn after the hop returns.
@Sendable private func addAfterHop() async throws -> String {
    try await coffeeAndCake(lookupMilliseconds: 0, readsFirst: false)
}

/// Both tasks read 0 before the 10 ms lookups end: the second write wins, whichever it is.
@Sendable private func readBeforeSlowHop() async throws -> String {
    try await coffeeAndCake(lookupMilliseconds: 10, readsFirst: true)
}

/// Correct: each task adds its price in the turn after its own lookup returns.
@Sendable private func addAfterSlowHop() async throws -> String {
    try await coffeeAndCake(lookupMilliseconds: 10, readsFirst: false)
}
