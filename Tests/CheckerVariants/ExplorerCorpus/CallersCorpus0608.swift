import WorkbookExplorer

// Chapter 07: callers made with `Task {}` and `Task.detached` (no async let, no group) read an
// actor's state, hop to another actor, and write it back.

let callersCorpus0608: [CorpusBody] = [
    CorpusBody("callers0608.readHopWrite", shape: "Task {} and Task.detached callers of one actor",
               .fails("a like is lost: each caller reads the count, hops to the audit log, then writes count + 1"),
               body: readHopWrite),
    CorpusBody("callers0608.likeInOneCall", shape: "Task {} and Task.detached callers of one actor",
               .passes, body: likeInOneCall),
]

private actor LikeCounter {
    private(set) var count = 0
    func set(_ value: Int) { count = value }

    /// Read and write in one actor call.
    func like() -> Int {
        count += 1
        return count
    }
}

/// Records who liked what; a call is a hop away from the counter.
private actor AuditLog {
    private(set) var entries: [String] = []
    func record(_ entry: String) { entries.append(entry) }
}

private func twoLikes(inOneCall: Bool) async throws -> String {
    let counter = LikeCounter()
    let audit = AuditLog()
    let fromFeed = Task {
        nameTask("feed")
        if inOneCall {
            await audit.record("feed liked")
            return await counter.like()
        }
        let seen = await counter.count
        await audit.record("feed liked")
        await counter.set(seen + 1)
        return seen + 1
    }
    let fromWidget = Task.detached {
        nameTask("widget")
        if inOneCall {
            await audit.record("widget liked")
            return await counter.like()
        }
        let seen = await counter.count
        await audit.record("widget liked")
        await counter.set(seen + 1)
        return seen + 1
    }
    let results = [await fromFeed.value, await fromWidget.value]
    let count = await counter.count
    guard count == 2, Set(results) == [1, 2] else {
        throw InvariantViolation("two likes, count \(count), callers saw \(results)")
    }
    return "count 2, callers saw \(results)"
}

/// feed reads 0 and hops to the audit log; widget reads 0 too; both write 1.
@Sendable private func readHopWrite() async throws -> String {
    try await twoLikes(inOneCall: false)
}

/// Correct: the audit hop comes first, and the increment is one actor call.
@Sendable private func likeInOneCall() async throws -> String {
    try await twoLikes(inOneCall: true)
}
