import Foundation
import WorkbookCore
import WorkbookExplorer

/// A location fix, as a sensor reports it.
struct LocationFix: Sendable, Equatable, CustomStringConvertible {
    let latitude: Double
    let longitude: Double

    var description: String { String(format: "(%.2f, %.2f)", latitude, longitude) }

    /// Tokyo Station, then a few steps east of it each time.
    static func sample(_ index: Int) -> LocationFix { LocationFix(latitude: 35.68, longitude: 139.76 + 0.01 * Double(index)) }
}

enum LocationBridgeError: Error, Equatable, CustomStringConvertible {
    /// A request came while another was waiting for the sensor.
    case requestInFlight

    var description: String { ".requestInFlight" }
}

/// What a delegate-based sensor tells its delegate, on the main actor — shaped like a location
/// manager's one-shot request, without CoreLocation.
@MainActor
protocol LocationSensorDelegate: AnyObject {
    func sensor(_ sensor: FakeLocationSensor, didUpdate fix: LocationFix)
    func sensor(_ sensor: FakeLocationSensor, didFailWith error: any Error)
}

/// A fake sensor: `requestLocation()` returns at once, and the answer comes later through the
/// delegate — when the scenario calls `deliver` or `fail`, so every run is the same.
@MainActor
final class FakeLocationSensor {
    weak var delegate: (any LocationSensorDelegate)?
    private(set) var requests = 0
    /// Called on every `requestLocation()` (the scenario draws it and goes on).
    var onRequest: (() -> Void)?

    func requestLocation() {
        requests += 1
        onRequest?()
    }

    /// The sensor has a fix: it tells the delegate. A real sensor may do so more than once.
    func deliver(_ fix: LocationFix) { delegate?.sensor(self, didUpdate: fix) }
}

/// The bridge: `currentLocation()` stores the continuation, the delegate methods take it out
/// and resume it — and clear it, so a late or repeated delegate call finds nothing. A second
/// request while one waits is refused with an error rather than overwriting the first.
///
/// Everything is on the main actor, where the delegate calls come: the stored continuation
/// needs no lock. (The closure of `withCheckedThrowingContinuation` runs isolated to the
/// caller, so it may store into `pending` directly.)
@MainActor
final class LocationBridge: LocationSensorDelegate {
    private let sensor: FakeLocationSensor
    private var pending: CheckedContinuation<LocationFix, any Error>?
    /// Delegate calls that found no request waiting.
    private(set) var ignoredCalls = 0

    init(sensor: FakeLocationSensor) {
        self.sensor = sensor
        sensor.delegate = self
    }

    func currentLocation() async throws -> LocationFix {
        guard pending == nil else { throw LocationBridgeError.requestInFlight }
        return try await withCheckedThrowingContinuation { continuation in
            pending = continuation
            sensor.requestLocation()
        }
    }

    func sensor(_ sensor: FakeLocationSensor, didUpdate fix: LocationFix) {
        guard let continuation = pending else {
            ignoredCalls += 1
            return
        }
        pending = nil
        continuation.resume(returning: fix)
    }

    func sensor(_ sensor: FakeLocationSensor, didFailWith error: any Error) {
        guard let continuation = pending else {
            ignoredCalls += 1
            return
        }
        pending = nil
        continuation.resume(throwing: error)
    }
}

/// The wrong way, twice over: a second request overwrites the stored continuation (the first
/// is dropped unresumed: its caller waits for ever), and a resumed continuation is not
/// cleared (a repeated delegate call resumes it again: a trap). Each child shows one of them.
@MainActor
final class CarelessLocationBridge: LocationSensorDelegate {
    private let sensor: FakeLocationSensor
    private var pending: CheckedContinuation<LocationFix, any Error>?

    init(sensor: FakeLocationSensor) {
        self.sensor = sensor
        sensor.delegate = self
    }

    func currentLocation() async throws -> LocationFix {
        try await withCheckedThrowingContinuation { continuation in
            pending = continuation  // overwrites a continuation still waiting
            sensor.requestLocation()
        }
    }

