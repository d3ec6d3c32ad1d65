import ExerciseKit
import Synchronization

// Reference solution of exercise 05-continuations/CancellableRequest.

public struct Downloader: CancellableRequestProtocol {
    private let client: DownloadClient

    public init(client: DownloadClient) {
        self.client = client
    }

    /// What the operation and the cancellation handler share: the handle once it exists, and
    /// whether a cancel came. Each side does its part under the lock and calls out after it.
    final class Request: Sendable {
        private let state = Mutex<(handle: DownloadHandle?, cancelled: Bool)>((nil, false))

        /// The operation has its handle: keeps it, and says whether a cancel came first.
        func started(_ handle: DownloadHandle) -> Bool {
            state.withLock { state in
                state.handle = handle
                return state.cancelled
            }
        }

        /// A cancel: marks it, and gives the handle to cancel if the download has one yet.
        func cancel() -> DownloadHandle? {
            state.withLock { state in
                state.cancelled = true
                return state.handle
            }
        }
    }

    /// Only the completion handler resumes: a cancel stops the download, and the download's
    /// `DownloadError.cancelled` becomes the caller's `CancellationError`. A cancel that lands
    /// before the handle exists is caught when the operation stores it.
    public func download(_ name: String) async throws -> Payload {
        let request = Request()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Payload, any Error>) in
                let handle = client.download(name) { result in
                    switch result {
                    case let .success(payload): continuation.resume(returning: payload)
                    case .failure(DownloadError.cancelled): continuation.resume(throwing: CancellationError())
                    case let .failure(error): continuation.resume(throwing: error)
                    }
                }
                if request.started(handle) { handle.cancel() }
            }
        } onCancel: {
            request.cancel()?.cancel()
        }
    }
}
