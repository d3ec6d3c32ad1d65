import WorkbookExplorer

/// Tasks name themselves in their first statement and pass labelled checkpoints, so a report
/// can say "A" and "B" from step 1 and show where each waits (item 11).
let namedTaskCorpus: [CorpusCase] = [
    CorpusCase(name: "named.lastTicketTwice", shape: "named tasks and checkpoints (check-then-act)", items: [11],
               expectation: .fails("the last ticket is sold to both A and B"), traps: false, body: lastTicketTwice),
    CorpusCase(name: "named.lastTicketOnce", shape: "named tasks and checkpoints (check-then-act)", items: [11],
               expectation: .passes, traps: false, body: lastTicketOnce),
    CorpusCase(name: "named.yieldingHandOff", shape: "named tasks and checkpoints (Task.yield hand-off)", items: [11],
               expectation: .fails("B reads the mailbox after A's yield but before A has written"), traps: false, body: yieldingHandOff),
    CorpusCase(name: "named.awaitedHandOff", shape: "named tasks and checkpoints (Task.yield hand-off)", items: [11],
               expectation: .passes, traps: false, body: awaitedHandOff),
]

private actor BoxOffice {
    private var left = 1
    private(set) var sold: [String] = []
    func ticketsLeft() -> Int { left }
    func sell(to buyer: String) { left -= 1; sold.append(buyer) }
    func buy(for buyer: String) -> Bool {
        guard left > 0 else { return false }
        sell(to: buyer)
        return true
    }
}

/// A sees one ticket left and yields (to show a spinner); B sees one left too; both buy.
@Sendable private func lastTicketTwice() async throws -> String {
    let office = BoxOffice()
    let buyers = ["A", "B"].map { buyer in
        Task {
            nameTask(buyer)
            checkpoint("asks how many are left")
            guard await office.ticketsLeft() > 0 else { return }
            checkpoint("saw one left")
            await Task.yield()  // shows a spinner
            await office.sell(to: buyer)
            checkpoint("bought")
        }
    }
    for buyer in buyers { await buyer.value }
    let sold = await office.sold
    guard sold.count == 1 else { throw InvariantViolation("last ticket sold to \(sold)") }
    return "sold to \(sold[0])"
}

/// Correct: the check and the sale are one actor call; the yield comes after it.
@Sendable private func lastTicketOnce() async throws -> String {
    let office = BoxOffice()
    let buyers = ["A", "B"].map { buyer in
        Task {
            nameTask(buyer)
            checkpoint("tries to buy")
            let bought = await office.buy(for: buyer)
            checkpoint(bought ? "bought" : "sold out")
            await Task.yield()  // shows the result
        }
    }
    for buyer in buyers { await buyer.value }
    let sold = await office.sold
    guard sold.count == 1 else { throw InvariantViolation("last ticket sold to \(sold)") }
    return "sold to \(sold[0])"
}

private actor Mailbox {
    private(set) var letter: String?
    func post(_ text: String) { letter = text }
}

/// A yields "to let B wait first" before posting; nothing makes B wait for the post.
@Sendable private func yieldingHandOff() async throws -> String {
    let mailbox = Mailbox()
    let writer = Task {
        nameTask("A")
        checkpoint("about to write")
        await Task.yield()
        await mailbox.post("hello")
        checkpoint("wrote")
    }
    let reader = Task {
        nameTask("B")
        await Task.yield()  // "A has surely written by now"
        checkpoint("reads")
        return await mailbox.letter
    }
    let letter = await reader.value
    await writer.value
    guard let letter else { throw InvariantViolation("B found the mailbox empty") }
    return "B read \(letter)"
}

/// Correct: B awaits A's task before reading.
@Sendable private func awaitedHandOff() async throws -> String {
    let mailbox = Mailbox()
    let writer = Task {
        nameTask("A")
        checkpoint("about to write")
        await Task.yield()
        await mailbox.post("hello")
        checkpoint("wrote")
    }
    let reader = Task {
        nameTask("B")
        await writer.value
        checkpoint("reads")
        return await mailbox.letter
    }
    guard let letter = await reader.value else { throw InvariantViolation("B found the mailbox empty") }
    return "B read \(letter)"
}
