import ExerciseKit

/// Reference answer for exercise 06-streams/EventStream.
public struct EventStream: EventStreamProtocol {
    private let source: EventSource

    public init(source: EventSource) {
        self.source = source
    }

    public func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            // Every ending comes here once: finished, failed, a break, a cancel, dropped unread.
            continuation.onTermination = { _ in source.stop() }
            source.start { event in
                switch event {
                case let .value(value): continuation.yield(value)
                case .finished: continuation.finish()
                case let .failed(error): continuation.finish(throwing: error)
                }
            }
        }
    }
}
