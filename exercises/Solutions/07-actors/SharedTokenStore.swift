import ExerciseKit

/// Reference answer for exercise 07-actors/SharedTokenStore.
public actor TokenStore {
    private let server: AuthServer
    private var token: Token

    public init(server: AuthServer) {
        self.server = server
        token = server.firstToken
    }

    public func current() -> Token { token }

    public func refresh() async {
        let fresh = await server.refreshToken()
        // Two refreshes may overlap, and the older token may come back last (chapter 08):
        // keep the newer one.
        if fresh.version > token.version { token = fresh }
    }
}

public struct APIClient: APIClientProtocol {
    let tab: Int
    let server: AuthServer
    let store: TokenStore

    public func send(_ path: String) async -> String {
        let token = await store.current()
        return await server.send(path, tab: tab, token: token)
    }

    public func refreshToken() async {
        await store.refresh()
    }
}

public struct TokenApp: TokenAppProtocol {
    private let server: AuthServer
    /// One store for the app, made with it: every client shares it, and it lives as long as
    /// the app does — no longer.
    private let store: TokenStore

    public init(server: AuthServer) {
        self.server = server
        store = TokenStore(server: server)
    }

    public func makeClient(tab: Int) -> any APIClientProtocol {
        APIClient(tab: tab, server: server, store: store)
    }
}
