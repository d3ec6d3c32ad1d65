/// Exercise 08-reentrancy/TokenRefresher: the one place an app gets its access token from.
public protocol TokenRefresherProtocol: Actor {
    init(server: TokenServer)
    /// The token to send with a request: the stored one while it is good, else a fresh one.
    func token() async throws -> AuthToken
    /// A fresh token from the server, after it rejected the stored one (a 401).
    func refreshToken() async throws -> AuthToken
}
