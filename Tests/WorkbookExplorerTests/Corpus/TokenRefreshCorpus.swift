import WorkbookExplorer

let tokenRefreshCorpus: [CorpusCase] = [
    CorpusCase(name: "tokenRefresh.duplicateRefresh", shape: "seed-style token refresh", items: [11],
               expectation: .fails("two network refreshes for one expired token"), traps: false, body: duplicateRefresh),
    CorpusCase(name: "tokenRefresh.sharedRefreshTask", shape: "seed-style token refresh", items: [6, 11],
               expectation: .passes, traps: false, body: sharedRefreshTask),
    CorpusCase(name: "tokenRefresh.resurrectedAfterLogout", shape: "seed-style token refresh", items: [],
               expectation: .fails("a refresh in flight stores a token after logout"), traps: false, body: resurrectedAfterLogout),
    CorpusCase(name: "tokenRefresh.generationCheck", shape: "seed-style token refresh", items: [],
               expectation: .passes, traps: false, body: generationCheck),
]

/// A fake auth server: every refresh is counted and takes 50 ms of (injected) network time.
private actor AuthServer {
    private let clock = ExplorerClock()
    private(set) var refreshes = 0

    func refresh() async throws -> String {
        refreshes += 1
        let number = refreshes
        try await clock.sleep(for: .milliseconds(50))
        return "token-\(number)"
    }
}

/// Checks for a token, then awaits the server with nothing recorded: a second caller sees no token either.
private actor NaiveTokenStore {
    let server: AuthServer
    private var token: String?
    init(server: AuthServer) { self.server = server }

    func validToken() async throws -> String {
        if let token { return token }
        let fresh = try await server.refresh()
        token = fresh
        return fresh
    }
}

/// Keeps the refresh in flight as a task; later callers await the same task.
private actor SharedRefreshTokenStore {
    let server: AuthServer
    private var token: String?
    private var refreshing: Task<String, Error>?
    init(server: AuthServer) { self.server = server }

    func validToken() async throws -> String {
        if let token { return token }
        if let refreshing { return try await refreshing.value }
        let server = server
        let task = Task { try await server.refresh() }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        token = fresh
        return fresh
    }
}

/// A and B both find no token; A suspends on the network, B checks while A waits and refreshes too.
@Sendable private func duplicateRefresh() async throws -> String {
    let server = AuthServer()
    let store = NaiveTokenStore(server: server)
    async let first = { nameTask("A"); checkpoint("needs a token"); return try await store.validToken() }()
    async let second = { nameTask("B"); checkpoint("needs a token"); return try await store.validToken() }()
    let tokens = try await [first, second]
    let refreshes = await server.refreshes
    guard refreshes == 1 else { throw InvariantViolation("\(refreshes) refreshes for one expired token: \(tokens)") }
    return "one refresh, tokens \(tokens)"
}

/// Correct: the check and the recording of the refresh task happen in one actor turn.
@Sendable private func sharedRefreshTask() async throws -> String {
    let server = AuthServer()
    let store = SharedRefreshTokenStore(server: server)
    async let first = { nameTask("A"); checkpoint("needs a token"); return try await store.validToken() }()
    async let second = { nameTask("B"); checkpoint("needs a token"); return try await store.validToken() }()
    async let third = { nameTask("C"); return try await store.validToken() }()
    let tokens = try await [first, second, third]
    let refreshes = await server.refreshes
    guard refreshes == 1, Set(tokens).count == 1 else {
        throw InvariantViolation("\(refreshes) refreshes, tokens \(tokens)")
    }
    return "one refresh, tokens \(tokens)"
}

/// A session that refreshes its token and can be logged out while a refresh is in flight.
private actor LoginSession {
    let server = AuthServer()
    private(set) var token: String? = "token-0"
    private var generation = 0
    let checksGeneration: Bool
    init(checksGeneration: Bool) { self.checksGeneration = checksGeneration }

    func refresh() async throws {
        guard token != nil else { return }  // logged out: nothing to refresh
        let started = generation
        let fresh = try await server.refresh()
        if checksGeneration && started != generation { return }  // logged out meanwhile
        token = fresh
    }

    func logout() {
        token = nil
        generation += 1
    }
}

/// The refresh passes its guard, suspends on the network, logout runs, then the refresh stores a token.
@Sendable private func resurrectedAfterLogout() async throws -> String {
    try await refreshRacingLogout(LoginSession(checksGeneration: false))
}

/// Correct: a refresh that finds the generation changed drops its result.
@Sendable private func generationCheck() async throws -> String {
    try await refreshRacingLogout(LoginSession(checksGeneration: true))
}

private func refreshRacingLogout(_ session: LoginSession) async throws -> String {
    let refresher = Task { nameTask("refresher"); try await session.refresh() }
    let user = Task { nameTask("user"); checkpoint("taps log out"); await session.logout() }
    try await refresher.value
    await user.value
    if let token = await session.token { throw InvariantViolation("logged out, but the session holds \(token)") }
    return "logged out"
}
