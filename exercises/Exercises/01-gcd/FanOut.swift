import Dispatch
import ExerciseKit

// Exercise 01-gcd/FanOut — read chapters/en/01-gcd.md (ja: chapters/ja/01-gcd.md) first.
//
// Goal: fetch every id with `client.fetch(_:completion:)`, with at most `maxInFlight` fetches
// started and not yet called back at any moment, then call `completion` exactly once, after
// every fetch has called back, with one result per id in the order of `ids` — failures too.
//
// Replies arrive out of order and on several threads at once. Tools: `DispatchSemaphore` (limit
// what is in flight), `DispatchGroup` (know when all are back), a serial queue or lock (store
// the results safely).
//
// Check your answer:   swift test --filter ExercisesTests.FanOut
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class FanOut: FanOutProtocol {
    public init() {}

    public func fetchAll(
        _ ids: [Int],
        maxInFlight: Int,
        using client: FakeClient,
        completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void
    ) {
        // TODO: start the fetches (at most `maxInFlight` at once), keep each result at its
        // id's position, and call `completion` once when every fetch has called back.
        todo()
    }
}
