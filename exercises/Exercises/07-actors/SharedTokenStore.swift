import ExerciseKit

// Exercise 07-actors/SharedTokenStore — read chapters/en/07-actors.md (ja: chapters/ja/07-actors.md) first.
//
// Goal: the app makes one API client per tab, and each client gets a `TokenStore` of its own.
// Each store is an actor, so each is safe — but isolation is per instance: a refresh in one tab
// is never seen by the other tabs, which go on sending the old token (the story's session lost
// on a tab switch). Make every client of one app share one token store, so that
//   - a refresh through any client is seen by every client, also one made after the refresh;
//   - no request goes out with a token older than the newest refresh that had finished when
//     the request was sent.
// One store for the app, made by the app: not a `static let shared` store, which outlives the
// app (the check makes a fresh app for every schedule, and would say so). `TokenStore` itself is
// done: it keeps the newer token when two refreshes overlap (why that is needed: chapter 08).
//
// Check your answer:   swift test --filter ExercisesTests.SharedTokenStore
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

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

    public init(server: AuthServer) {
        self.server = server
    }

    public func makeClient(tab: Int) -> any APIClientProtocol {
        // TODO: give every client the app's one store (made once, with the app) instead of a
        // new one each. Then delete the next line.
        todo(fix: "one token store for the whole app")
        return APIClient(tab: tab, server: server, store: TokenStore(server: server))
    }
}
