import WorkbookExplorer

// Chapter 08, the token-refresh story in full: an actor keeps the refresh in flight as a stored
// `Task`, created inside the actor method. One flaw at a time, each with the scenario that shows it,
// and the complete pattern run through the same scenario.

let tokenRefreshCorpus0608: [CorpusBody] = [
    CorpusBody("tokenRefresh0608.readerSkipsInFlight", shape: "token refresh with a stored refresh task (plain Task.sleep)",
               .fails("a reader 10 ms into a refresh gets the expired token: only refresh() awaits the in-flight task"),
               body: readerSkipsInFlight),
    CorpusBody("tokenRefresh0608.readerJoinsInFlight", shape: "token refresh with a stored refresh task (plain Task.sleep)",
               .passes, body: readerJoinsInFlight),
    CorpusBody("tokenRefresh0608.taskStoredAfterAwait", shape: "token refresh with a stored refresh task (ExplorerClock)",
               .fails("two 401s at once start two refreshes: the task is stored only after reading the keychain"),
               body: taskStoredAfterAwait),
    CorpusBody("tokenRefresh0608.taskStoredFirst", shape: "token refresh with a stored refresh task (ExplorerClock)",
               .passes, body: taskStoredFirst),
    CorpusBody("tokenRefresh0608.taskNeverCleared", shape: "token refresh with a stored refresh task (plain Task.sleep)",
               .fails("a later expiry never refreshes: the finished task is never cleared and hands back the old token"),
               body: taskNeverCleared),
    CorpusBody("tokenRefresh0608.taskClearedWithToken", shape: "token refresh with a stored refresh task (plain Task.sleep)",
               .passes, body: taskClearedWithToken),
    CorpusBody("tokenRefresh0608.clearedBeforeStored", shape: "token refresh with a stored refresh task (ExplorerClock)",
               .fails("a reader between clearing the task and storing the token (while the keychain saves) gets the expired token"),
               body: clearedBeforeStored),
    CorpusBody("tokenRefresh0608.storedThenCleared", shape: "token refresh with a stored refresh task (ExplorerClock)",
               .passes, body: storedThenCleared),
    CorpusBody("tokenRefresh0608.twoPlainSleeps", shape: "token refresh with a stored refresh task (two plain Task.sleep in a row)",
               .passes, body: twoPlainSleeps),
]

/// How a fake waits for its network or disk: plain `Task.sleep` or the explorer's clock (both virtual in a run).
private enum Wait: Sendable {
    case plainSleep, explorerClock

    func callAsFunction(_ milliseconds: Int) async throws {
        switch self {
        case .plainSleep: try await Task.sleep(for: .milliseconds(milliseconds))
        case .explorerClock: try await ExplorerClock().sleep(for: .milliseconds(milliseconds))
        }
    }
}

/// A fake auth server: counts refreshes; a refresh takes 50 ms (or two 50 ms waits over a slow link).
private actor AuthServer {
    let wait: Wait
    let slowLink: Bool
    private(set) var refreshes = 0
    init(wait: Wait, slowLink: Bool = false) {
        self.wait = wait
        self.slowLink = slowLink
    }

    func refresh(using credential: String) async throws -> String {
        refreshes += 1
        let number = refreshes
        if slowLink {
            try await Task.sleep(for: .milliseconds(50))  // handshake
            try await Task.sleep(for: .milliseconds(50))  // the refresh itself
        } else {
            try await wait(50)
        }
        return "token-\(number)"
    }
}

/// Reading the refresh credential takes 1 ms, saving a token 5 ms.
private actor Keychain {
    let wait: Wait
    private(set) var saved: String?
    init(wait: Wait) { self.wait = wait }

    func refreshCredential() async throws -> String {
        try await wait(1)
        return "refresh-credential"
    }

    func save(_ token: String) async throws {
        try await wait(5)
        saved = token
    }
}

/// Which single mistake the session makes (`.none`: the complete pattern).
private enum Flaw: Sendable {
    case none
    /// `currentToken()` returns the stored token without looking at the refresh in flight (the seed's bug).
    case readerSkipsTask
    /// Reads the keychain first and stores the task only after that await.
    case storesTaskAfterAwait
    /// Stores the new token but leaves the finished task in place.
    case neverClearsTask
    /// Clears the task, awaits the keychain save, and only then stores the token.
    case clearsBeforeStoring
}

private actor Session {
    private let server: AuthServer
    private let keychain: Keychain
    private let flaw: Flaw
    private var token = "token-0"  // expired: the server answers 401 to it
    private var refreshTask: Task<String, Error>?

    init(server: AuthServer, keychain: Keychain, flaw: Flaw) {
        self.server = server
        self.keychain = keychain
        self.flaw = flaw
    }

    /// What a request attaches.
    func currentToken() async throws -> String {
        if flaw != .readerSkipsTask, let refreshTask { return try await refreshTask.value }
        return token
    }

    /// Called on a 401: one refresh per expiry, shared by every caller.
    func refresh() async throws -> String {
        if let refreshTask { return try await refreshTask.value }
        let (server, keychain) = (server, keychain)
        let task: Task<String, Error>
        if flaw == .storesTaskAfterAwait {
            let credential = try await keychain.refreshCredential()
            task = Task { try await server.refresh(using: credential) }
        } else {
            task = Task {
                let credential = try await keychain.refreshCredential()
                return try await server.refresh(using: credential)
            }
        }
        refreshTask = task
        let fresh: String
        do {
            fresh = try await task.value
        } catch {
            refreshTask = nil
            throw error
        }
        switch flaw {
        case .neverClearsTask:
            token = fresh
            try await keychain.save(fresh)
        case .clearsBeforeStoring:
            refreshTask = nil
            try await keychain.save(fresh)
            token = fresh
        case .none, .readerSkipsTask, .storesTaskAfterAwait:
            token = fresh
            refreshTask = nil
            try await keychain.save(fresh)
        }
        return fresh
    }
}