    func sensor(_ sensor: FakeLocationSensor, didUpdate fix: LocationFix) {
        pending?.resume(returning: fix)  // and never sets `pending = nil`
    }

    func sensor(_ sensor: FakeLocationSensor, didFailWith error: any Error) {
        pending?.resume(throwing: error)
    }
}

extension Chapter05 {
    static let overwrittenContinuationChildName = "overwritten-continuation"
    static let unclearedContinuationChildName = "uncleared-continuation"

    /// The child's body: under the explorer, a first caller waits, a second one calls and the
    /// careless bridge overwrites the first continuation; the sensor then delivers once.
    static func overwrittenContinuationChild() -> Never {
        printForParent(runDefaultSchedule { try await overwriteTheFirstCaller() })
        exit(0)
    }

    /// The child's body: under the explorer, one caller; the sensor delivers twice, and the
    /// careless bridge resumes the same continuation twice — the trap ends the child.
    static func unclearedContinuationChild() -> Never {
        printForParent(runDefaultSchedule { try await deliverTwiceWithoutClearing() })
        exit(0)
    }

    @MainActor
    private static func overwriteTheFirstCaller() async throws -> String {
        nameTask(Localized("app", ja: "アプリ"))
        let sensor = FakeLocationSensor()
        let bridge = CarelessLocationBridge(sensor: sensor)
        nameNextTasks(BilingualLabel.join("first caller", "1 番目の呼び出し元"), BilingualLabel.join("second caller", "2 番目の呼び出し元"))
        let first = Task {
            checkpoint(Localized("first caller: currentLocation()", ja: "1 番目の呼び出し元: currentLocation()"))
            return try await bridge.currentLocation()
        }
        await untilQuiet()
        let second = Task {
            checkpoint(Localized("second caller: currentLocation() — overwrites the first continuation",
                                 ja: "2 番目の呼び出し元: currentLocation() — 1 番目の継続を上書き"))
            return try await bridge.currentLocation()
        }
        await untilQuiet()
        checkpoint(Localized("app: the sensor reports \(LocationFix.sample(0)) → didUpdate", ja: "アプリ: センサーが \(LocationFix.sample(0)) を報告 → didUpdate"))
        sensor.deliver(.sample(0))
        let secondFix = try await second.value
        checkpoint(Localized("app: the second caller got \(secondFix); now awaits the first caller", ja: "アプリ: 2 番目の呼び出し元が \(secondFix) を受け取った。次に 1 番目の呼び出し元を待つ"))
        let firstFix = try await first.value
        return "first=\(firstFix) second=\(secondFix)"
    }

    @MainActor
    private static func deliverTwiceWithoutClearing() async throws -> String {
        nameTask(Localized("app", ja: "アプリ"))
        let sensor = FakeLocationSensor()
        let bridge = CarelessLocationBridge(sensor: sensor)
        nameNextTasks(BilingualLabel.join("caller", "呼び出し元"))
        let caller = Task { try await bridge.currentLocation() }
        await untilQuiet()
        sensor.deliver(.sample(0))
        sensor.deliver(.sample(1))  // a second fix: the same continuation, resumed again
        return "caller=\(try await caller.value)"
    }

