import ExerciseKit

// Exercise 06-streams/EventStream — read chapters/en/06-streams.md (ja: chapters/ja/06-streams.md) first.
//
// Goal: `source.start { event in … }` calls its handler many times, from the source's own task:
// `.value(n)` for each reading, then `.finished` or `.failed(error)`; `source.stop()` ends
// delivery (a value already on its way may still arrive after it, from the source's task, as
// with real sensors and sockets). Bridge it into an `AsyncThrowingStream` so that a
// `for try await value in events()` loop
//   - gets every value once, in the order the source delivered it (a slow loop too);
//   - ends when the source finishes, and throws the source's own error when it fails;
// and so that the source is stopped exactly once, at once, however the stream ends: the source
// finished or failed, the loop broke out, the consuming task was cancelled, or the stream was
// dropped without being read.
//
// Check your answer:   swift test --filter ExercisesTests.EventStream
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct EventStream: EventStreamProtocol {
    private let source: EventSource

    public init(source: EventSource) {
        self.source = source
    }

    public func events() -> AsyncThrowingStream<Int, any Error> {
        // TODO: `AsyncThrowingStream { continuation in … }`: start the source there, map each
        // event onto the continuation, and stop the source from `continuation.onTermination`.
        todo()
    }
}
