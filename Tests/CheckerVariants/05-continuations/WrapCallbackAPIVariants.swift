import Dispatch
import ExerciseKit
import WorkbookCore

// WrapCallbackAPI answers with one mistake each, written the way a learner might, plus correct
// answers in other styles.

/// `if let error` resumes and falls through to the `guard`: the error path resumes twice.
struct ResumesTwiceOnError: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                if let error { continuation.resume(throwing: error) }
                guard let data else { continuation.resume(throwing: ForecastError.noForecast); return }
                guard let forecast = Forecast(data: data) else { continuation.resume(throwing: ForecastError.unreadable); return }
                continuation.resume(returning: forecast)
            }
        }
    }
}

/// `guard let data else { … return }` passes the error on but says nothing for `(nil, nil)`.
struct ForgetsNilData: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                guard let data else {
                    if let error { continuation.resume(throwing: error) }
                    return
                }
                guard let forecast = Forecast(data: data) else { continuation.resume(throwing: ForecastError.unreadable); return }
                continuation.resume(returning: forecast)
            }
        }
    }
}

/// A decoded forecast resumes, and the line after it resumes again with `unreadable`.
struct ResumesTwiceOnSuccess: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                if let error { continuation.resume(throwing: error); return }
                guard let data else { continuation.resume(throwing: ForecastError.noForecast); return }
                if let forecast = Forecast(data: data) { continuation.resume(returning: forecast) }
                continuation.resume(throwing: ForecastError.unreadable)
            }
        }
    }
}

/// No data means "no forecast", whatever the error said.
struct ErrorBecomesNoForecast: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, _ in
                guard let data else { continuation.resume(throwing: ForecastError.noForecast); return }
                guard let forecast = Forecast(data: data) else { continuation.resume(throwing: ForecastError.unreadable); return }
                continuation.resume(returning: forecast)
            }
        }
    }
}

/// One `guard` for bytes and decoding: bytes that are not a forecast become `noForecast`.
struct UnreadableBecomesNoForecast: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                if let error { continuation.resume(throwing: error); return }
                guard let data, let forecast = Forecast(data: data) else { continuation.resume(throwing: ForecastError.noForecast); return }
                continuation.resume(returning: forecast)
            }
        }
    }
}

/// `Forecast(data:)!`: bytes that are not a forecast crash.
struct ForceUnwrapsDecode: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                if let error { continuation.resume(throwing: error) } else if let data {
                    continuation.resume(returning: Forecast(data: data)!)
                } else {
                    continuation.resume(throwing: ForecastError.noForecast)
                }
            }
        }
    }
}

/// The waiting call's continuation kept in one property of the service: the next call
/// overwrites it, and the first answer resumes the second caller.
struct StoredContinuation: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    let pending = Locked<CheckedContinuation<Forecast, any Error>?>(nil)
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            client.fetchForecast(for: city) { [pending] data, error in
                guard let continuation = pending.withLock({ stored in defer { stored = nil }; return stored }) else { return }
                resume(continuation, data, error)
            }
        }
    }
}

/// A semaphore waits for the handler inside async code.
struct SemaphoreAroundCallback: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<Forecast, any Error>?>(nil)
        client.fetchForecast(for: city) { data, error in
            result.withLock { $0 = decode(data, error) }
            done.signal()
        }
        done.wait()
        return try result.current!.get()
    }
}

/// Pending calls in a dictionary by city, in an `@unchecked Sendable` class with no lock: two
/// calls at once write it from two threads.
struct RacyPendingTable: WrapCallbackAPIProtocol {
    final class Pending: @unchecked Sendable {
        var table: [String: CheckedContinuation<Forecast, any Error>] = [:]
    }
    let client: LegacyWeatherClient
    let pending = Pending()
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            pending.table[city] = continuation
            client.fetchForecast(for: city) { [pending] data, error in
                guard let continuation = pending.table.removeValue(forKey: city) else { return }
                resume(continuation, data, error)
            }
        }
    }
}

/// Correct: a `switch` over the pair.
struct SwitchOverPair: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in
                switch (data, error) {
                case let (_, error?): continuation.resume(throwing: error)
                case let (data?, nil):
                    guard let forecast = Forecast(data: data) else { return continuation.resume(throwing: ForecastError.unreadable) }
                    continuation.resume(returning: forecast)
                case (nil, nil): continuation.resume(throwing: ForecastError.noForecast)
                }
            }
        }
    }
}

/// Correct: a non-throwing continuation of `Result`, resumed with `resume(returning:)`, and the
/// decoding done after the await.
struct ResultThenDecode: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        let data: ForecastData? = try await withCheckedContinuation { (continuation: CheckedContinuation<Result<ForecastData?, any Error>, Never>) in
            client.fetchForecast(for: city) { data, error in
                continuation.resume(returning: error.map { .failure($0) } ?? .success(data))
            }
        }.get()
        guard let data else { throw ForecastError.noForecast }
        guard let forecast = Forecast(data: data) else { throw ForecastError.unreadable }
        return forecast
    }
}

/// Correct: `resume(with:)` of a `Result` made by a helper.
struct ResumeWithResult: WrapCallbackAPIProtocol {
    let client: LegacyWeatherClient
    init(client: LegacyWeatherClient) { self.client = client }
    func forecast(for city: String) async throws -> Forecast {
        try await withCheckedThrowingContinuation { continuation in
            client.fetchForecast(for: city) { data, error in continuation.resume(with: decode(data, error)) }
        }
    }
}

private func decode(_ data: ForecastData?, _ error: (any Error)?) -> Result<Forecast, any Error> {
    if let error { return .failure(error) }
    guard let data else { return .failure(ForecastError.noForecast) }
    guard let forecast = Forecast(data: data) else { return .failure(ForecastError.unreadable) }
    return .success(forecast)
}

private func resume(_ continuation: CheckedContinuation<Forecast, any Error>, _ data: ForecastData?, _ error: (any Error)?) {
    continuation.resume(with: decode(data, error))
}
