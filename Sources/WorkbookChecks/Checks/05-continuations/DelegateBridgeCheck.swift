import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 05-continuations/DelegateBridge under the explorer, on a fresh provider and a
/// fresh bridge per schedule. After each call the check waits until nothing else can run
/// (`untilQuiet`), so reports that come after the answer arrive inside the schedule.
///
/// 1. One request answered later by one report — a location, a failure — or at once, inside
///    `requestLocation()`: the call returns or throws what was reported.
/// 2. Reports that do not stop at one — a second fix and a late failure; a failure, then a fix;
///    two at once: the first report decides, the others change nothing (and resume nothing).
/// 3. Two requests one after the other: each gets its own answer.
/// 4. A second request while the first is in flight (5 ms into a 10 ms wait), and two requests
///    at the same moment (both orders): the newcomer throws `LocationError.busy` at once, the
///    first gets its location, and a request after both is accepted.
/// 5. Two requests at the same moment on two threads, the second run whole at the moment the
///    first creates its continuation — after any look at the slot made before it (a
///    `ContinuationPoint`, the runners on Linux): one of them is turned away.
///    One job of the explorer never stops halfway, so the explored cases cannot split a look
///    made in one locked step from a store made in another.
public enum DelegateBridgeCheck {
    public static let firstReportWins = Property(
        id: "wrong-location",
        name: Localized("the first report answers the request", ja: "最初の報告が要求に答える"),
        rule: Localized("`currentLocation()` returns the location the provider reported first for the request — or throws its error, as it is, if the error came first. Later reports change nothing.",
                        ja: "`currentLocation()` は、その要求についてプロバイダが最初に報告した位置を返す。エラーが先なら、そのエラーをそのままスローする。後の報告は何も変えない。"))
    public static let neverLeftWaiting = Property(
        id: "left-waiting",
        name: Localized("every request is answered", ja: "すべての要求に答える"),
        rule: Localized("Whenever the provider reports — later, or at once inside `requestLocation()` — the stored continuation is resumed, so `currentLocation()` returns or throws.",
                        ja: "プロバイダが報告すれば（後で、または `requestLocation()` の中ですぐに）、保存した継続が再開され、`currentLocation()` は戻るかスローする。"))
    public static let busyWhileInFlight = Property(
        id: "overwritten",
        name: Localized("a request in flight is never overwritten", ja: "進行中の要求を上書きしない"),
        rule: Localized("While a request is in flight, another `currentLocation()` throws `LocationError.busy` at once; the first request goes on and gets its location.",
                        ja: "要求が進行中のときに呼ばれた別の `currentLocation()` はすぐに `LocationError.busy` をスローする。最初の要求はそのまま続き、自分の位置を受け取る。"))
    public static let readyAgain = Property(
        id: "not-cleared",
        name: Localized("once answered, the next request is accepted", ja: "答えた後は次の要求を受け付ける"),
        rule: Localized("When a request has been answered, the stored continuation is gone: the next `currentLocation()` is accepted and gets its own answer.",
                        ja: "要求に答えたら、保存した継続はもうない。次の `currentLocation()` は受け付けられ、自分の答えを受け取る。"))
    /// Case 5 needs a pause at the moment a continuation is made (the interposed allocation, with
    /// the release points); a race on the stored continuation needs TSan told of the runtime's
    /// copies of it (`AccessRaceInterposer`).
    public static let platformProbes = [
        PlatformProbe("second-inside-continuation-creation", Localized(
            "a second request run whole at the moment the first creates its continuation",
            ja: "1 つ目の要求が継続を作る瞬間に、2 つ目の要求を最後まで実行する"), needs: [.releasePoints]),
        PlatformProbe("stored-continuation-race", Localized(
            "a data race on the stored continuation (ThreadSanitizer told of the copies the runtime makes)",
            ja: "保存した継続へのデータ競合（ランタイムが作るコピーを ThreadSanitizer に伝える）"), needs: [.runtimeAccesses]),
    ]

    public static let properties = [firstReportWins, neverLeftWaiting, busyWhileInFlight, readyAgain, Property.finishes, Property.freshState]

