import ExerciseKit

// TokenRefresher answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// The starting code: every caller that finds the token expired, or is told it was rejected,
/// asks the server itself.
actor NaiveRefresher: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        current = try await server.refresh()
        return current
    }
}

/// The story's fix: the write path waits for the refresh in flight; the read path does not.
actor SlidesHalfFix: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        let task = Task {
            defer { refreshing = nil }
            current = try await server.refresh()
            return current
        }
        refreshing = task
        return try await task.value
    }
}

/// Stores the task only once its value came: no caller ever finds it in flight.
actor StoredAfterAwait: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        let task = Task { try await server.refresh() }
        current = try await task.value
        refreshing = task
        defer { refreshing = nil }
        return current
    }
}

/// Never clears the stored task: after a failure every later call gets the same failure.
actor NeverCleared: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        let task = Task {
            current = try await server.refresh()
            return current
        }
        refreshing = task
        return try await task.value
    }
}

/// Clears the task as soon as the server answered, then awaits saving the token before storing
/// it: a caller in between finds no refresh and the old token.
actor ClearedBeforeStored: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        let task = Task {
            defer { refreshing = nil }
            return try await server.refresh()
        }
        refreshing = task
        let fresh = try await task.value
        await save(fresh)
        current = fresh
        return fresh
    }
    private nonisolated func save(_ token: AuthToken) async {}
}

/// Cancels the shared refresh when the caller that waits on it is cancelled.
actor CancelsShared: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await join(refreshing) }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await join(refreshing) }
        let task = Task {
            defer { refreshing = nil }
            current = try await server.refresh()
            return current
        }
        refreshing = task
        return try await join(task)
    }
    private func join(_ task: Task<AuthToken, Error>) async throws -> AuthToken {
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }
}

/// The first caller refreshes in its own task and the others wait for it with continuations:
/// cancelling that caller cancels the server call everyone waits on.
actor RefreshInCallerTask: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var isRefreshing = false
    private var waiters: [CheckedContinuation<AuthToken, Error>] = []
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if isRefreshing { return try await waitForRefresh() }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if isRefreshing { return try await waitForRefresh() }
        isRefreshing = true
        defer { isRefreshing = false }
        do {
            current = try await server.refresh()
            for waiter in waiters { waiter.resume(returning: current) }
            waiters = []
            return current
        } catch {
            for waiter in waiters { waiter.resume(throwing: error) }
            waiters = []
            throw error
        }
    }
    private func waitForRefresh() async throws -> AuthToken {
        try await withCheckedThrowingContinuation { waiters.append($0) }
    }
}

/// Waiters kept as continuations, resumed on success only: a failure leaves them waiting.
actor FailureForgetsWaiters: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var isRefreshing = false
    private var waiters: [CheckedContinuation<AuthToken, Error>] = []
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if isRefreshing { return try await withCheckedThrowingContinuation { waiters.append($0) } }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if isRefreshing { return try await withCheckedThrowingContinuation { waiters.append($0) } }
        isRefreshing = true
        defer { isRefreshing = false }
        let server = self.server
        current = try await Task.detached { try await server.refresh() }.value
        for waiter in waiters { waiter.resume(returning: current) }
        waiters = []
        return current
    }
}

/// Remembers a failure instead of the task: later calls are told of it without a new refresh.
actor RemembersFailure: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    private var lastFailure: (any Error)?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let lastFailure { throw lastFailure }
        if let refreshing { return try await refreshing.value }
        let task = Task {
            defer { refreshing = nil }
            do {
                current = try await server.refresh()
                return current
            } catch {
                lastFailure = error
                throw error
            }
        }
        refreshing = task
        return try await task.value
    }
}

/// Checks for a refresh in flight, then records the refresh in another actor before storing
/// its own: two callers both pass the check.
actor ChecksThenAwaits: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        await analytics.record("refresh")
        let task = Task {
            defer { refreshing = nil }
            current = try await server.refresh()
            return current
        }
        refreshing = task
        return try await task.value
    }
    private let analytics = RefreshLog()
}

