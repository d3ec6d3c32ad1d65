import WorkbookExplorer

let mainActorCorpus: [CorpusCase] = [
    CorpusCase(name: "mainActor.staleSearchResults", shape: "@MainActor view model updated from background tasks", items: [5],
               expectation: .fails("results for \"a\" arrive last and replace those for \"ab\""), traps: false, body: staleSearchResults),
    CorpusCase(name: "mainActor.dropsStaleResults", shape: "@MainActor view model updated from background tasks", items: [5],
               expectation: .passes, traps: false, body: dropsStaleResults),
    CorpusCase(name: "mainActor.loadingFlagAfterAwait", shape: "@MainActor view model updated from background tasks", items: [5],
               expectation: .fails("two refreshes overlap: the loading flag is set only after an await"), traps: false,
               body: loadingFlagAfterAwait),
    CorpusCase(name: "mainActor.loadingFlagFirst", shape: "@MainActor view model updated from background tasks", items: [5],
               expectation: .passes, traps: false, body: loadingFlagFirst),
]

private actor SearchAPI {
    private(set) var requests = 0
    func search(_ query: String) async -> [String] {
        requests += 1
        await Task.yield()  // the network
        return ["\(query)-1", "\(query)-2"]
    }
}

@MainActor private final class SearchViewModel {
    private(set) var query = ""
    private(set) var results: [String] = []
    let api: SearchAPI
    let dropsStale: Bool
    init(api: SearchAPI, dropsStale: Bool) {
        self.api = api
        self.dropsStale = dropsStale
    }

    /// Called on every keystroke; searches on a background task.
    func type(_ text: String) -> Task<Void, Never> {
        query = text
        let api = api
        return Task.detached {
            let found = await api.search(text)
            await self.show(found, for: text)
        }
    }

    func show(_ found: [String], for text: String) {
        MainActor.assertIsolated()
        if dropsStale && text != query { return }
        results = found
    }
}

private func typeTwoLetters(dropsStale: Bool) async throws -> String {
    let model = await SearchViewModel(api: SearchAPI(), dropsStale: dropsStale)
    let first = await model.type("a")
    let second = await model.type("ab")
    await first.value
    await second.value
    let (query, results) = await (model.query, model.results)
    guard results.allSatisfy({ $0.hasPrefix(query + "-") }) else { throw InvariantViolation("query \"\(query)\" shows \(results)") }
    return "\"\(query)\" shows \(results)"
}

/// The "ab" search finishes first; the "a" search finishes later and overwrites the results.
@Sendable private func staleSearchResults() async throws -> String {
    try await typeTwoLetters(dropsStale: false)
}

/// Correct: results for a query that is no longer current are dropped on the main actor.
@Sendable private func dropsStaleResults() async throws -> String {
    try await typeTwoLetters(dropsStale: true)
}

@MainActor private final class FeedViewModel {
    private(set) var isLoading = false
    private(set) var items: [String] = []
    private var running = 0
    private(set) var peak = 0
    let api = SearchAPI()
    let flagFirst: Bool
    init(flagFirst: Bool) { self.flagFirst = flagFirst }

    /// Pull to refresh; ignored while a refresh is running.
    func refresh() async {
        guard !isLoading else { return }
        if flagFirst { isLoading = true }
        running += 1
        peak = max(peak, running)
        items = await api.search("cached")  // shows cached items first
        isLoading = true
        items = await api.search("feed")
        isLoading = false
        running -= 1
    }
}

private func pullTwice(flagFirst: Bool) async throws -> String {
    let model = await FeedViewModel(flagFirst: flagFirst)
    let pulls = (0..<2).map { _ in Task.detached { await model.refresh() } }
    for pull in pulls { await pull.value }
    let peak = await model.peak
    guard peak == 1 else { throw InvariantViolation("\(peak) refreshes ran at once") }
    return "refreshes never overlapped"
}

/// The first refresh awaits the cached load before setting the flag; the second pull passes the guard meanwhile.
@Sendable private func loadingFlagAfterAwait() async throws -> String {
    try await pullTwice(flagFirst: false)
}

/// Correct: the flag is set in the same main-actor turn as the guard.
@Sendable private func loadingFlagFirst() async throws -> String {
    try await pullTwice(flagFirst: true)
}
