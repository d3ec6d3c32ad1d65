import WorkbookExplorer

let unstructuredTaskCorpus: [CorpusCase] = [
    CorpusCase(name: "actorTask.stockReadBeforeHop", shape: "Task {} created inside an actor method", items: [6],
               expectation: .fails("a sale is lost: each task reads the stock, hops to the price list, writes it back"),
               traps: false, body: stockReadBeforeHop),
    CorpusCase(name: "actorTask.stockUpdatedAfterHop", shape: "Task {} created inside an actor method", items: [6],
               expectation: .passes, traps: false, body: stockUpdatedAfterHop),
    CorpusCase(name: "actorTask.detachedSplitUpdate", shape: "Task.detached inside an actor method", items: [6],
               expectation: .fails("a point is lost: the detached task reads and writes in two hops"), traps: false,
               body: detachedSplitUpdate),
    CorpusCase(name: "actorTask.inheritedIsolation", shape: "Task.detached inside an actor method", items: [6],
               expectation: .passes, traps: false, body: inheritedIsolation),
]

private actor PriceList {
    func price(of item: String) -> Int { item.count }
}

private actor Shop {
    private(set) var stock = 5
    private(set) var revenue = 0
    let prices = PriceList()
    let readsBeforeHop: Bool
    init(readsBeforeHop: Bool) { self.readsBeforeHop = readsBeforeHop }

    /// Sells in the background; the task runs on this actor and hops to the price list.
    func sell(_ item: String) -> Task<Void, Never> {
        Task {
            if readsBeforeHop {
                let before = stock
                let price = await prices.price(of: item)
                stock = before - 1
                revenue += price
            } else {
                let price = await prices.price(of: item)
                stock -= 1
                revenue += price
            }
        }
    }
}

private func sellTwo(_ shop: Shop) async throws -> String {
    let apple = await shop.sell("apple")
    let pear = await shop.sell("pear")
    await apple.value
    await pear.value
    let (stock, revenue) = await (shop.stock, shop.revenue)
    guard stock == 3, revenue == 9 else { throw InvariantViolation("stock \(stock), revenue \(revenue) after two sales from 5") }
    return "stock 3, revenue 9"
}

/// The apple task reads 5 and hops to the price list; the pear task reads 5 on the actor meanwhile; both write 4.
@Sendable private func stockReadBeforeHop() async throws -> String {
    try await sellTwo(Shop(readsBeforeHop: true))
}

/// Correct: the stock is read and written in the turn after the hop returns.
@Sendable private func stockUpdatedAfterHop() async throws -> String {
    try await sellTwo(Shop(readsBeforeHop: false))
}

private actor Scoreboard {
    private(set) var points = 0
    func read() -> Int { points }
    func write(_ value: Int) { points = value }

    /// Detached: leaves the actor, then comes back twice, once to read and once to write.
    func awardDetached(_ bonus: Int) -> Task<Void, Never> {
        Task.detached {
            let current = await self.read()
            await self.write(current + bonus)
        }
    }

    /// Inherits this actor's isolation: read and write in one job.
    func awardInherited(_ bonus: Int) -> Task<Void, Never> {
        Task { points += bonus }
    }
}

/// Both detached tasks read 0 before either writes: one bonus is lost.
@Sendable private func detachedSplitUpdate() async throws -> String {
    let board = Scoreboard()
    let awards = [await board.awardDetached(10), await board.awardDetached(5)]
    for award in awards { await award.value }
    let points = await board.points
    guard points == 15 else { throw InvariantViolation("\(points) points after bonuses of 10 and 5") }
    return "15 points"
}

/// Correct: `Task {}` in an actor method that uses `self` is isolated to the actor.
@Sendable private func inheritedIsolation() async throws -> String {
    let board = Scoreboard()
    let awards = [await board.awardInherited(10), await board.awardInherited(5)]
    for award in awards { await award.value }
    let points = await board.points
    guard points == 15 else { throw InvariantViolation("\(points) points after bonuses of 10 and 5") }
    return "15 points"
}
