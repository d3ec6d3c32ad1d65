import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 06-streams/EventStream under the explorer, on a fresh source and a fresh
/// answer per schedule. A consumer task runs `for try await value in answer.events()`; the
/// source delivers from its own task. When the stream ends from the consumer's side, the source
/// ticks at once on the consumer's task (`tickNow`: a stop still to come is too late, in every
/// schedule); after the loop the check lets 30 ms of virtual time pass (a source left running
/// shows itself), then judges the values, the ending, and the
/// source's log: started, what it delivered and when, how often it was stopped.
///
/// 1. The source finishes: all at once (a burst), and 10 ms apart to a slow consumer (25 ms a
///    value); it fails: every value in order, then the end or the source's error.
/// 2. The stream ends from the consumer's side: the loop breaks out, the consuming task is
///    cancelled (as a value arrives, both orders; while a value is on its way, handed over
///    after the stop), the stream is dropped unread: the source is stopped
///    once, at once, and a value arriving after the end reaches no one.
public enum EventStreamCheck {
    public static let valuesInOrder = Property(
        id: "values-in-order",
        name: Localized("every value reaches the loop, in order", ja: "すべての値が順番どおりにループに届く"),
        rule: Localized("Each value the source delivers reaches the `for try await` loop once, in the order it was delivered — none dropped, none repeated, none reordered.",
                        ja: "ソースが届けた値はどれも、届いた順に 1 回ずつ `for try await` ループに届く。落ちる値も、重複する値も、順番が入れ替わる値もない。"))
    public static let endDelivered = Property(
        id: "end-lost",
        name: Localized("the source's end ends the loop", ja: "ソースの終わりでループが終わる"),
        rule: Localized("When the source finishes, the loop ends; when it fails, the loop throws the source's error as it is.",
                        ja: "ソースが終わるとループが終わり、失敗するとループはソースのエラーをそのままスローする。"))
    public static let sourceStopped = Property(
        id: "source-left-running",
        name: Localized("the stream's end stops the source", ja: "ストリームが終わるとソースを止める"),
        rule: Localized("However the stream ends — the source finished or failed, the loop broke out, the consuming task was cancelled, the stream was dropped unread — `source.stop()` is called at once, before the source can deliver anything more.",
                        ja: "ストリームがどう終わっても（ソースの終了や失敗、ループからの `break`、消費者タスクのキャンセル、読まれずに捨てられたストリーム）、すぐに `source.stop()` が呼ばれ、ソースはそれ以上何も届けない。"))
    public static let stoppedOnce = Property(
        id: "stopped-twice",
        name: Localized("the source is stopped exactly once", ja: "ソースを止めるのはちょうど 1 回"),
        rule: Localized("`source.stop()` is called once per started source — not again when the stream's end and the source's end both ask for it.",
                        ja: "`source.stop()` は開始したソース 1 つにつき 1 回だけ呼ぶ。ストリームの終わりとソースの終わりの両方で呼ばない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [valuesInOrder, endDelivered, sourceStopped, stoppedOnce, Property.finishes, Property.freshState]

    /// Every case's bug shows in its first schedules (the source's own moments are set by the
    /// case); the rest of a short search is a margin, and the check stays quick.
    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.05)
    static let ok = "ok"

    /// How the case's consumer reads the stream.
    enum Consumer: Equatable {
        case reads, slow, breaksAfter(Int), cancelledAt(Duration), dropsUnread
    }

    struct Case {
        let script: EventSource.Script
        let consumer: Consumer
        /// The values the loop may get (several: a cancel as a value arrives).
        let values: [[Int]]
        /// The loop's ending: `end`, or the error thrown.
        let ending: String
        let call: Localized
    }

    static let cases: [Case] = [
        Case(script: .events([.value(1), .value(2), .value(3), .finished], apart: .zero), consumer: .reads, values: [[1, 2, 3]], ending: "end",
             call: Localized("the source delivers 1, 2, 3 and finishes all at once, one call after another", ja: "ソースが 1, 2, 3 と終了を、続けざまに一度に届ける")),
        Case(script: .events([.value(1), .value(2), .failed(.disconnected)]), consumer: .reads, values: [[1, 2]], ending: "SensorError.disconnected",
             call: Localized("the source delivers 1, 2, then fails with SensorError.disconnected", ja: "ソースが 1, 2 を届けた後、SensorError.disconnected で失敗する")),
        Case(script: .events([.value(1), .value(2), .value(3), .value(4), .finished]), consumer: .slow, values: [[1, 2, 3, 4]], ending: "end",
             call: Localized("a slow loop (25 ms a value) while the source delivers 1…4 and finishes, 10 ms apart",
                             ja: "遅いループ（1 つの値に 25 ms）に、ソースが 10 ms おきに 1…4 を届けて終わる")),
        Case(script: .endless, consumer: .breaksAfter(2), values: [[1, 2]], ending: "end",
             call: Localized("an endless source; the loop breaks out after 2 values", ja: "終わらないソース。ループは 2 つ目の値の後で `break` する")),
        Case(script: .endless, consumer: .cancelledAt(.milliseconds(30)), values: [[1, 2], [1, 2, 3]], ending: "end",
             call: Localized("an endless source; the consuming task is cancelled at 30 ms, as value 3 arrives",
                             ja: "終わらないソース。値 3 が届く 30 ms に消費者のタスクをキャンセルする")),
        Case(script: .endlessHolding(3), consumer: .cancelledAt(.milliseconds(32)), values: [[1, 2]], ending: "end",
             call: Localized("an endless source; the consuming task is cancelled at 32 ms, while value 3 is on its way (it arrives after the stop)",
                             ja: "終わらないソース。値 3 が届く途中の 32 ms に消費者のタスクをキャンセルする（値 3 は停止の後に届く）")),
        Case(script: .eventsHolding([.value(1), .value(2), .finished], held: 3), consumer: .cancelledAt(.milliseconds(32)), values: [[1, 2]], ending: "end",
             call: Localized("the source delivers 1, 2, then its end; the consuming task is cancelled at 32 ms, while the end is on its way (it arrives after the stop)",
                             ja: "ソースが 1, 2 を届け、続いて終わりを届ける。終わりが届く途中の 32 ms に消費者のタスクをキャンセルする（終わりは停止の後に届く）")),
        Case(script: .endless, consumer: .dropsUnread, values: [[]], ending: "end",
             call: Localized("`_ = events()`: the stream is made and dropped unread", ja: "`_ = events()`: ストリームを作って、読まずに捨てる")),
    ]

    public static func run(_ make: @escaping @Sendable (EventSource) -> any EventStreamProtocol) -> CheckResult {
        for item in cases {
            if let failure = check(make, item) { return .failed(failure) }
        }
        return .passed(properties)
    }

    // MARK: One case

    static func check(_ make: @escaping @Sendable (EventSource) -> any EventStreamProtocol, _ item: Case) -> CheckFailure? {
        checkExplored(valuesInOrder, title: item.call, broken: brokenProperty(in: properties), deadlock: endDelivered,
                      leftWaiting: leftWaiting, observed: { observed(item.call, $0) }, budget: budget,
                      classify: { $0 == ok ? .acceptable : .forbidden }) {
            let source = EventSource(script: item.script)
            let answer = make(source)
            let consumer = item.consumer
            nameNextTasks(BilingualLabel.join("consumer", "消費者"))
            let reading = Task { () -> (values: [Int], ending: String, logAtEnd: Int) in
                var values: [Int] = []
                if consumer == .dropsUnread {
                    _ = answer.events()
                    let cut = source.log.count
                    source.tickNow()
                    return (values, "end", cut)
                }
                do {
                    for try await value in answer.events() {
                        values.append(value)
                        checkpoint(Localized("loop ← \(value)", ja: "ループ ← \(value)"))
                        if case let .breaksAfter(count) = consumer, values.count == count { break }
                        if consumer == .slow { try? await Task.sleep(for: .milliseconds(25)) }
                    }
                    checkpoint(Localized("loop ended", ja: "ループが終わった"))
                    // The stream has ended here (a `break` dropped it, a cancel made `next()`
                    // return nil): the source must be stopped already, so a tick finds it so.
                    let cut = source.log.count
                    if consumer != .reads, consumer != .slow { source.tickNow() }
                    return (values, "end", cut)
                } catch {
                    checkpoint(Localized("loop threw", ja: "ループがスローした"))
                    return (values, errorName(error), source.log.count)
                }
            }
            if case let .cancelledAt(moment) = consumer {
                try? await ExplorerClock().sleep(for: moment)
                checkpoint("consumer.cancel()")
                reading.cancel()
            }
            let (values, ending, logAtEnd) = await reading.value
            try? await ExplorerClock().sleep(for: .milliseconds(30))
            let log = source.log
            source.shutDown()
            await untilQuiet()
            return judge(item, values: values, ending: ending, log: log, cut: logAtEnd)
        }
    }

    /// The loop's values and ending, then the source's log from its start; `cut`: how much of the
    /// log was there when the stream ended from the consumer's side (after it nothing may come).
    static func judge(_ item: Case, values: [Int], ending: String, log: [EventSource.Entry], cut: Int) -> String {
        let delivered = log.compactMap { entry -> Int? in
            if case let .delivered(.value(value)) = entry { return value }
            return nil
        }
        if !item.values.contains(values) {
            return brokenOutcome(valuesInOrder, Localized(
                "the source delivered \(list(delivered)); the loop got \(list(values))",
                ja: "ソースは \(list(delivered)) を届け、ループが受け取ったのは \(list(values)) でした"))
        }
        let acceptedEndings = item.consumer == .reads || item.consumer == .slow ? [item.ending] : [item.ending, "CancellationError"]
        if !acceptedEndings.contains(ending) {
            let expected = item.ending == "end" ? Localized("the loop to end", ja: "ループが終わる") : Localized("the loop to throw \(item.ending)", ja: "ループが \(item.ending) をスローする")
            let got = ending == "end" ? Localized("it ended without an error", ja: "エラーなしで終わった") : Localized("it threw \(ending)", ja: "\(ending) をスローした")
            return brokenOutcome(endDelivered, Localized("expected \(expected.en); \(got.en)", ja: "\(expected.ja)はずが、\(got.ja)"))
        }
        let started = log.contains(.started)
        let stops = log.filter { $0 == .stopped }.count
        if started, stops == 0 {
            return brokenOutcome(sourceStopped, Localized(
                "the stream ended (\(endingText(item).en)) but nothing called `source.stop()`: the source went on delivering (\(list(delivered)))",
                ja: "ストリームは終わった（\(endingText(item).ja)）のに、`source.stop()` を呼んだものがなく、ソースは届け続けた（\(list(delivered))）"))
        }
        if let late = log.dropFirst(cut).first(where: { if case .delivered = $0 { return true } else { return false } }), case let .delivered(event) = late {
            return brokenOutcome(sourceStopped, Localized(
                "the source delivered \(event) after the stream had ended (\(endingText(item).en)): `source.stop()` came later, not at once",
                ja: "ストリームが終わった（\(endingText(item).ja)）後に、ソースが \(event) を届けた。`source.stop()` がすぐではなく、後から呼ばれた"))
        }
        if stops > 1 {
            return brokenOutcome(stoppedOnce, Localized("`source.stop()` was called \(stops) times", ja: "`source.stop()` が \(stops) 回呼ばれた"))
        }
        return ok
    }

    static func endingText(_ item: Case) -> Localized {
        switch item.consumer {
        case .reads, .slow: item.ending == "end" ? Localized("the source finished", ja: "ソースが終了") : Localized("the source failed", ja: "ソースが失敗")
        case .breaksAfter: Localized("the loop broke out", ja: "ループが `break`")
        case .cancelledAt: Localized("the consuming task was cancelled", ja: "消費者のタスクがキャンセルされた")
        case .dropsUnread: Localized("the stream was dropped unread", ja: "ストリームが読まれずに捨てられた")
        }
    }

    static func list(_ values: [Int]) -> String { "[\(values.map(String.init).joined(separator: ", "))]" }

    static let leftWaiting = Localized(
        "The `for try await` loop never ended: nothing finished the stream. When the source delivers `.finished`, call `continuation.finish()`; when it delivers `.failed(error)`, `continuation.finish(throwing: error)`.",
        ja: "`for try await` ループが終わりませんでした。ストリームを終えたものがありません。ソースが `.finished` を届けたら `continuation.finish()`、`.failed(error)` を届けたら `continuation.finish(throwing: error)` を呼びましょう。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case valuesInOrder.id:
                Localized("Yield each value straight from the source's callback, in the callback — not from a `Task {}` of its own, which may run after the next one — and keep the default buffering (`.unbounded`): a slow loop must still get every value.",
                          ja: "値はソースのコールバックの中で、そのまま `yield` しましょう。値ごとの `Task {}` から `yield` すると、次の値より後に実行されることがあります。バッファリングは既定の `.unbounded` のままにします。遅いループにもすべての値が届く必要があります。")
            case endDelivered.id:
                Localized("Map the source's end to the stream's: `.finished` → `continuation.finish()`, `.failed(error)` → `continuation.finish(throwing: error)` with the source's own error.",
                          ja: "ソースの終わりをストリームの終わりに対応させましょう。`.finished` → `continuation.finish()`、`.failed(error)` → ソース自身のエラーで `continuation.finish(throwing: error)`。")
            case sourceStopped.id:
                Localized("Set `continuation.onTermination = { _ in source.stop() }`: the stream calls it once, at once, however it ends — finished, failed, a `break`, a cancelled task, or dropped unread. Stop there directly, not in a `Task {}` that runs later.",
                          ja: "`continuation.onTermination = { _ in source.stop() }` を設定しましょう。ストリームがどう終わっても（終了、失敗、`break`、キャンセルされたタスク、読まれずに破棄）、すぐに 1 回だけ呼ばれます。後で実行される `Task {}` の中ではなく、そこで直接止めます。")
            case stoppedOnce.id:
                Localized("Stop the source in one place only: `onTermination` runs for every ending, the source's own end included — do not also stop it when `.finished` or `.failed` arrives.",
                          ja: "ソースを止めるのは 1 か所だけにしましょう。`onTermination` はソース自身の終わりも含めてどの終わり方でも実行されます。`.finished` や `.failed` が届いたときにも止めてはいけません。")
            default:
                nil
            }
        }
    }
}
