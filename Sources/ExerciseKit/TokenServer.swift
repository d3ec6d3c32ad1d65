import WorkbookCore
import WorkbookExplorer

/// An access token of exercise 08-reentrancy/TokenRefresher: its version at the server (0 first,
/// then one more at each refresh that succeeds) and when it expires on the explorer's clock.
public struct AuthToken: Sendable, Equatable, CustomStringConvertible {
    public let version: Int
    public let expires: ExplorerClock.Instant

    /// Whether it has expired by now (the explorer's virtual clock under a check).
    public var isExpired: Bool { ExplorerClock().now >= expires }

    public var description: String { "token v\(version)" }
}

/// Why a refresh failed.
public enum TokenServerError: Error, Sendable, Equatable {
    case unavailable
}

/// The fake auth server of exercise 08-reentrancy/TokenRefresher. `refresh()` answers after 10 ms
/// (`ExplorerClock`: virtual time under the explorer) with the next version, valid for a second —
/// or fails, when the check scripted it so. A refresh whose task is cancelled before the answer
/// throws `CancellationError`, as a network call would. The check reads back how many refreshes
/// began, how many ran at once, and how each ended.
public final class TokenServer: Sendable {
    public static let latency = Duration.milliseconds(10)
    public static let lifetime = Duration.seconds(1)

    /// How the server answers one refresh.
    public enum Reply: Sendable {
        case token
        case failure
    }

    /// How a refresh ended, in the order they began.
    public enum Ending: Sendable, Equatable {
        case issued(version: Int)
        case failed
        case cancelled
    }

    private struct State {
        var replies: [Reply]
        var issued = 0
        var inFlight = 0
        var mostInFlight = 0
        var endings: [Ending?] = []
    }

    private let state: QuietLocked<State>
    /// The token the app starts with.
    public let firstToken: AuthToken

    /// A server whose refreshes answer with `replies` in order (a token after the last one), and
    /// whose first token is already expired when `firstTokenExpired`.
    public init(replies: [Reply] = [], firstTokenExpired: Bool = false) {
        state = QuietLocked(State(replies: replies))
        let now = ExplorerClock().now
        firstToken = AuthToken(version: 0, expires: firstTokenExpired ? now : now.advanced(by: Self.lifetime))
    }

    /// A new token, one version after the newest issued so far, 10 ms after the call.
    public func refresh() async throws -> AuthToken {
        let number = state.withLock { state in
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            state.endings.append(nil)
            return state.endings.count - 1
        }
        checkpoint(Localized("server: refresh \(number + 1) begins", ja: "サーバー: リフレッシュ \(number + 1) 開始"))
        func end(_ ending: Ending) {
            state.withLock { state in
                state.inFlight -= 1
                state.endings[number] = ending
            }
        }
        do {
            try await ExplorerClock().sleep(for: Self.latency)
        } catch {
            end(.cancelled)
            checkpoint(Localized("server: refresh \(number + 1) cancelled", ja: "サーバー: リフレッシュ \(number + 1) はキャンセルされた"))
            throw error
        }
        let reply = state.withLock { $0.replies.isEmpty ? Reply.token : $0.replies.removeFirst() }
        if reply == .failure {
            end(.failed)
            checkpoint(Localized("server: refresh \(number + 1) fails", ja: "サーバー: リフレッシュ \(number + 1) は失敗"))
            throw TokenServerError.unavailable
        }
        let version = state.withLock { state in
            state.issued += 1
            return state.issued
        }
        end(.issued(version: version))
        checkpoint(Localized("server: issues token v\(version)", ja: "サーバー: トークン v\(version) を発行"))
        return AuthToken(version: version, expires: ExplorerClock().now.advanced(by: Self.lifetime))
    }

    /// How many refreshes began.
    public var refreshes: Int { state.current.endings.count }
    /// The most refreshes in flight at one moment.
    public var mostAtOnce: Int { state.current.mostInFlight }
    /// How each refresh ended (nil: still in flight), in the order they began.
    public var endings: [Ending?] { state.current.endings }
    /// The version of the newest token issued so far (0: none yet).
    public var newestIssued: Int { state.current.issued }
}
