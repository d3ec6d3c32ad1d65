import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 05-continuations/WrapCallbackAPI under the explorer, on a fresh client and a
/// fresh answer per schedule.
///
/// 1. One city per answer the client can give — a forecast, bytes that are not one, nothing
///    (`(nil, nil)`), offline — delivered later from the client's own task: `forecast(for:)`
///    returns or throws what the rules name.
/// 2. The same answers for cities the client has cached: the handler runs at once, on the
///    caller's thread, before `fetchForecast` returns.
/// 3. Two calls at once whose replies come at the same moment (both orders explored): each gets
///    its own.
/// A path that never resumes leaves the caller waiting (the runtime's leak message is shown); a
/// second resume traps (a crash, with the runtime's message).
public enum WrapCallbackAPICheck {
    public static let returnsForecast = Property(
        id: "wrong-forecast",
        name: Localized("the forecast reaches the caller", ja: "予報が呼び出し元に届く"),
        rule: Localized("For readable bytes, `forecast(for:)` returns `Forecast(data:)` of the client's bytes for that city.",
                        ja: "読めるバイト列なら、`forecast(for:)` はその都市についてクライアントが送ったバイト列の `Forecast(data:)` を返す。"))
    public static let errorsAsTheRulesSay = Property(
        id: "error-lost",
        name: Localized("every failure reaches the caller as the rules name it", ja: "すべての失敗が決められたとおりのエラーとして呼び出し元に届く"),
        rule: Localized("The client's own error is thrown as it is, `(nil, nil)` throws `ForecastError.noForecast`, bytes that are not a forecast throw `ForecastError.unreadable`.",
                        ja: "クライアント自身のエラーはそのままスローし、`(nil, nil)` は `ForecastError.noForecast`、予報でないバイト列は `ForecastError.unreadable` をスローする。"))
    public static let neverLeftWaiting = Property(
        id: "left-waiting",
        name: Localized("every path resumes the continuation", ja: "すべての経路で継続を再開する"),
        rule: Localized("On every path of the completion handler the continuation is resumed, so `forecast(for:)` returns or throws.",
                        ja: "完了ハンドラのどの経路でも継続を再開し、`forecast(for:)` は戻るかスローする。"))
    public static let callsIndependent = Property(
        id: "calls-mixed",
        name: Localized("calls at once keep to their own answers", ja: "同時の呼び出しはそれぞれ自分の答えを受け取る"),
        rule: Localized("Two calls at once each get their own city's answer, in every interleaving: nothing one call keeps reaches the other.",
                        ja: "2 つの同時の呼び出しは、どのインターリーブでもそれぞれ自分の都市の答えを受け取る。一方の呼び出しが残したものが、もう一方に届かない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [returnsForecast, errorsAsTheRulesSay, neverLeftWaiting, callsIndependent, Property.finishes, Property.freshState]

    /// The cities the check asks for, and how the client answers each.
    static let cities: [(name: String, reply: LegacyWeatherClient.Reply)] = [
        ("Oslo", .forecast), ("Lima", .offline), ("Nuuk", .nothing), ("Baku", .unreadable),
    ]

    static func client(cached: Bool = false) -> LegacyWeatherClient {
        LegacyWeatherClient(cities: Dictionary(uniqueKeysWithValues: cities.map { ($0.name, .init($0.reply, cached: cached)) }))
    }

    /// What the rules say the caller gets for a reply.
    static func expected(_ city: String, _ reply: LegacyWeatherClient.Reply) -> String {
        switch reply {
        case .forecast: "Forecast(\(city))"
        case .unreadable: "ForecastError.unreadable"
        case .nothing: "ForecastError.noForecast"
        case .offline: "ServerError.offline"
        }
    }

    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.25, foreignWaitSeconds: 0.5)

    public static func run(_ make: @escaping @Sendable (LegacyWeatherClient) -> any WrapCallbackAPIProtocol) -> CheckResult {
        for cached in [false, true] {
            for (city, reply) in cities {
                if let failure = checkOne(make, city: city, reply: reply, cached: cached) { return .failed(failure) }
            }
        }
        if let failure = checkTwoAtOnce(make) { return .failed(failure) }
        return .passed(properties)
    }

    // MARK: The cases

    static func checkOne(_ make: @escaping @Sendable (LegacyWeatherClient) -> any WrapCallbackAPIProtocol,
                         city: String, reply: LegacyWeatherClient.Reply, cached: Bool) -> CheckFailure? {
        let want = expected(city, reply)
        let answer = answerText(reply)
        let call = cached
            ? Localized("`try await forecast(for: \"\(city)\")`, the client answering \(answer.en) at once (cached)",
                        ja: "`try await forecast(for: \"\(city)\")`（クライアントはキャッシュからすぐに \(answer.ja) で答えます）")
            : Localized("`try await forecast(for: \"\(city)\")`, the client answering \(answer.en) later, from its own task",
                        ja: "`try await forecast(for: \"\(city)\")`（クライアントは後で自分のタスクから \(answer.ja) で答えます）")
        return checkExplored(reply == .forecast ? returnsForecast : errorsAsTheRulesSay, title: call, deadlock: neverLeftWaiting,
                             leftWaiting: leftWaiting, observed: { got in
            observed(call, want: want, got: got, reply: reply)
        }, budget: budget, classify: { $0 == want ? .acceptable : .forbidden }) {
            let service = make(client(cached: cached))
            return await outcomeText { try await service.forecast(for: city) }
        }
    }

    /// Two calls at once whose replies land at the same moment: the explorer tries both orders.
    static func checkTwoAtOnce(_ make: @escaping @Sendable (LegacyWeatherClient) -> any WrapCallbackAPIProtocol) -> CheckFailure? {
        let call = Localized.verbatim("`async let a = forecast(for: \"Oslo\"); async let b = forecast(for: \"Lima\")`")
        let want = "a: Forecast(Oslo), b: ServerError.offline"
        return checkExplored(callsIndependent, title: call, deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { got in
            Localized(
                "Two calls at once (\(call.en)), both answered after 10 ms: the caller should get \(want), and got \(got). Each call needs its own continuation — a local of the call, captured by its own completion handler — not one kept in a property that the next call overwrites.",
                ja: "2 つの同時の呼び出し（\(call.ja)）で、どちらも 10 ms 後に答えが来ました。呼び出し元は \(want) を受け取るはずが、\(got) を受け取りました。継続は呼び出しごとに 1 つ必要です。次の呼び出しが上書きするプロパティに置かず、その呼び出しのローカルとして、その呼び出しの完了ハンドラにキャプチャさせましょう。")
        }, budget: budget, classify: { $0 == want ? .acceptable : .forbidden }) {
            let service = make(client())
            nameNextTasks("a", "b")
            async let a = outcomeText { try await service.forecast(for: "Oslo") }
            async let b = outcomeText { try await service.forecast(for: "Lima") }
            return "a: \(await a), b: \(await b)"
        }
    }

    // MARK: Reports

    static func answerText(_ reply: LegacyWeatherClient.Reply) -> Localized {
        switch reply {
        case .forecast: .verbatim("`(data, nil)`")
        case .unreadable: Localized("`(data, nil)` with bytes that are not a forecast", ja: "予報ではないバイト列の `(data, nil)`")
        case .nothing: .verbatim("`(nil, nil)`")
        case .offline: .verbatim("`(nil, ServerError.offline)`")
        }
    }

    static let leftWaiting = Localized(
        "A path of your completion handler ends without resuming the continuation — look at each `if`, `guard` and `else`: every one must end in exactly one `resume`.",
        ja: "完了ハンドラのある経路が、継続を再開せずに終わっています。`if`、`guard`、`else` を 1 つずつ見てください。どれも最後にちょうど 1 回の `resume` が必要です。")

    static func observed(_ call: Localized, want: String, got: String, reply: LegacyWeatherClient.Reply) -> Localized {
        let advice: Localized
        switch reply {
        case .forecast:
            advice = Localized("Resume with `Forecast(data:)` of the client's bytes.", ja: "クライアントのバイト列の `Forecast(data:)` で再開しましょう。")
        case .offline:
            advice = Localized("Resume throwing the client's own error, as it is: `continuation.resume(throwing: error)`.",
                               ja: "クライアント自身のエラーを、そのまま再開時にスローしましょう: `continuation.resume(throwing: error)`。")
        case .nothing:
            advice = Localized("With neither data nor an error, resume throwing `ForecastError.noForecast`.",
                               ja: "データもエラーもないときは、`ForecastError.noForecast` をスローして再開しましょう。")
        case .unreadable:
            advice = Localized("When `Forecast(data:)` gives nil, resume throwing `ForecastError.unreadable`.",
                               ja: "`Forecast(data:)` が nil のときは、`ForecastError.unreadable` をスローして再開しましょう。")
        }
        return Localized("\(call.en): expected \(want), got \(got). \(advice.en)", ja: "\(call.ja): \(want) のはずが \(got) でした。\(advice.ja)")
    }
}
