import ExerciseKit

// Exercise 05-continuations/WrapCallbackAPI — read chapters/en/05-continuations.md (ja: chapters/ja/05-continuations.md) first.
//
// Goal: `client.fetchForecast(for:completion:)` is an old completion-handler API. It calls
// `completion` exactly once — later, from a task of its own, or at once for a city it has
// cached — with `(data, nil)`, `(nil, error)`, or `(nil, nil)` when it has no forecast (never
// with both). Wrap it
// as `async throws`:
//   - `forecast(for:)` returns `Forecast(data:)` of the bytes, or throws: the client's error as
//     it is, `ForecastError.noForecast` for `(nil, nil)`, `ForecastError.unreadable` when
//     `Forecast(data:)` gives nil;
//   - a continuation must be resumed exactly once on every path: never resumed, the caller
//     waits for ever (the runtime reports the leak); resumed twice, the program traps;
//   - two calls at once each get their own answer.
//
// Check your answer:   swift test --filter ExercisesTests.WrapCallbackAPI
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct WeatherService: WrapCallbackAPIProtocol {
    private let client: LegacyWeatherClient

    public init(client: LegacyWeatherClient) {
        self.client = client
    }

    public func forecast(for city: String) async throws -> Forecast {
        // TODO: `try await withCheckedThrowingContinuation { continuation in … }` around
        // `client.fetchForecast(for: city) { data, error in … }`, resuming once on each path.
        todo()
    }
}