    typealias Answer = LocationProvider.Answer
    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.25, foreignWaitSeconds: 0.5)
    static let harbour = "Location(harbour)", station = "Location(station)", busy = "LocationError.busy"

    /// One request, the provider's answer to it, and what the caller must get.
    struct OneRequest {
        let answer: Answer
        let saying: Localized
        let want: String
        let property: Property
    }

    static let oneRequestCases: [OneRequest] = [
        OneRequest(answer: Answer(later: [(.milliseconds(10), .update("harbour"))]),
                   saying: Localized("the provider reports `harbour` after 10 ms", ja: "プロバイダは 10 ms 後に `harbour` を報告する"),
                   want: harbour, property: firstReportWins),
        OneRequest(answer: Answer(later: [(.milliseconds(10), .failure(.denied))]),
                   saying: Localized("the provider fails with .denied after 10 ms", ja: "プロバイダは 10 ms 後に .denied で失敗する"),
                   want: "LocationProviderError.denied", property: firstReportWins),
        OneRequest(answer: Answer(atOnce: [.update("harbour")]),
                   saying: Localized("the provider reports `harbour` at once, inside `requestLocation()`", ja: "プロバイダは `requestLocation()` の中ですぐに `harbour` を報告する"),
                   want: harbour, property: neverLeftWaiting),
        OneRequest(answer: Answer(later: [(.milliseconds(10), .update("harbour")), (.milliseconds(10), .update("pier")), (.milliseconds(20), .failure(.signalLost))]),
                   saying: Localized("the provider reports `harbour`, then `pier`, both at 10 ms, then fails with .signalLost at 20 ms", ja: "プロバイダは 10 ms に `harbour`、続けて `pier` を報告し、20 ms に .signalLost で失敗する"),
                   want: harbour, property: firstReportWins),
        OneRequest(answer: Answer(later: [(.milliseconds(10), .failure(.denied)), (.milliseconds(10), .update("harbour"))]),
                   saying: Localized("the provider fails with .denied, then reports `harbour`, both at 10 ms", ja: "プロバイダは 10 ms に .denied で失敗し、続けて `harbour` を報告する"),
                   want: "LocationProviderError.denied", property: firstReportWins),
        OneRequest(answer: Answer(atOnce: [.update("harbour"), .update("pier")]),
                   saying: Localized("the provider reports `harbour`, then `pier`, at once, inside `requestLocation()`", ja: "プロバイダは `requestLocation()` の中ですぐに `harbour`、続けて `pier` を報告する"),
                   want: harbour, property: firstReportWins),
    ]

    public static func run(_ make: @escaping @Sendable (LocationProvider) -> any DelegateBridgeProtocol) -> CheckResult {
        for request in oneRequestCases {
            if let failure = checkOne(make, request) { return .failed(failure) }
        }
        let failure = checkOneAfterAnother(make)
            ?? checkSecondWhileInFlight(make, secondAfter: .milliseconds(5))
            ?? checkSecondWhileInFlight(make, secondAfter: nil)
            ?? checkSecondInsideTheFirst(make)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: The cases

    static func checkOne(_ make: @escaping @Sendable (LocationProvider) -> any DelegateBridgeProtocol, _ request: OneRequest) -> CheckFailure? {
        let call = Localized("`try await currentLocation()`, \(request.saying.en)", ja: "`try await currentLocation()`、\(request.saying.ja)")
        return explore(call, request.property, deadlock: neverLeftWaiting, wants: [request.want], advice: { _ in
            request.want.hasPrefix("Location")
                ? Localized("Resume the stored continuation with the first location the delegate gets, take it out as you do (so later reports find nothing), and resume nothing else.",
                            ja: "デリゲートが最初に受け取った位置で保存した継続を再開し、その時に取り出しましょう（後の報告は何も見つけません）。ほかには何も再開しません。")
                : Localized("`didFailWith` resumes the stored continuation throwing the provider's error as it is — if it is the first report.",
                            ja: "`didFailWith` は、それが最初の報告なら、保存した継続を再開してプロバイダのエラーをそのままスローします。")
        }) {
            let provider = LocationProvider(answers: [request.answer])
            let bridge = make(provider)
            let got = await outcomeText { try await bridge.currentLocation() }
            checkpoint("currentLocation() ↩")
            await untilQuiet()
            withExtendedLifetime(bridge) {}
            return got
        }
    }

    /// Two requests in a row: the second must be accepted, so the first's continuation is gone.
    static func checkOneAfterAnother(_ make: @escaping @Sendable (LocationProvider) -> any DelegateBridgeProtocol) -> CheckFailure? {
        let call = Localized.verbatim("`let first = try await currentLocation(); let second = try await currentLocation()`")
        return explore(call, readyAgain, deadlock: readyAgain, wants: ["#1: \(harbour), #2: \(station)"], advice: { _ in
            Localized("Once a report has resumed the stored continuation, set it to nil — in the same locked step that takes it — so the next request finds the slot free.",
                      ja: "報告が保存した継続を再開したら、それを取り出す同じロックの中で nil にしましょう。そうすれば次の要求は空いた枠を見つけます。")
        }) {
            let provider = LocationProvider(answers: [Answer(later: [(.milliseconds(10), .update("harbour"))]),
                                                      Answer(later: [(.milliseconds(10), .update("station"))])])
            let bridge = make(provider)
            let first = await outcomeText { try await bridge.currentLocation() }
            checkpoint("currentLocation() #1 ↩")
            let second = await outcomeText { try await bridge.currentLocation() }
            checkpoint("currentLocation() #2 ↩")
            await untilQuiet()
            withExtendedLifetime(bridge) {}
            return "#1: \(first), #2: \(second)"
        }
    }

    /// A second request while the first is in flight — 5 ms into its 10 ms wait, or at the same
    /// moment (either may come first: either may be turned away) — then a third after both.
    static func checkSecondWhileInFlight(_ make: @escaping @Sendable (LocationProvider) -> any DelegateBridgeProtocol,
                                         secondAfter delay: Duration?) -> CheckFailure? {
        let call = delay == nil
            ? Localized.verbatim("`async let a = currentLocation(); async let b = currentLocation()`, then `let c = try await currentLocation()`")
            : Localized("`async let a = currentLocation()`; 5 ms later, while a waits, `async let b = currentLocation()`; then `let c = try await currentLocation()`",
                        ja: "`async let a = currentLocation()`、5 ms 後の a の待機中に `async let b = currentLocation()`、その後 `let c = try await currentLocation()`")
        let wants = delay == nil
            ? ["a: \(harbour), b: \(busy), c: \(harbour)", "a: \(busy), b: \(harbour), c: \(harbour)"]
            : ["a: \(harbour), b: \(busy), c: \(harbour)"]
        return explore(call, busyWhileInFlight, deadlock: busyWhileInFlight, wants: wants, advice: { got in
            if got.contains(busy) {
                return Localized("The request that came first must keep its continuation and get the location; only the newcomer is turned away.",
                                 ja: "先に来た要求が継続を持ち続けて位置を受け取り、断られるのは後から来た要求だけです。")
            }
            return Localized("Before storing, look whether a request is in flight — in the same locked step that stores — and if so resume the newcomer's continuation throwing `LocationError.busy` at once, leaving the stored one alone.",
                             ja: "保存する前に、保存と同じロックの中で進行中の要求があるか確かめましょう。あれば、保存済みの継続には触れず、新しく来た継続をすぐに `LocationError.busy` をスローして再開します。")
        }) {
            // Every request gets `harbour`, so a bridge that also asks the provider for the request
            // it turns away is judged the same (its stray report answers whichever is waiting).
            let provider = LocationProvider(answers: Array(repeating: Answer(later: [(.milliseconds(10), .update("harbour"))]), count: 3))
            let bridge = make(provider)
            nameNextTasks("a", "b")
            async let a = outcomeText { try await bridge.currentLocation() }
            async let b = outcomeText {
                if let delay { try? await ExplorerClock().sleep(for: delay) }
                return try await bridge.currentLocation()
            }
            let (gotA, gotB) = await (a, b)
            checkpoint("a, b ↩")
            let c = await outcomeText { try await bridge.currentLocation() }
            checkpoint("c ↩")
            await untilQuiet()
            withExtendedLifetime(bridge) {}
            return "a: \(gotA), b: \(gotB), c: \(c)"
        }
    }

    /// Case 5: a and b at the same moment, b run whole on the same thread where a creates its
    /// continuation; then one report. One must be turned away and the other get `harbour`.
    static func checkSecondInsideTheFirst(_ make: @escaping @Sendable (LocationProvider) -> any DelegateBridgeProtocol) -> CheckFailure? {
        guard let canary = waitForAsync(seconds: 10, { await ContinuationPoint.canaryClass() }) ?? nil else { return nil }
        let provider = LocationProvider(answers: [Answer(), Answer()])  // reports only when told
        let bridge = make(provider)
        let executor = InlineTaskExecutor()
        let results = Locked<[String?]>([nil, nil])
        for index in 0..<2 {
            Task(executorPreference: executor) {
                let got = await outcomeText { try await bridge.currentLocation() }
                results.withLock { $0[index] = got }
            }
        }
        guard let first = executor.next(), let second = executor.next() else { return nil }
        let (_, paused) = ContinuationPoint.run(canaryClass: canary, pause: { executor.run(second) }) { executor.run(first) }
        if !paused { executor.run(second) }  // a's job made no continuation here (an actor's bridge): b after it
        executor.drain()
        // Where no continuation was made on this thread, the bridge's code runs elsewhere (an
        // actor's): give it time to turn one away, and to answer. Otherwise all ran here, done.
        if !paused { pollUntil(seconds: 2) { results.withLock { $0.contains { $0 == busy } } } }
        provider.deliverNow(.update("harbour"))
        executor.drain()
        if !paused { pollUntil(seconds: 2) { results.withLock { !$0.contains(nil) } } }
        withExtendedLifetime(bridge) {}
        let got = results.withLock { $0 }
        if got.contains(busy) && got.contains(harbour) { return nil }
        let waiting = Localized("still waiting", ja: "待ったまま")
        let shown = got.map { answer in answer.map(Localized.verbatim) ?? waiting }
        let call = Localized("`async let a = currentLocation(); async let b = currentLocation()` on two threads, b run whole at the moment a created its continuation, then one report (`harbour`)",
                             ja: "2 つのスレッドで `async let a = currentLocation(); async let b = currentLocation()`、a が継続を作った瞬間に b を最後まで実行し、その後に報告が 1 つ（`harbour`）")
        let advice = Localized("Both looked at the slot before either stored: a looked, then b ran whole — looked, stored, requested — and a went on to store over b's continuation. Look and store in one hold of the lock, inside the continuation's closure: `pending.withLock { slot in if slot != nil { … busy … } else { slot = continuation } }`.",
                               ja: "どちらも、もう一方が保存する前に枠を見ました。a が見た後、b が最後まで（見て、保存して、要求して）実行され、a はそのまま b の継続の上に保存しました。確かめるのと保存するのは、継続のクロージャの中で 1 回のロックの中で行いましょう: `pending.withLock { slot in if slot != nil { … busy … } else { slot = continuation } }`。")
        return CheckFailure(busyWhileInFlight, observed: Localized(
            "\(call.en): expected one \(busy) and one \(harbour), got a: \(shown[0].en), b: \(shown[1].en). \(advice.en)",
            ja: "\(call.ja): \(busy) と \(harbour) が 1 つずつのはずが、a: \(shown[0].ja)、b: \(shown[1].ja) でした。\(advice.ja)"))
    }

    // MARK: Exploring

    static func explore(_ call: Localized, _ property: Property, deadlock: Property, wants: [String],
                        advice: @escaping @Sendable (String) -> Localized, _ body: @escaping @Sendable () async -> String) -> CheckFailure? {
        let want = wants.joined(separator: " or ")
        return checkExplored(property, title: call, deadlock: deadlock, leftWaiting: leftWaiting(deadlock), observed: { got in
            let more = advice(got)
            return Localized("\(call.en): expected \(want), got \(got). \(more.en)", ja: "\(call.ja): \(want) のはずが \(got) でした。\(more.ja)")
        }, budget: budget, classify: { wants.contains($0) ? .acceptable : .forbidden }) {
            return await body()
        }
    }

    /// What to look at when a caller never came back, by the property the case checks.
    static func leftWaiting(_ property: Property) -> Localized {
        switch property.id {
        case busyWhileInFlight.id:
            Localized("A request in flight lost its continuation: the newcomer's replaced it in the slot, and nothing will ever resume the first. Turn the newcomer away with `LocationError.busy` instead.",
                      ja: "進行中の要求が継続を失いました。新しく来た継続が枠の中身を置き換え、最初の継続を再開するものはもうありません。代わりに、新しく来た要求を `LocationError.busy` で断りましょう。")
        case readyAgain.id:
            Localized("The second request was never answered: something of the first — the continuation, an \"answered\" flag — was left behind and made the provider's report for the second go nowhere. Clear it when you resume.",
                      ja: "2 つ目の要求に答えが返りませんでした。最初の要求の何か（継続や「答えた」フラグ）が残っていて、2 つ目へのプロバイダの報告が行き場を失っています。再開する時に消しましょう。")
        default:
            Localized("The provider reported, and no continuation was resumed: store the continuation before `requestLocation()` (the provider may report before it returns), and keep the delegate alive — the provider holds it weakly.",
                      ja: "プロバイダは報告したのに、どの継続も再開されませんでした。継続は `requestLocation()` の前に保存し（戻る前に報告が来ることがあります）、デリゲートは生かしておきましょう。プロバイダはデリゲートを弱参照で持ちます。")
        }
    }

}
