import WorkbookExplorer

let globalActorCorpus: [CorpusCase] = [
    CorpusCase(name: "globalActor.splitSignUp", shape: "custom global actor", items: [],
               expectation: .fails("one user name registered twice"), traps: false, body: splitSignUp),
    CorpusCase(name: "globalActor.isolatedSignUp", shape: "custom global actor", items: [],
               expectation: .passes, traps: false, body: isolatedSignUp),
    CorpusCase(name: "globalActor.tornAcrossActors", shape: "two custom global actors", items: [6],
               expectation: .fails("a reader sees the table and its index disagree"), traps: false, body: tornAcrossActors),
    CorpusCase(name: "globalActor.oneActorSnapshot", shape: "two custom global actors", items: [6],
               expectation: .passes, traps: false, body: oneActorSnapshot),
]

@globalActor actor CorpusStorageActor {
    static let shared = CorpusStorageActor()
}

@globalActor actor CorpusIndexActor {
    static let shared = CorpusIndexActor()
}

/// A user table whose state lives on the storage actor; a fresh table per body.
@CorpusStorageActor private final class UserTable {
    private(set) var names: [String] = []
    func contains(_ name: String) -> Bool { names.contains(name) }
    func insert(_ name: String) { names.append(name) }
    func insertIfAbsent(_ name: String) -> Bool {
        guard !names.contains(name) else { return false }
        names.append(name)
        return true
    }
}

/// Two sign-ups of "kim" each ask `contains` and then `insert`: both ask before either inserts.
@Sendable private func splitSignUp() async throws -> String {
    let table = UserTable()
    await withTaskGroup(of: Void.self) { group in
        for device in ["phone", "laptop"] {
            group.addTask {
                nameTask(device)
                if !(await table.contains("kim")) { await table.insert("kim") }
            }
        }
    }
    let names = await table.names
    guard names == ["kim"] else { throw InvariantViolation("registered \(names)") }
    return "kim registered once"
}

/// Correct: one call isolated to the storage actor checks and inserts.
@Sendable private func isolatedSignUp() async throws -> String {
    let table = UserTable()
    await withTaskGroup(of: Void.self) { group in
        for device in ["phone", "laptop"] {
            group.addTask { nameTask(device); _ = await table.insertIfAbsent("kim") }
        }
    }
    let names = await table.names
    guard names == ["kim"] else { throw InvariantViolation("registered \(names)") }
    return "kim registered once"
}

@CorpusStorageActor private final class Rows {
    private(set) var count = 0
    func add() { count += 1 }
}

@CorpusIndexActor private final class RowIndex {
    private(set) var count = 0
    func add() { count += 1 }
}

/// The writer adds the row on one actor and its index entry on another; the reader looks in between.
@Sendable private func tornAcrossActors() async throws -> String {
    let (rows, index) = (Rows(), RowIndex())
    let writer = Task { nameTask("writer"); await rows.add(); await index.add() }
    let reader = Task { nameTask("reader"); return (await rows.count, await index.count) }
    let (rowCount, indexCount) = await reader.value
    await writer.value
    guard rowCount == indexCount else { throw InvariantViolation("reader saw \(rowCount) rows but \(indexCount) index entries") }
    return "reader saw \(rowCount) row(s), consistent"
}

/// Keeps rows and index on the storage actor and reads both in one call.
@CorpusStorageActor private final class IndexedRows {
    private(set) var rows = 0
    private(set) var indexed = 0
    func add() { rows += 1; indexed += 1 }
    func snapshot() -> (rows: Int, indexed: Int) { (rows, indexed) }
}

/// Correct: write and read are single calls on one global actor.
@Sendable private func oneActorSnapshot() async throws -> String {
    let table = IndexedRows()
    let writer = Task { nameTask("writer"); await table.add() }
    let reader = Task { nameTask("reader"); return await table.snapshot() }
    let (rowCount, indexCount) = await reader.value
    await writer.value
    guard rowCount == indexCount else { throw InvariantViolation("reader saw \(rowCount) rows but \(indexCount) index entries") }
    return "reader saw \(rowCount) row(s), consistent"
}
