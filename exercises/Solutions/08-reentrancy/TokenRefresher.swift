import ExerciseKit

/// Reference answer for exercise 08-reentrancy/TokenRefresher.
public actor TokenRefresher: TokenRefresherProtocol {
    private let server: TokenServer
    private var current: AuthToken
    /// The refresh in flight, which every caller joins; nil between refreshes.
    private var refreshing: Task<AuthToken, Error>?

    public init(server: TokenServer) {
        self.server = server
        current = server.firstToken
    }

    public func token() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        if current.isExpired { return try await refreshToken() }
        return current
    }

    public func refreshToken() async throws -> AuthToken {
        if let refreshing { return try await refreshing.value }
        // Made and stored before the first `await`: a caller that comes while this one waits
        // finds it. The task is unstructured, so no caller's cancellation reaches it; it runs on
        // this actor (a `Task {}` inherits the isolation it is written in), so storing the token
        // and clearing `refreshing` are one stretch with no suspension between them.
        let refresh = Task {
            defer { refreshing = nil }
            let fresh = try await server.refresh()
            current = fresh
            return fresh
        }
        refreshing = refresh
        return try await refresh.value
    }
}
