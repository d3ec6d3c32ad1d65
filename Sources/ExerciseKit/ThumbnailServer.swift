import Foundation
import WorkbookCore
import WorkbookExplorer

/// The bytes a `ThumbnailServer` sends for one picture id. Only the server makes them.
public struct ImageData: Sendable, Equatable {
    public let id: String
    let isImage: Bool
    let canShrink: Bool
    /// What a server of the chapter's scenarios says it sent.
    public var byteCount: Int { isImage ? 48_000 + id.utf8.count : 312 }
}

/// A decoded picture, as `UIImage(data:)` gives one: `nil` when the bytes are not an image.
public struct Picture: Sendable {
    public let id: String
    let canShrink: Bool
    let latency: Duration

    public init?(data: ImageData) {
        guard data.isImage else { return nil }
        id = data.id
        canShrink = data.canShrink
        latency = .milliseconds(5)
    }

    /// The picture made small, or `nil` when it cannot be (too small already) — an async
    /// read-only property, as `UIImage`'s `thumbnail` in the talk that introduced async/await:
    /// reading it suspends.
    public var thumbnail: Thumbnail? {
        get async {
            checkpoint("Picture(\"\(id)\").thumbnail")
            try? await ExplorerClock().sleep(for: latency)
            checkpoint("Picture(\"\(id)\").thumbnail → \(canShrink ? "Thumbnail(\(id))" : "nil")")
            return canShrink ? Thumbnail(id: id) : nil
        }
    }

    /// The same, with a completion handler (the older API): called once, later, from a task of
    /// its own.
    public func prepareThumbnail(completion: @escaping @Sendable (Thumbnail?) -> Void) {
        let picture = self
        Task {
            nameTask(Localized("picture", ja: "画像"))
            completion(await picture.thumbnail)
        }
    }
}

/// A small picture. Only the server's pictures make them, so an answer cannot make one up.
public struct Thumbnail: Sendable, Equatable, CustomStringConvertible {
    public let id: String
    init(id: String) { self.id = id }
    public var description: String { "Thumbnail(\(id))" }
}

/// What goes wrong on the way from an id to a thumbnail, as the exercise's rules name it.
public enum ThumbnailError: Error, Equatable, Sendable {
    /// The server did not answer 200 (no picture has that id).
    case badID
    /// The bytes are not an image, or the image gives no thumbnail.
    case badImage
}

/// The server's own failure: it passes through to the caller as it is.
public enum ServerError: Error, Equatable, Sendable {
    case offline
}

/// The fake photo server of chapter 04: each id gets the reply its table says, after a delay
/// (an `ExplorerClock` sleep: exact virtual time under the explorer, real time in the chapter's
/// scenarios).
/// It offers the two shapes of one API, as `URLSession` does: `async throws`, and a completion
/// handler that is called once, later, from a task of its own.
public final class ThumbnailServer: Sendable {
    /// How the server answers an id.
    public enum Reply: Sendable, Equatable {
        /// 200 and an image that shrinks.
        case image
        /// 200 and an image too small to shrink (its `thumbnail` is `nil`).
        case tooSmall
        /// 200 and bytes that are not an image.
        case notAnImage
        /// 404 and an error page.
        case notFound
        /// No answer: the request throws `ServerError.offline`.
        case offline
    }

    private let replies: [String: Reply]
    private let latency: Duration
    private let requested = QuietLocked<[String]>([])
    private let answered = QuietLocked<[String]>([])

    /// - Parameter replies: ids not in the table get `.notFound`.
    public init(replies: [String: Reply], latency: Duration = .milliseconds(20)) {
        self.replies = replies
        self.latency = latency
    }

    /// The reply this server gives for `id`.
    public func reply(for id: String) -> Reply { replies[id] ?? .notFound }

    /// The ids requested so far, in order.
    public var requests: [String] { requested.current }
    /// The ids the server has answered so far (a reply or an error), in order.
    public var answeredIDs: [String] { answered.current }

    /// Fetches the bytes for `id` and the HTTP status code. Throws `ServerError.offline` when
    /// the server does not answer, and `CancellationError` when the calling task is cancelled
    /// while it waits.
    public func data(for id: String) async throws -> (ImageData, statusCode: Int) {
        requested.withLock { $0.append(id) }
        checkpoint("data(for: \"\(id)\")")
        try await ExplorerClock().sleep(for: latency)
        return try answer(id)
    }

    /// The same request with a completion handler (the older API): exactly one of data and
    /// error is non-nil; the status code is 0 with an error.
    public func fetchData(for id: String, completion: @escaping @Sendable (ImageData?, Int, (any Error)?) -> Void) {
        requested.withLock { $0.append(id) }
        checkpoint("fetchData(for: \"\(id)\")")
        let server = self
        Task {
            nameTask(Localized("server", ja: "サーバー"))
            do {
                try await ExplorerClock().sleep(for: server.latency)
                let (data, status) = try server.answer(id)
                completion(data, status, nil)
            } catch {
                completion(nil, 0, error)
            }
        }
    }

    private func answer(_ id: String) throws -> (ImageData, statusCode: Int) {
        let reply = reply(for: id)
        answered.withLock { $0.append(id) }
        checkpoint("\"\(id)\" → " + (reply == .offline ? "ServerError.offline" : reply == .notFound ? "404" : "200"))
        switch reply {
        case .offline: throw ServerError.offline
        case .notFound: return (ImageData(id: id, isImage: false, canShrink: false), 404)
        case .notAnImage: return (ImageData(id: id, isImage: false, canShrink: false), 200)
        case .tooSmall: return (ImageData(id: id, isImage: true, canShrink: false), 200)
        case .image: return (ImageData(id: id, isImage: true, canShrink: true), 200)
        }
    }
}
