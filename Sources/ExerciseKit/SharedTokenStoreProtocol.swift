/// Exercise 07-actors/SharedTokenStore: the app that makes one API client per tab.
public protocol TokenAppProtocol: Sendable {
    init(server: AuthServer)
    /// The API client of tab `tab`. Every client the app makes, whenever it makes it, works
    /// with the same tokens: a refresh through one is seen by all.
    func makeClient(tab: Int) -> any APIClientProtocol
}

/// One tab's API client.
public protocol APIClientProtocol: Sendable {
    /// Sends `path` to the server with the current token and returns the answer.
    func send(_ path: String) async -> String
    /// Gets a new token from the server; when it returns, every client's next request uses it.
    func refreshToken() async
}