    /// Scenario 4: a delegate API bridged with a stored continuation.
    static let delegateBridge = Scenario(
        slug: "delegate-bridge",
        title: Localized("A delegate API: store the continuation, clear it, refuse a second request",
                         ja: "デリゲート API: 継続を保存し、クリアし、2 つ目の要求を断る"),
        narration: Localized(
            """
            Some APIs answer through a delegate, not a handler: `requestLocation()` returns at once, and the sensor later calls \
            `sensor(_:didUpdate:)` or `sensor(_:didFailWith:)` on its delegate, on the main actor. The bridge keeps the continuation in a property between the two: \
            `currentLocation()` stores it and asks; the delegate method takes it out, sets the property to nil, and resumes it. \
            The bridge is `@MainActor`, where the delegate calls come, so the property needs no lock. The fake sensor answers when the scenario tells it to. \
            1) One request, then `late` more delegate calls (a sensor may report again): the first call resumes the caller; \
            the later ones find nil and are ignored — counted, never resumed. \
            2) A second `currentLocation()` while the first waits: refused at once with `.requestInFlight`; the sensor is asked only once and the first caller gets its fix. \
            3) What overwriting would do, in a child process under the explorer: a careless bridge just stores the new continuation over the old one. \
            The old one is destroyed unresumed — the runtime prints its leak message at that moment — and its caller waits for ever, while the second caller gets the fix. \
            4) What not clearing would do, in a child process: the same careless bridge resumes on every delegate call; the second fix resumes the same continuation again, and the child traps.
            """,
            ja: """
            ハンドラではなくデリゲートで答える API もあります。`requestLocation()` はすぐに戻り、センサーは後からデリゲートの \
            `sensor(_:didUpdate:)` か `sensor(_:didFailWith:)` をメインアクター上で呼びます。ブリッジはその間、継続をプロパティに保存しておきます。\
            `currentLocation()` が継続を保存して要求し、デリゲートメソッドが継続を取り出し、プロパティを nil に戻してから再開します。\
            ブリッジは `@MainActor` で、デリゲートの呼び出しもそこに来るので、プロパティにロックはいりません。フェイクのセンサーはシナリオが指示したときに応答します。\
            1) 要求を 1 つ出し、その後デリゲートをさらに `late` 回呼びます（センサーは何度も報告することがあります）。最初の呼び出しが呼び出し元を再開し、\
            後の呼び出しは nil を見つけて無視されます。数えるだけで、再開はしません。\
            2) 1 つ目が待っている間に 2 つ目の `currentLocation()`: すぐに `.requestInFlight` で断られます。センサーへの要求は 1 回だけで、1 つ目の呼び出し元が位置を受け取ります。\
            3) 上書きするとどうなるかを、子プロセスでエクスプローラの制御下で: 考慮の足りないブリッジは新しい継続を古い継続の上にそのまま保存します。\
            古い継続は再開されないまま破棄され（その瞬間にランタイムがリークのメッセージを出力します）、その呼び出し元は永遠に待ち、2 番目の呼び出し元が位置を受け取ります。\
            4) クリアしないとどうなるかを、子プロセスで: 同じ考慮の足りないブリッジはデリゲートが呼ばれるたびに再開します。2 つ目の位置が同じ継続をもう一度再開し、子プロセスはトラップします。
            """),
        knobs: [
            .init("late", default: 2, range: 0...5, help: Localized("delegate calls after the first (part 1)", ja: "最初の後に来るデリゲートの呼び出しの回数（パート 1）")),
        ],
        prediction: .init(
            question: Localized(
                "Part 3: a careless bridge overwrites its stored continuation. The first caller waits, a second caller asks, then the sensor reports once. Who gets the location? F) the first  S) the second  B) both",
                ja: "パート 3: 考慮の足りないブリッジは保存した継続を上書きします。1 番目の呼び出し元が待っているところに 2 番目が要求し、その後センサーが 1 回だけ報告します。位置を受け取るのは誰？ F) 1 番目  S) 2 番目  B) 両方"),
            explanation: Localized(
                """
                S. The property held only the second continuation when the sensor reported. The first was dropped when it was overwritten: \
                the runtime said "leaked its continuation without resuming it" at that moment, and the first caller waits for ever. \
                Refuse the second request (`.requestInFlight`), or keep a list of waiting continuations and resume them all.
                """,
                ja: """
                S です。センサーが報告したとき、プロパティには 2 番目の継続しか入っていませんでした。1 番目は上書きされたときに捨てられ、\
                その瞬間にランタイムが "leaked its continuation without resuming it" と出力し、1 番目の呼び出し元は永遠に待ちます。\
                2 つ目の要求は断る（`.requestInFlight`）か、待っている継続をリストに持ってすべて再開します。
                """),
            observe: { $0.noted("overwrite: who got it") ?? "" },
            isPossible: { $0 == "S" })
    ) { context in
        try await storedContinuation(context)
        try await secondRequest(context)
        try await blocking {
            overwriteInChild(context)
            notClearedInChild(context)
        }
    }

