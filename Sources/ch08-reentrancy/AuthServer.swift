import WorkbookCore
import WorkbookExplorer

/// An access token: its version at the server.
struct Token: Sendable, Equatable, CustomStringConvertible {
    let version: Int
    var description: String { "v\(version)" }
}

enum RefreshError: Error, Equatable {
    case unavailable
}

/// The fake auth server of scenarios 1 and 4, in virtual time: a refresh answers after 10 ms with
/// the next version and retires every older one (servers that rotate tokens do). It can be told to
/// fail its next refreshes, and it counts how many began and how many were in flight at once.
final class AuthServer: Sendable {
    static let latency = Duration.milliseconds(10)

    private struct State {
        var newest = 1
        var began = 0
        var inFlight = 0
        var mostAtOnce = 0
        var failures = 0
        var endings: [String] = []
    }

    private let clock = ExplorerClock()
    private let state: Locked<State>

    /// `failing`: how many refreshes fail before one succeeds.
    init(failing: Int = 0) {
        state = Locked(State(failures: failing))
    }

    func refresh() async throws -> Token {
        let number = state.withLock { state in
            state.began += 1
            state.inFlight += 1
            state.mostAtOnce = max(state.mostAtOnce, state.inFlight)
            return state.began
        }
        checkpoint(Localized("server: refresh \(number) begins", ja: "サーバー: リフレッシュ \(number) 開始"))
        defer { state.withLock { $0.inFlight -= 1 } }
        do {
            try await clock.sleep(for: Self.latency)
        } catch {
            state.withLock { $0.endings.append("cancelled") }
            checkpoint(Localized("server: refresh \(number) cancelled", ja: "サーバー: リフレッシュ \(number) はキャンセルされた"))
            throw error
        }
        let failed = state.withLock { state -> Bool in
            guard state.failures > 0 else { return false }
            state.failures -= 1
            state.endings.append("failed")
            return true
        }
        if failed {
            checkpoint(Localized("server: refresh \(number) fails", ja: "サーバー: リフレッシュ \(number) は失敗"))
            throw RefreshError.unavailable
        }
        let version = state.withLock { state -> Int in
            state.newest += 1
            state.endings.append("issued v\(state.newest)")
            return state.newest
        }
        checkpoint(Localized("server: issues v\(version)", ja: "サーバー: v\(version) を発行"))
        return Token(version: version)
    }

    /// Whether a request with `token` would be accepted: only the newest version is.
    func accepts(_ token: Token) -> Bool { state.current.newest == token.version }

    var refreshes: Int { state.current.began }
    var mostAtOnce: Int { state.current.mostAtOnce }
    /// How each refresh ended, in the order they ended: `issued v2`, `failed`, `cancelled`.
    var endings: [String] { state.current.endings }
}
