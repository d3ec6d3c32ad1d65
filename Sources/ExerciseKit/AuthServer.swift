import WorkbookCore
import WorkbookExplorer

/// An access token: the server that issued it, and its version there (0 first, then one more
/// at each refresh).
public struct Token: Sendable, Equatable, CustomStringConvertible {
    public let version: Int
    let issuer: ObjectIdentifier

    public var description: String { "token v\(version)" }
}

/// The fake auth server of exercise 07-actors/SharedTokenStore. `refreshToken()` issues the next
/// version at once and answers after 10 ms; `send(_:token:)` answers a request after 10 ms
/// (`ExplorerClock`: virtual time under the explorer). The check reads back every request, with its token, and every
/// refresh, with when it was issued.
public final class AuthServer: Sendable {
    public static let latency = Duration.milliseconds(10)

    public struct Request: Sendable {
        public let tab: Int
        public let path: String
        public let token: Token
    }

    private struct State {
        var issued = 0
        var newestAnswered = 0
        var requests: [Request] = []
    }

    private let state = QuietLocked(State())

    public init() {}

    /// The token every client starts with: version 0.
    public var firstToken: Token { Token(version: 0, issuer: ObjectIdentifier(self)) }

    /// A new token, one version after the newest issued so far.
    /// The version is issued when the request arrives; the answer takes `latency` to come back,
    /// so the answers to two refreshes at once may come back in either order.
    public func refreshToken() async -> Token {
        let version = state.withLock { state in
            state.issued += 1
            return state.issued
        }
        checkpoint(Localized("server issues token v\(version)", ja: "サーバーがトークン v\(version) を発行"))
        try? await ExplorerClock().sleep(for: Self.latency)
        state.withLock { $0.newestAnswered = max($0.newestAnswered, version) }
        return Token(version: version, issuer: ObjectIdentifier(self))
    }

    /// Answers `path` for `tab`, sent with `token`.
    public func send(_ path: String, tab: Int, token: Token) async -> String {
        checkpoint(Localized("tab \(tab) sends \(path) with \(token)", ja: "タブ \(tab) がトークン v\(token.version) で \(path) を送る"))
        state.withLock { $0.requests.append(Request(tab: tab, path: path, token: token)) }
        try? await ExplorerClock().sleep(for: Self.latency)
        return "\(path): ok"
    }

    /// Whether this server issued `token`.
    public func issued(_ token: Token) -> Bool { token.issuer == ObjectIdentifier(self) }

    /// The newest version whose answer has come back to its caller.
    public var newestAnswered: Int { state.current.newestAnswered }

    /// Every request received, in order.
    public var requests: [Request] { state.current.requests }
}
