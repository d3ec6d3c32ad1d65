import ExerciseKit
import Foundation
import Synchronization

// EventStream answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// Maps an event onto the continuation the way the reference does.
private func forward(_ event: EventSource.Event, to continuation: AsyncThrowingStream<Int, any Error>.Continuation) {
    switch event {
    case let .value(value): continuation.yield(value)
    case .finished: continuation.finish()
    case let .failed(error): continuation.finish(throwing: error)
    }
}

/// No `onTermination`: a break, a cancel or a dropped stream leaves the source delivering.
struct NeverStopsSource: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        AsyncThrowingStream { continuation in
            source.start { forward($0, to: continuation) }
        }
    }
}

/// Stops the source when it ends by itself, and in `onTermination` as well: twice on a natural end.
struct StopsTwiceOnEnd: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in source.stop() }
            source.start { event in
                if case .value = event {} else { source.stop() }
                forward(event, to: continuation)
            }
        }
    }
}

/// Stops the source only when it ends by itself: the consumer's side of the ending is never heard.
struct StopsOnlyOnSourceEnd: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            source.start { event in
                forward(event, to: continuation)
                if case .value = event {} else { source.stop() }
            }
        }
    }
}

/// `.finished` is ignored: the loop waits for a value that never comes.
struct ForgetsFinish: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in source.stop() }
            source.start { event in
                switch event {
                case let .value(value): continuation.yield(value)
                case .finished: break
                case let .failed(error): continuation.finish(throwing: error)
                }
            }
        }
    }
}

/// The source's failure ends the stream quietly: the loop never learns it failed.
struct SwallowsFailure: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in source.stop() }
            source.start { event in
                switch event {
                case let .value(value): continuation.yield(value)
                case .finished, .failed: continuation.finish()
                }
            }
        }
    }
}

/// Each value is yielded from a `Task {}` of its own: a burst comes out in any order, and the end
/// can overtake the values.
struct TaskPerValue: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in source.stop() }
            source.start { event in
                if case let .value(value) = event {
                    Task { continuation.yield(value) }
                } else {
                    forward(event, to: continuation)
                }
            }
        }
    }
}

/// `.bufferingNewest(1)`: a slow loop loses the values it has not taken yet.
struct KeepsNewestOnly: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            continuation.onTermination = { _ in source.stop() }
            source.start { forward($0, to: continuation) }
        }
    }
}

/// Stops the source from a `Task {}`: the source can deliver once more after the stream ended.
struct StopsLater: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in Task { source.stop() } }
            source.start { forward($0, to: continuation) }
        }
    }
}

/// A "done" flag in an unlocked `@unchecked Sendable` box: `onTermination` (the consumer's side)
/// writes it while the handler (the source's task) reads it.
struct RacyDoneFlag: EventStreamProtocol {
    final class Box: @unchecked Sendable {
        var done = false
    }
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        let box = Box()
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in
                box.done = true
                source.stop()
            }
            source.start { event in
                guard !box.done else { return }
                forward(event, to: continuation)
            }
        }
    }
}

/// A correct answer: `makeStream(of:)`, the source started after the stream exists, and
/// `yield(with:)` for the ending.
struct MakeStreamStyle: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        let source = self.source
        continuation.onTermination = { @Sendable _ in source.stop() }
        source.start { event in
            switch event {
            case let .value(value): continuation.yield(value)
            case .finished: continuation.finish()
            case let .failed(error): continuation.yield(with: .failure(error))
            }
        }
        return stream
    }
}

/// A correct answer: a lock-guarded flag of its own, read and written under one `Mutex`.
struct LockedDoneFlag: EventStreamProtocol {
    let source: EventSource
    init(source: EventSource) { self.source = source }
    func events() -> AsyncThrowingStream<Int, any Error> {
        let source = self.source
        let done = Mutex(false)
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in
                done.withLock { $0 = true }
                source.stop()
            }
            source.start { event in
                guard !done.withLock({ $0 }) else { return }
                forward(event, to: continuation)
            }
        }
    }
}
