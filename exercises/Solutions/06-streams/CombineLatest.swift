import ExerciseKit
import Synchronization

/// Reference answer for exercise 06-streams/CombineLatest.
public struct CombineLatest: CombineLatestProtocol {
    public init() {}

    public func combineLatest(_ first: AsyncThrowingStream<String, any Error>,
                              _ second: AsyncThrowingStream<String, any Error>) -> AsyncThrowingStream<(String, String), any Error> {
        AsyncThrowingStream { continuation in
            let latest = LatestPair(continuation)
            let reading = Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await value in first { latest.update(first: value) } }
                        group.addTask { for try await value in second { latest.update(second: value) } }
                        // `next()` rethrows the first error at once (leaving the group then cancels
                        // the other child); `waitForAll()` would wait for both children first.
                        while try await group.next() != nil {}
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// The latest of each input and the last pair sent: changed and sent in one step, under one
/// lock, so pairs go out in the order they were made.
private final class LatestPair: Sendable {
    private let continuation: AsyncThrowingStream<(String, String), any Error>.Continuation
    private let state = Mutex<(first: String?, second: String?, sent: (String, String)?)>((nil, nil, nil))

    init(_ continuation: AsyncThrowingStream<(String, String), any Error>.Continuation) {
        self.continuation = continuation
    }

    func update(first: String? = nil, second: String? = nil) {
        state.withLock { state in
            if let first { state.first = first }
            if let second { state.second = second }
            guard let first = state.first, let second = state.second else { return }
            if let sent = state.sent, sent == (first, second) { return }
            state.sent = (first, second)
            continuation.yield((first, second))
        }
    }
}