private func makeSession(_ flaw: Flaw, _ wait: Wait, slowLink: Bool = false) -> (Session, AuthServer) {
    let server = AuthServer(wait: wait, slowLink: slowLink)
    return (Session(server: server, keychain: Keychain(wait: wait), flaw: flaw), server)
}

/// A request gets a 401 at 0 ms and refreshes; another request asks for a token at `readerAt` ms.
private func readerDuringRefresh(_ flaw: Flaw, _ wait: Wait, readerAt: Int) async throws -> String {
    let (session, _) = makeSession(flaw, wait)
    let refresher = Task {
        nameTask("refresher")
        return try await session.refresh()
    }
    let reader = Task {
        nameTask("reader")
        try await wait(readerAt)
        checkpoint("needs a token")
        return try await session.currentToken()
    }
    let fresh = try await refresher.value
    let read = try await reader.value
    guard read == fresh else {
        throw InvariantViolation("reader at \(readerAt) ms got the expired \(read) while the refresh to \(fresh) was under way")
    }
    return "tokens: \(fresh), \(read)"
}

/// The refresh task is stored at 0 ms and finishes at 51 ms; the reader asks at 10 ms and ignores it.
@Sendable private func readerSkipsInFlight() async throws -> String {
    try await readerDuringRefresh(.readerSkipsTask, .plainSleep, readerAt: 10)
}

/// Correct: the reader at 10 ms awaits the stored refresh task.
@Sendable private func readerJoinsInFlight() async throws -> String {
    try await readerDuringRefresh(.none, .plainSleep, readerAt: 10)
}

/// Two requests get a 401 at the same moment.
private func twoUnauthorized(_ flaw: Flaw) async throws -> String {
    let (session, server) = makeSession(flaw, .explorerClock)
    let first = Task {
        nameTask("A")
        return try await session.refresh()
    }
    let second = Task {
        nameTask("B")
        return try await session.refresh()
    }
    let tokens = [try await first.value, try await second.value]
    let refreshes = await server.refreshes
    guard refreshes == 1, tokens[0] == tokens[1] else {
        throw InvariantViolation("\(refreshes) refreshes for one expiry, tokens: \(tokens.joined(separator: ", "))")
    }
    return "tokens: \(tokens.joined(separator: ", "))"
}

/// A reads the keychain (1 ms) with no task stored; B finds no task either and refreshes too.
@Sendable private func taskStoredAfterAwait() async throws -> String {
    try await twoUnauthorized(.storesTaskAfterAwait)
}

/// Correct: the task is stored before the first await, so whichever 401 comes second joins it.
@Sendable private func taskStoredFirst() async throws -> String {
    try await twoUnauthorized(.none)
}

/// The token expires, is refreshed, and expires again a second later.
private func twoExpiries(_ flaw: Flaw) async throws -> String {
    let (session, server) = makeSession(flaw, .plainSleep)
    let first = try await session.refresh()
    try await Task.sleep(for: .seconds(1))
    let second = try await session.refresh()
    let refreshes = await server.refreshes
    guard refreshes == 2, second != first else {
        throw InvariantViolation("the second expiry got \(second) again after \(refreshes) refresh(es): it never refreshed")
    }
    return "tokens: \(first), \(second)"
}

/// The finished task stays stored; the second 401 awaits it and gets token-1 back.
@Sendable private func taskNeverCleared() async throws -> String {
    try await twoExpiries(.neverClearsTask)
}

/// Correct: the task is cleared with the token stored, so the second expiry refreshes again.
@Sendable private func taskClearedWithToken() async throws -> String {
    try await twoExpiries(.none)
}

/// The refresh ends at 51 ms; the task is cleared, the keychain save runs to 56 ms, then the token is
/// stored. The reader at 53 ms finds no task and the expired token.
@Sendable private func clearedBeforeStored() async throws -> String {
    try await readerDuringRefresh(.clearsBeforeStoring, .explorerClock, readerAt: 53)
}

/// Correct: the token is stored and the task cleared in one synchronous stretch, then saved.
@Sendable private func storedThenCleared() async throws -> String {
    try await readerDuringRefresh(.none, .explorerClock, readerAt: 53)
}

/// Correct: the refresh waits 50 ms twice (plain `Task.sleep`), ending at 101 ms; a 401 at 20 ms and a
/// reader at 60 ms join it, a reader at 130 ms reads the stored token.
@Sendable private func twoPlainSleeps() async throws -> String {
    let (session, server) = makeSession(.none, .plainSleep, slowLink: true)
    let refresher = Task {
        nameTask("refresher")
        return try await session.refresh()
    }
    let second401 = Task {
        nameTask("second 401")
        try await Task.sleep(for: .milliseconds(20))
        return try await session.refresh()
    }
    let early = Task {
        nameTask("early reader")
        try await Task.sleep(for: .milliseconds(60))
        return try await session.currentToken()
    }
    let late = Task {
        nameTask("late reader")
        try await Task.sleep(for: .milliseconds(130))
        return try await session.currentToken()
    }
    let tokens = [try await refresher.value, try await second401.value, try await early.value, try await late.value]
    let refreshes = await server.refreshes
    guard refreshes == 1, tokens.allSatisfy({ $0 == "token-1" }) else {
        throw InvariantViolation("\(refreshes) refreshes, tokens: \(tokens.joined(separator: ", "))")
    }
    return "tokens: \(tokens.joined(separator: ", "))"
}
