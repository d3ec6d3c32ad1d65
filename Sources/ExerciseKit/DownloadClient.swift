import WorkbookCore
import WorkbookExplorer

/// Downloaded bytes. Only the client makes them.
public struct Payload: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    init(_ name: String) { self.name = name }
    public var description: String { "Payload(\(name))" }
}

/// The client's own failures, as `URLError` is `URLSession`'s.
public enum DownloadError: Error, Equatable, Sendable {
    /// No connection: passed to the caller as it is.
    case offline
    /// The download was cancelled with `DownloadHandle.cancel()` (as `URLError.cancelled`).
    case cancelled
}

/// One download in progress, as a `URLSessionTask` is: `cancel()` stops it, and its completion
/// handler is then called — later, from the client's task — with `DownloadError.cancelled`.
/// Cancelling a download that has ended does nothing.
public final class DownloadHandle: Sendable {
    let client: DownloadClient
    let number: Int
    init(client: DownloadClient, number: Int) {
        self.client = client
        self.number = number
    }

    public func cancel() { client.cancel(number) }
}

/// The fake client of exercise 05-continuations/CancellableRequest: `download(_:completion:)`
/// returns a handle at once and calls `completion` exactly once — the payload or the client's
/// error after the file's delay (an `ExplorerClock` sleep: virtual time under the explorer), or
/// `DownloadError.cancelled` soon after `cancel()`. A stalled file never ends unless cancelled.
public final class DownloadClient: Sendable {
    /// How a file downloads.
    public enum File: Sendable, Equatable {
        case completes(after: Duration)
        case fails(after: Duration)
        /// Never ends unless cancelled.
        case stalls
    }

    /// What became of one download.
    public enum Ending: Sendable, Equatable {
        case completed, failed, cancelled
    }

    private struct Download {
        let name: String
        var ending: Ending?
        /// `cancel()` came while it ran.
        var cancelRequested = false
        let completion: @Sendable (Result<Payload, any Error>) -> Void
    }

    private let files: [String: File]
    private let state = QuietLocked<[Download]>([])
    private let starting = QuietLocked<(name: String, action: @Sendable () -> Void)?>(nil)

    public init(files: [String: File]) {
        self.files = files
    }

    /// Runs `action` inside `download(name)`, first thing — before the download exists and its
    /// handle is returned — on the calling thread: a cancel from another thread can land exactly
    /// then, and a check makes it happen there on purpose.
    public func whenStarting(_ name: String, _ action: @escaping @Sendable () -> Void) {
        starting.withLock { $0 = (name, action) }
    }

    /// Starts downloading `name`; see the type's description.
    public func download(_ name: String, completion: @escaping @Sendable (Result<Payload, any Error>) -> Void) -> DownloadHandle {
        let hook = starting.withLock { hook -> (@Sendable () -> Void)? in
            guard let found = hook, found.name == name else { return nil }
            hook = nil
            return found.action
        }
        hook?()
        let number = state.withLock { downloads in
            downloads.append(Download(name: name, completion: completion))
            return downloads.count - 1
        }
        checkpoint("download(\"\(name)\")")
        let file = files[name] ?? .stalls
        let client = self
        switch file {
        case let .completes(after: delay), let .fails(after: delay):
            Task {
                nameTask(Localized("client", ja: "クライアント"))
                try? await ExplorerClock().sleep(for: delay)
                client.end(number, file == .fails(after: delay) ? .failed : .completed)
            }
        case .stalls:
            break
        }
        return DownloadHandle(client: self, number: number)
    }

    func cancel(_ number: Int) {
        let running = state.withLock { downloads -> Bool in
            guard downloads[number].ending == nil, !downloads[number].cancelRequested else { return false }
            downloads[number].cancelRequested = true
            return true
        }
        checkpoint(.verbatim(running ? "handle.cancel()" : "handle.cancel() (ended already)"))
        guard running else { return }
        let client = self
        Task {
            nameTask(Localized("client", ja: "クライアント"))
            client.end(number, .cancelled)
        }
    }

    /// Ends a download once: the first ending wins (a cancel after the payload does nothing, the
    /// payload after a cancel is never sent).
    private func end(_ number: Int, _ ending: Ending) {
        let found = state.withLock { downloads -> (String, @Sendable (Result<Payload, any Error>) -> Void)? in
            guard downloads[number].ending == nil else { return nil }
            if ending != .cancelled, downloads[number].cancelRequested { return nil }
            downloads[number].ending = ending
            return (downloads[number].name, downloads[number].completion)
        }
        guard let (name, completion) = found else { return }
        switch ending {
        case .completed:
            checkpoint("\"\(name)\" → Payload")
            completion(.success(Payload(name)))
        case .failed:
            checkpoint("\"\(name)\" → DownloadError.offline")
            completion(.failure(DownloadError.offline))
        case .cancelled:
            checkpoint("\"\(name)\" → DownloadError.cancelled")
            completion(.failure(DownloadError.cancelled))
        }
    }

    // MARK: For the check

    /// Every download started, in order, with how it ended (nil: still running).
    public var downloads: [(name: String, ending: Ending?)] { state.current.map { ($0.name, $0.ending) } }
}
