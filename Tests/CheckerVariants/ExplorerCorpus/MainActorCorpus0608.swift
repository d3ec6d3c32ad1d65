import WorkbookExplorer

// Chapter 07/08: a `@MainActor` view model fed from a callback API. The callbacks arrive on a
// detached task (standing in for a networking library's delegate queue; no Dispatch, no threads) and
// hop to the main actor with `Task { @MainActor in … }`.

let mainActorCorpus0608: [CorpusBody] = [
    CorpusBody("mainActorCallback0608.staleResultShownLast", shape: "@MainActor view model fed from a callback (callbacks from a detached task)",
               .fails("the slow results for \"s\" arrive after those for \"sw\" and replace them"),
               body: staleResultShownLast),
    CorpusBody("mainActorCallback0608.dropsSupersededResult", shape: "@MainActor view model fed from a callback (callbacks from a detached task)",
               .passes, body: dropsSupersededResult),
    CorpusBody("mainActorCallback0608.doubleTapTwoLoads", shape: "@MainActor view model fed from a callback (callbacks from a detached task)",
               .fails("a double tap starts two loads: the loading flag is set only after the analytics await"),
               body: doubleTapTwoLoads),
    CorpusBody("mainActorCallback0608.flagSetInTapTurn", shape: "@MainActor view model fed from a callback (callbacks from a detached task)",
               .passes, body: flagSetInTapTurn),
    CorpusBody("mainActorCallback0608.counterTwoTaps", shape: "@MainActor class mutated from two Task { @MainActor in }",
               .passes, body: counterTwoTaps),
]

/// A callback-style search API: "s" takes 80 ms, longer queries 30 ms.
private final class SearchClient: Sendable {
    func search(_ query: String, completion: @escaping @Sendable ([String]) -> Void) {
        Task.detached {
            do { try await Task.sleep(for: .milliseconds(query.count == 1 ? 80 : 30)) } catch { return }
            completion(["\(query):1", "\(query):2"])
        }
    }
}

@MainActor private final class SearchViewModel {
    private(set) var query = ""
    private(set) var results: [String] = []
    private let client = SearchClient()
    private let dropsSuperseded: Bool
    init(dropsSuperseded: Bool) { self.dropsSuperseded = dropsSuperseded }

    /// The text field's change handler.
    func queryChanged(_ text: String) {
        query = text
        client.search(text) { found in
            Task { @MainActor in self.show(found, for: text) }
        }
    }

    private func show(_ found: [String], for text: String) {
        if dropsSuperseded && text != query { return }
        results = found
    }
}

/// Types "s", then "sw" 10 ms later: "s" answers at 80 ms, "sw" at 40 ms.
private func typeTwoLetters(dropsSuperseded: Bool) async throws -> String {
    let model = await SearchViewModel(dropsSuperseded: dropsSuperseded)
    await model.queryChanged("s")
    try await Task.sleep(for: .milliseconds(10))
    await model.queryChanged("sw")
    try await Task.sleep(for: .milliseconds(200))
    await untilQuiet()
    let (query, results) = await (model.query, model.results)
    guard !results.isEmpty, results.allSatisfy({ $0.hasPrefix(query + ":") }) else {
        throw InvariantViolation("the field says \"\(query)\" but the list shows \(results)")
    }
    return "\"\(query)\" shows \(results)"
}

/// "sw" results are shown at 40 ms; the "s" results come at 80 ms and overwrite them.
@Sendable private func staleResultShownLast() async throws -> String {
    try await typeTwoLetters(dropsSuperseded: false)
}

/// Correct: on the main actor, results for a query that is no longer the field's text are dropped.
@Sendable private func dropsSupersededResult() async throws -> String {
    try await typeTwoLetters(dropsSuperseded: true)
}

/// Counts feed loads; a load takes 40 ms.
private actor FeedServer {
    private(set) var loads = 0
    func load() async -> [String] {
        loads += 1
        do { try await Task.sleep(for: .milliseconds(40)) } catch { return [] }
        return ["post \(loads)"]
    }
}

/// A callback-style feed API over the server.
private final class FeedClient: Sendable {
    let server = FeedServer()
    func loadFeed(completion: @escaping @Sendable ([String]) -> Void) {
        let server = server
        Task.detached { completion(await server.load()) }
    }
}

/// Sending an analytics event takes 2 ms.
private actor Analytics {
    private(set) var events: [String] = []
    func track(_ event: String) async {
        do { try await Task.sleep(for: .milliseconds(2)) } catch { return }
        events.append(event)
    }
}

@MainActor private final class FeedViewModel {
    private(set) var isLoading = false
    private(set) var posts: [String] = []
    let client = FeedClient()
    private let analytics = Analytics()
    private let flagFirst: Bool
    init(flagFirst: Bool) { self.flagFirst = flagFirst }

    /// The refresh button; ignored while a load is running.
    func refreshTapped() async {
        guard !isLoading else { return }
        if flagFirst { isLoading = true }
        await analytics.track("refresh")
        isLoading = true
        client.loadFeed { posts in
            Task { @MainActor in
                self.posts = posts
                self.isLoading = false
            }
        }
    }
}

/// The toolkit delivers two taps (nonisolated callbacks) at the same moment.
private func doubleTap(flagFirst: Bool) async throws -> String {
    let model = await FeedViewModel(flagFirst: flagFirst)
    let taps = (0..<2).map { _ in Task { @MainActor in await model.refreshTapped() } }
    for tap in taps { await tap.value }
    try await Task.sleep(for: .milliseconds(100))
    await untilQuiet()
    let loads = await model.client.server.loads
    let posts = await model.posts
    guard loads == 1 else { throw InvariantViolation("a double tap started \(loads) loads") }
    return "one load, showing \(posts)"
}

/// Tap 1 passes the guard and awaits analytics (2 ms); tap 2 passes the guard meanwhile.
@Sendable private func doubleTapTwoLoads() async throws -> String {
    try await doubleTap(flagFirst: false)
}

/// Correct: the flag is set in the same main-actor turn as the guard.
@Sendable private func flagSetInTapTurn() async throws -> String {
    try await doubleTap(flagFirst: true)
}

@MainActor private final class Counter {
    var taps = 0
}

/// Correct: both increments run on the main actor, one after the other; nothing races.
@Sendable private func counterTwoTaps() async throws -> String {
    let counter = Counter()
    let first = Task { @MainActor in counter.taps += 1 }
    let second = Task { @MainActor in counter.taps += 1 }
    await first.value
    await second.value
    let taps = await counter.taps
    guard taps == 2 else { throw InvariantViolation("two taps counted as \(taps)") }
    return "taps: \(taps)"
}
