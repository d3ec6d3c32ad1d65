import Dispatch

/// A network client written before Swift concurrency, the way many SDKs and reactive libraries
/// still are: completion handlers, no `Sendable`, no `@MainActor`. Where a handler runs is
/// documentation, not type: this one calls back on a queue of its own unless told otherwise.
///
/// This target is compiled in the Swift 5 language mode with minimal concurrency checking, so
/// the compiler accepts all of it. Chapter 07 calls it from Swift 6 code: a `@MainActor` closure
/// handed to `fetch` gets a dynamic isolation check at its start (SE-0423), and the check stops
/// the program when the handler comes on `ownQueue`.
public final class LegacyNetworkClient {
    /// Where the completion handler is called.
    public enum Delivery {
        /// On the client's own serial queue (a background thread): what many SDKs do.
        case ownQueue
        /// On `DispatchQueue.main`, as the client's documentation would promise.
        case mainQueue
    }

    private let queue = DispatchQueue(label: "legacy.network")
    public let delivery: Delivery

    public init(delivery: Delivery) {
        self.delivery = delivery
    }

    /// Answers `path` at once, on the queue `delivery` names.
    public func fetch(_ path: String, completion: @escaping (String) -> Void) {
        let delivery = self.delivery
        queue.async {
            let reply = "reply to \(path)"
            switch delivery {
            case .ownQueue: completion(reply)
            case .mainQueue: DispatchQueue.main.async { completion(reply) }
            }
        }
    }
}

/// A delegate protocol of the same era: "called on the main thread" is a sentence in the docs,
/// not an annotation. A `@MainActor` class can conform only with `@preconcurrency`, and then its
/// witness carries a dynamic check (SE-0423).
public protocol LegacyDownloadDelegate: AnyObject {
    func downloadDidFinish(_ name: String)
}

/// Calls its delegate when a download finishes, on the queue `delivery` names.
public final class LegacyDownloader {
    public weak var delegate: LegacyDownloadDelegate?
    private let queue = DispatchQueue(label: "legacy.download")
    public let delivery: LegacyNetworkClient.Delivery

    public init(delivery: LegacyNetworkClient.Delivery) {
        self.delivery = delivery
    }

    public func start(_ name: String) {
        let delivery = self.delivery
        queue.async { [weak self] in
            guard let delegate = self?.delegate else { return }
            switch delivery {
            case .ownQueue: delegate.downloadDidFinish(name)
            case .mainQueue: DispatchQueue.main.async { delegate.downloadDidFinish(name) }
            }
        }
    }
}
