import ExerciseKit

// Exercise 06-streams/CombineLatest — read chapters/en/06-streams.md (ja: chapters/ja/06-streams.md) first.
//
// Goal: a sign-up form enables its button when both fields are non-empty. Each field is an
// `AsyncThrowingStream<String, any Error>` of its text as it is typed. Combine them, as
// swift-async-algorithms' `combineLatest` followed by `removeDuplicates` would, into one stream
// of pairs (email, password):
//   - nothing until both fields have produced a value; then one pair each time either produces
//     one, at once, with the other's latest value, in the order the values came;
//   - a pair equal to the one sent just before it is not sent again;
//   - the stream finishes when both inputs have finished (one finishing early is not the end),
//     and throws the first error either input throws;
//   - when the consumer stops — a `break`, a cancelled task, the stream dropped — the iteration
//     of both inputs is cancelled.
// The values come from other tasks at any moment, two of them possibly at the same moment.
//
// Check your answer:   swift test --filter ExercisesTests.CombineLatest
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct CombineLatest: CombineLatestProtocol {
    public init() {}

    public func combineLatest(_ first: AsyncThrowingStream<String, any Error>,
                              _ second: AsyncThrowingStream<String, any Error>) -> AsyncThrowingStream<(String, String), any Error> {
        // TODO: `AsyncThrowingStream { continuation in … }` with a task that reads both inputs
        // at once (a task group of two), keeps each one's latest value, and yields the pairs;
        // cancel that task from `continuation.onTermination`.
        todo()
    }
}
