import ExerciseKit
import Foundation
import Synchronization
import WorkbookCore

// CancellableRequest answers with one mistake each, written the way a learner might, plus
// correct answers in other styles.

/// Maps the client's result the way the reference does.
private func resume(_ continuation: CheckedContinuation<Payload, any Error>, _ result: Result<Payload, any Error>) {
    switch result {
    case let .success(payload): continuation.resume(returning: payload)
    case .failure(DownloadError.cancelled): continuation.resume(throwing: CancellationError())
    case let .failure(error): continuation.resume(throwing: error)
    }
}

/// A plain continuation: cancelling the task reaches neither the download nor the wait.
struct DownloadWithoutCancellationHandler: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            _ = client.download(name) { resume(continuation, $0) }
        }
    }
}

/// The handler cancels the download and also resumes with `CancellationError` (a cancel before
/// the handle is caught too); the download's own `DownloadError.cancelled` then resumes a second time.
struct HandlerAndCallbackBothResume: CancellableRequestProtocol {
    struct State {
        var handle: DownloadHandle?
        var continuation: CheckedContinuation<Payload, any Error>?
        var cancelled = false
    }
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let state = Locked(State())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.continuation = continuation }
                let handle = client.download(name) { result in state.current.continuation.map { resume($0, result) } }
                if state.withLock({ $0.handle = handle; return $0.cancelled }) { handle.cancel() }
            }
        } onCancel: {
            let (handle, continuation) = state.withLock { state in
                state.cancelled = true
                return (state.handle, state.continuation)
            }
            handle?.cancel()
            continuation?.resume(throwing: CancellationError())
        }
    }
}

/// The handler resumes the caller at once (taking the continuation, so never twice) but does
/// not cancel the download, which goes on.
struct HandlerLeavesDownloadRunning: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let slot = Locked<CheckedContinuation<Payload, any Error>?>(nil)
        let take: @Sendable () -> CheckedContinuation<Payload, any Error>? = { slot.withLock { stored in defer { stored = nil }; return stored } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                slot.withLock { $0 = continuation }
                if Task.isCancelled { take()?.resume(throwing: CancellationError()); return }
                _ = client.download(name) { result in take().map { resume($0, result) } }
            }
        } onCancel: {
            take()?.resume(throwing: CancellationError())
        }
    }
}

/// The client's `DownloadError.cancelled` passed on as it is.
struct PassesClientCancelled: CancellableRequestProtocol {
    let client: DownloadClient
    final class Box: Sendable { let handle = Mutex<(handle: DownloadHandle?, cancelled: Bool)>((nil, false)) }
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let box = Box()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let handle = client.download(name) { continuation.resume(with: $0) }
                if box.handle.withLock({ $0.handle = handle; return $0.cancelled }) { handle.cancel() }
            }
        } onCancel: {
            box.handle.withLock { state in state.cancelled = true; return state.handle }?.cancel()
        }
    }
}

/// The handler cancels the handle if there is one — and nothing looks again once the handle
/// exists: a cancel that came first is lost.
struct MissesCancelBeforeHandle: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let handle = Locked<DownloadHandle?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = client.download(name) { resume(continuation, $0) }
                handle.withLock { $0 = started }
            }
        } onCancel: {
            handle.current?.cancel()
        }
    }
}

/// Looks at `Task.isCancelled` before starting, and the handler cancels the handle — but a
/// cancel landing inside `client.download`, before the handle is stored, is lost.
struct ChecksBeforeStartOnly: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let handle = Locked<DownloadHandle?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let started = client.download(name) { resume(continuation, $0) }
                handle.withLock { $0 = started }
            }
        } onCancel: {
            handle.current?.cancel()
        }
    }
}

/// The handle in a plain `var` of an `@unchecked Sendable` class: the operation writes it on the
/// task's thread while the handler reads it on the cancelling one.
struct RacyHandle: CancellableRequestProtocol {
    final class State: @unchecked Sendable {
        var handle: DownloadHandle?
        var cancelled = false
    }
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let state = State()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let handle = client.download(name) { resume(continuation, $0) }
                state.handle = handle
                if state.cancelled { handle.cancel() }
            }
        } onCancel: {
            state.cancelled = true
            state.handle?.cancel()
        }
    }
}

/// The download started from a detached task: the caller's cancel never reaches it.
struct DetachedDownload: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let client = client
        return try await Task.detached {
            let handle = Locked<DownloadHandle?>(nil)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let started = client.download(name) { resume(continuation, $0) }
                    handle.withLock { $0 = started }
                    if Task.isCancelled { started.cancel() }
                }
            } onCancel: {
                handle.current?.cancel()
            }
        }.value
    }
}

/// A lock held across `client.download`, which the handler takes too: the handle is stored in the
/// same breath as the download starts, but a cancel that lands inside `client.download` waits
/// there for the call to return, and so does the thread that sent it.
struct LockAcrossDownload: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let state = Locked<(handle: DownloadHandle?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = state.withLock { state -> Bool in
                    guard !state.cancelled else { return false }
                    state.handle = client.download(name) { resume(continuation, $0) }
                    return true
                }
                if !started { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            state.withLock { state in
                state.cancelled = true
                state.handle?.cancel()
            }
        }
    }
}

/// Correct: an `NSLock` class shared by both sides, the handle cancelled outside the lock.
struct NSLockRequest: CancellableRequestProtocol {
    final class State: @unchecked Sendable {
        let lock = NSLock()
        var handle: DownloadHandle?
        var cancelled = false
    }
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let state = State()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.lock.lock()
                let cancelledAlready = state.cancelled
                state.lock.unlock()
                if cancelledAlready { return continuation.resume(throwing: CancellationError()) }
                let handle = client.download(name) { resume(continuation, $0) }
                state.lock.lock()
                state.handle = handle
                let cancelledMeanwhile = state.cancelled
                state.lock.unlock()
                if cancelledMeanwhile { handle.cancel() }
            }
        } onCancel: {
            state.lock.lock()
            state.cancelled = true
            let handle = state.handle
            state.lock.unlock()
            handle?.cancel()
        }
    }
}

/// Correct: the handler only cancels; the completion resumes with the client's result, and the
/// caller turns `DownloadError.cancelled` into `CancellationError` after the wait.
struct MapsAfterTheWait: CancellableRequestProtocol {
    let client: DownloadClient
    init(client: DownloadClient) { self.client = client }
    func download(_ name: String) async throws -> Payload {
        let handle = Locked<(handle: DownloadHandle?, cancelled: Bool)>((nil, false))
        let result: Result<Payload, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let started = client.download(name) { continuation.resume(returning: $0) }
                let cancelled = handle.withLock { state in state.handle = started; return state.cancelled }
                if cancelled { started.cancel() }
            }
        } onCancel: {
            handle.withLock { state in state.cancelled = true; return state.handle }?.cancel()
        }
        if case .failure(DownloadError.cancelled) = result { throw CancellationError() }
        return try result.get()
    }
}
