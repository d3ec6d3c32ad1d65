import WorkbookCore
import WorkbookExplorer

/// A downloaded image of exercise 08-reentrancy/DedupingCache: its key and which download of
/// that key made it (1 for the first). Only the server makes them.
public struct RemoteImage: Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let download: Int

    public var description: String { download == 1 ? "image(\(key))" : "image(\(key), download \(download))" }
}

/// Why a download failed.
public enum ImageServerError: Error, Sendable, Equatable {
    case unavailable
}

/// The fake image server of exercise 08-reentrancy/DedupingCache. `download(_:)` answers after
/// 10 ms (`ExplorerClock`: virtual time under the explorer), or fails when the check scripted it
/// so; a download whose task is cancelled throws `CancellationError`. The check reads back how
/// many downloads of each key began and which keys were downloading at the same moment.
public final class ImageServer: Sendable {
    public static let latency = Duration.milliseconds(10)

    private struct State {
        var failures: [String: Int]
        var started: [String: Int] = [:]
        var inFlight: Set<String> = []
        var mostAtOnce = 0
    }

    private let state: QuietLocked<State>

    /// A server whose first `failures[key]` downloads of `key` fail.
    public init(failures: [String: Int] = [:]) {
        state = QuietLocked(State(failures: failures))
    }

    /// The image for `key`, 10 ms after the call.
    public func download(_ key: String) async throws -> RemoteImage {
        let number = state.withLock { state in
            state.started[key, default: 0] += 1
            state.inFlight.insert(key)
            state.mostAtOnce = max(state.mostAtOnce, state.inFlight.count)
            return state.started[key]!
        }
        checkpoint(Localized("server: download \(number) of \"\(key)\" begins", ja: "サーバー: \"\(key)\" のダウンロード \(number) 開始"))
        defer { state.withLock { _ = $0.inFlight.remove(key) } }
        try await ExplorerClock().sleep(for: Self.latency)
        let fails = state.withLock { state in
            guard let left = state.failures[key], left > 0 else { return false }
            state.failures[key] = left - 1
            return true
        }
        if fails {
            checkpoint(Localized("server: download \(number) of \"\(key)\" fails", ja: "サーバー: \"\(key)\" のダウンロード \(number) は失敗"))
            throw ImageServerError.unavailable
        }
        checkpoint(Localized("server: sends \"\(key)\" (download \(number))", ja: "サーバー: \"\(key)\" を送る（ダウンロード \(number)）"))
        return RemoteImage(key: key, download: number)
    }

    /// How many downloads of `key` began.
    public func downloads(of key: String) -> Int { state.current.started[key] ?? 0 }
    /// The most keys downloading at one moment.
    public var mostAtOnce: Int { state.current.mostAtOnce }
}