    static let sensorLaneName = Localized("sensor (main)", ja: "センサー（main）")

    /// Starts `currentLocation()` in a task on `lane` and returns it once the sensor was asked
    /// (each drawn on its lane); the sensor reports only when the part tells it to.
    @MainActor
    private static func firstRequest(_ context: ScenarioContext, bridge: LocationBridge, sensor: FakeLocationSensor,
                                     lane: String) async throws -> Task<LocationFix, any Error> {
        let requested = OneShotSignal()
        sensor.onRequest = {
            context.emit(.verbatim("requestLocation()"), lane: context.text(sensorLaneName))
            requested.fire()
        }
        let request = Task {
            context.emit(.verbatim("currentLocation()"), lane: lane)
            return try await bridge.currentLocation()
        }
        try await requested.wait(Localized("the sensor was not asked", ja: "センサーに要求が届きませんでした"))
        return request
    }

    /// Part 1: one request; the first delegate call resumes, the later ones are ignored.
    @MainActor
    private static func storedContinuation(_ context: ScenarioContext) async throws {
        let late = context.knob("late")
        context.say(Localized("1) try await bridge.currentLocation(), then \(late) more delegate call(s):",
                              ja: "1) bridge.currentLocation() を待ち、その後さらにデリゲートを \(late) 回呼ぶ:"))
        let sensor = FakeLocationSensor(), bridge = LocationBridge(sensor: sensor)
        let caller = context.text(Localized("caller", ja: "呼び出し元"))
        let sensorLane = context.text(sensorLaneName)
        let request = try await firstRequest(context, bridge: bridge, sensor: sensor, lane: caller)
        context.emit(Localized("didUpdate \(LocationFix.sample(0)) → resumes, pending = nil", ja: "didUpdate \(LocationFix.sample(0)) → 再開し `pending = nil`"), lane: sensorLane)
        sensor.deliver(.sample(0))
        for index in 0..<late {
            let before = bridge.ignoredCalls
            sensor.deliver(.sample(index + 1))
            context.emit(bridge.ignoredCalls > before
                ? Localized("didUpdate \(LocationFix.sample(index + 1)) → pending is nil: ignored", ja: "didUpdate \(LocationFix.sample(index + 1)) → `pending` は nil: 無視")
                : Localized("didUpdate \(LocationFix.sample(index + 1)) → resumed something (unexpected)", ja: "didUpdate \(LocationFix.sample(index + 1)) → 何かを再開した（想定外）"),
                lane: sensorLane)
        }
        let fix = try await request.value
        context.emit(Localized("got \(fix)", ja: "\(fix) を受け取った"), lane: caller)
        context.note("part 1 fix", fix.description)
        context.note("part 1 ignored", String(bridge.ignoredCalls))
        context.say(Localized(
            "  The caller got \(fix), the first fix. Delegate calls ignored: \(bridge.ignoredCalls) of \(late) late ones; nothing was resumed twice.",
            ja: "  呼び出し元は最初の位置 \(fix) を受け取りました。無視されたデリゲートの呼び出し: 遅れて来た \(late) 回のうち \(bridge.ignoredCalls) 回。2 回再開されたものはありません。"))
    }

