/// Exercise 05-continuations/WrapCallbackAPI: a legacy completion-handler client wrapped as
/// `async throws`, resumed exactly once on every path.
public protocol WrapCallbackAPIProtocol: Sendable {
    init(client: LegacyWeatherClient)
    /// The forecast for `city`, or throws: the client's own error as it is,
    /// `ForecastError.noForecast` when it answers with neither data nor an error,
    /// `ForecastError.unreadable` when its bytes are not a forecast.
    func forecast(for city: String) async throws -> Forecast
}