/// Records events, as an app's analytics would.
actor RefreshLog {
    private var events: [String] = []
    func record(_ event: String) { events.append(event) }
}

/// Waiters kept as continuations; a first caller cancelled while the refresh ran drops the
/// refresh — and, with it, every caller that joined it.
actor CancelDropsWaiters: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var isRefreshing = false
    private var waiters: [CheckedContinuation<AuthToken, Error>] = []
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if isRefreshing { return try await withCheckedThrowingContinuation { waiters.append($0) } }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if isRefreshing { return try await withCheckedThrowingContinuation { waiters.append($0) } }
        isRefreshing = true
        let server = self.server
        let result: Result<AuthToken, Error>
        do { result = .success(try await Task.detached { try await server.refresh() }.value) } catch { result = .failure(error) }
        if Task.isCancelled {  // the caller went away: start afresh next time
            isRefreshing = false
            waiters = []
            throw CancellationError()
        }
        if case let .success(fresh) = result { current = fresh }
        isRefreshing = false
        let joined = waiters
        waiters = []
        for waiter in joined { waiter.resume(with: result) }
        return try result.get()
    }
}

/// A correct answer: waiters as continuations, resumed with the refresh's own result whatever
/// it is; the refresh runs in an unstructured task, so no caller's cancellation reaches it.
actor ContinuationWaiters: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var waiters: [CheckedContinuation<AuthToken, Error>]?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if waiters != nil { return try await join() }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if waiters != nil { return try await join() }
        waiters = []
        let server = self.server
        Task {
            let result: Result<AuthToken, Error>
            do { result = .success(try await server.refresh()) } catch { result = .failure(error) }
            if case let .success(fresh) = result { current = fresh }
            let joined = waiters ?? []
            waiters = nil
            for waiter in joined { waiter.resume(with: result) }
        }
        return try await join()
    }
    private func join() async throws -> AuthToken {
        try await withCheckedThrowingContinuation { waiters?.append($0) }
    }
}

/// A correct answer: the refresh kept as a task, joined through one helper, its result stored by
/// the first caller after the `await` only when no newer refresh replaced it.
actor SharedTaskHelper: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var inFlight: Task<AuthToken, Error>?
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if inFlight == nil && !current.isExpired { return current }
        return try await refreshToken()
    }
    func refreshToken() async throws -> AuthToken {
        let task = inFlight ?? startRefresh()
        return try await task.value
    }
    private func startRefresh() -> Task<AuthToken, Error> {
        let task = Task {
            do {
                let fresh = try await server.refresh()
                current = fresh
                inFlight = nil
                return fresh
            } catch {
                inFlight = nil
                throw error
            }
        }
        inFlight = task
        return task
    }
}

/// A correct answer: waiters in a dictionary by ticket, resumed in the dictionary's order; a
/// cancelled caller leaves at once with `CancellationError`, the refresh goes on for the others.
actor WaitersByTicket: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    private var refreshing = false
    private var nextTicket = 0
    private var waiters: [Int: CheckedContinuation<AuthToken, Error>] = [:]
    init(server: TokenServer) { (self.server, current) = (server, server.firstToken) }
    func token() async throws -> AuthToken {
        if refreshing { return try await join() }
        if current.isExpired { return try await refreshToken() }
        return current
    }
    func refreshToken() async throws -> AuthToken {
        if !refreshing {
            refreshing = true
            let server = self.server
            Task {
                let result: Result<AuthToken, Error>
                do { result = .success(try await server.refresh()) } catch { result = .failure(error) }
                if case let .success(fresh) = result { current = fresh }
                refreshing = false
                let joined = waiters
                waiters = [:]
                for waiter in joined.values { waiter.resume(with: result) }
            }
        }
        return try await join()
    }
    private func join() async throws -> AuthToken {
        let ticket = nextTicket
        nextTicket += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiters[ticket] = $0 }
        } onCancel: {
            Task { await self.leave(ticket) }
        }
    }
    private func leave(_ ticket: Int) {
        waiters.removeValue(forKey: ticket)?.resume(throwing: CancellationError())
    }
}
