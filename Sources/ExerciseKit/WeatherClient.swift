import WorkbookCore
import WorkbookExplorer

/// The bytes a `LegacyWeatherClient` sends for a city. Only the client makes them.
public struct ForecastData: Sendable, Equatable {
    public let city: String
    let readable: Bool
}

/// A decoded forecast: `nil` when the bytes are not a forecast (as `JSONDecoder` would throw).
public struct Forecast: Sendable, Equatable, CustomStringConvertible {
    public let city: String

    public init?(data: ForecastData) {
        guard data.readable else { return nil }
        city = data.city
    }

    public var description: String { "Forecast(\(city))" }
}

/// What the exercise's rules call a failure of their own (the client's errors pass through).
public enum ForecastError: Error, Equatable, Sendable {
    /// The client answered with neither bytes nor an error: it has no forecast for that city.
    case noForecast
    /// The bytes are not a forecast.
    case unreadable
}

/// The fake legacy client of exercise 05-continuations/WrapCallbackAPI: one request, one
/// completion handler, called once — later, from a task of the client's own (as a library calls
/// back on a queue of its choosing), or, for a city it has cached, at once, before
/// `fetchForecast` returns. Replies come after each city's latency (an `ExplorerClock` sleep:
/// virtual time under the explorer).
public final class LegacyWeatherClient: Sendable {
    /// How the client answers a city.
    public enum Reply: Sendable, Equatable {
        /// `(data, nil)` with a readable forecast.
        case forecast
        /// `(data, nil)` with bytes that are not a forecast.
        case unreadable
        /// `(nil, nil)`: the client has nothing for that city.
        case nothing
        /// `(nil, ServerError.offline)`.
        case offline
    }

    public struct City: Sendable {
        public let reply: Reply
        public let latency: Duration
        /// Answered at once, on the calling thread, before `fetchForecast` returns.
        public let cached: Bool

        public init(_ reply: Reply, latency: Duration = .milliseconds(10), cached: Bool = false) {
            self.reply = reply
            self.latency = latency
            self.cached = cached
        }
    }

    private let cities: [String: City]

    /// - Parameter cities: a city not in the table gets `.nothing`.
    public init(cities: [String: City]) {
        self.cities = cities
    }

    /// Fetches the forecast for `city` and calls `completion` exactly once: `(data, nil)`,
    /// `(nil, error)` or `(nil, nil)` when the client has no forecast for it — never both.
    public func fetchForecast(for city: String, completion: @escaping @Sendable (ForecastData?, (any Error)?) -> Void) {
        let entry = cities[city] ?? City(.nothing)
        checkpoint("fetchForecast(for: \"\(city)\")")
        if entry.cached {
            answer(city, entry.reply, completion)
            return
        }
        let client = self
        Task {
            nameTask(Localized("client", ja: "クライアント"))
            try? await ExplorerClock().sleep(for: entry.latency)
            client.answer(city, entry.reply, completion)
        }
    }

    private func answer(_ city: String, _ reply: Reply, _ completion: @Sendable (ForecastData?, (any Error)?) -> Void) {
        switch reply {
        case .forecast:
            checkpoint("\"\(city)\" → (data, nil)")
            completion(ForecastData(city: city, readable: true), nil)
        case .unreadable:
            checkpoint(Localized("\"\(city)\" → (data, nil), not a forecast", ja: "\"\(city)\" → (data, nil)、予報ではない"))
            completion(ForecastData(city: city, readable: false), nil)
        case .nothing:
            checkpoint("\"\(city)\" → (nil, nil)")
            completion(nil, nil)
        case .offline:
            checkpoint("\"\(city)\" → (nil, ServerError.offline)")
            completion(nil, ServerError.offline)
        }
    }
}