    /// Part 2: a second request while the first waits is refused.
    @MainActor
    private static func secondRequest(_ context: ScenarioContext) async throws {
        context.say(Localized("2) A second currentLocation() while the first waits:", ja: "2) 1 つ目が待っている間に 2 つ目の currentLocation():"))
        let sensor = FakeLocationSensor(), bridge = LocationBridge(sensor: sensor)
        let first = context.text(Localized("first caller", ja: "1 番目の呼び出し元"))
        let second = context.text(Localized("second caller", ja: "2 番目の呼び出し元"))
        let sensorLane = context.text(sensorLaneName)
        let firstTask = try await firstRequest(context, bridge: bridge, sensor: sensor, lane: first)
        let secondRequest = Task {
            context.emit(.verbatim("currentLocation()"), lane: second)
            return try await bridge.currentLocation()
        }
        var refusal = "none"
        do {
            let fix = try await secondRequest.value
            context.emit(Localized("got \(fix) (unexpected)", ja: "\(fix) を受け取った（想定外）"), lane: second)
        } catch {
            refusal = "\(error)"
            context.emit(Localized("threw \(error)", ja: "\(error) がスローされた"), lane: second)
        }
        context.emit(Localized("didUpdate \(LocationFix.sample(0)) → resumes the first", ja: "didUpdate \(LocationFix.sample(0)) → 1 番目を再開"), lane: sensorLane)
        sensor.deliver(.sample(0))
        let fix = try await firstTask.value
        context.emit(Localized("got \(fix)", ja: "\(fix) を受け取った"), lane: first)
        context.note("part 2 second", refusal)
        context.note("part 2 first", fix.description)
        context.note("part 2 requests", String(sensor.requests))
        context.say(Localized(
            "  The second request threw \(refusal) at once; the sensor was asked \(sensor.requests) time(s); the first caller got \(fix).",
            ja: "  2 つ目の要求はすぐに \(refusal) をスローしました。センサーへの要求は \(sensor.requests) 回で、1 番目の呼び出し元は \(fix) を受け取りました。"))
    }

    /// Part 3: the careless bridge overwrites; shown in a child under the explorer.
    private static func overwriteInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "3) A careless bridge that overwrites — in a child process, under the explorer (ch05-continuations --child \(overwrittenContinuationChildName)):",
            ja: "3) 上書きする考慮の足りないブリッジ — 子プロセスで、エクスプローラの制御下で（ch05-continuations --child \(overwrittenContinuationChildName)）:"))
        guard let outcome = context.runBridgeChild(overwrittenContinuationChildName) else { return }
        context.showSteps(BridgeStep.decode(outcome.standardOutput))
        context.say(Localized("  The runtime, on the child's standard error:", ja: "  ランタイムが子プロセスの標準エラーに出力したもの:"))
        context.quoteMisuse(outcome)
        let verdict = childVerdict(outcome.standardOutput)
        let deadlocked = verdict?.deadlocked == true
        if let said = verdict?.said {
            context.say(Localized("  The explorer: \(said.en).", ja: "  エクスプローラ: \(said.ja)。"))
        }
        let secondGotIt = outcome.standardOutput.contains("the second caller got")
        context.note("overwrite: who got it", deadlocked && secondGotIt ? "S" : "?")
        context.note("overwrite misuse", continuationMisuseLines(outcome.standardError).joined(separator: "\n"))
        let lane = childProcessLane
        if deadlocked { context.trace.record(Localized("first caller waits for ever", ja: "1 番目の呼び出し元は永遠に待つ"), lane: lane) }
    }

    /// Part 4: the careless bridge does not clear; a second delegate call traps the child.
    private static func notClearedInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "4) A careless bridge that does not clear, and a second delegate call — in a child process (ch05-continuations --child \(unclearedContinuationChildName)):",
            ja: "4) クリアしない考慮の足りないブリッジと、2 回目のデリゲート呼び出し — 子プロセスで（ch05-continuations --child \(unclearedContinuationChildName)）:"))
        guard let outcome = context.runBridgeChild(unclearedContinuationChildName) else { return }
        let end = context.describeEnd(of: outcome)
        context.say(Localized("  The child \(end.en):", ja: "  子プロセスは\(end.ja)しました:"))
        context.quoteMisuse(outcome)
        var trapped = false
        if case let .signalled(signal) = outcome.termination {
            trapped = true
            context.trace.record(Localized("trapped (\(signalName(signal)))", ja: "トラップ（\(signalName(signal))）"),
                                 lane: childProcessLane)
        }
        context.note("uncleared", trapped ? "trapped" : context.describeEnd(of: outcome).en)
        context.note("uncleared misuse", continuationMisuseLines(outcome.standardError).joined(separator: "\n"))
    }
}
