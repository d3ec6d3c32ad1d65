import ExerciseKit

// Reference solution of exercise 05-continuations/WrapCallbackAPI.

public struct WeatherService: WrapCallbackAPIProtocol {
    private let client: LegacyWeatherClient

    public init(client: LegacyWeatherClient) {
        self.client = client
    }

    /// Each path of the callback ends in one `resume` and nothing after it: the `if`/`else`
    /// chain has no way through that resumes twice or not at all. The continuation is a local of
    /// this call, so two calls at once never share one.
    public func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Forecast, any Error>) in
            client.fetchForecast(for: city) { data, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let data {
                    if let forecast = Forecast(data: data) {
                        continuation.resume(returning: forecast)
                    } else {
                        continuation.resume(throwing: ForecastError.unreadable)
                    }
                } else {
                    continuation.resume(throwing: ForecastError.noForecast)
                }
            }
        }
    }
}
