import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 04-async-await/OrderedThumbnails under the explorer: every schedule of each
/// case, fewest preemptions first, with a fresh loader and a fresh answer per schedule. The
/// loader's latencies make loads end in another order than they were asked for, and its clock is
/// virtual, so "as soon as one ends" is a fact the check can measure: a sliding window of K loads
/// ends at one known time, a batch of K at a time or a loop one by one later.
///
/// 1. Six ids, two at a time: one thumbnail per id, in the order asked for; never more than two
///    loads at once; two at once whenever two are waiting (the known end time).
/// 2. Five ids, two at a time, the third fails while the second is still loading: the error
///    thrown is the loader's; the second load is cancelled (it does not finish later); the fourth
///    and fifth never start.
/// 3. Three ids, one of them twice, with room for four; and no ids: no index past the end, a
///    thumbnail for each place, an empty result.
public enum OrderedThumbnailsCheck {
    public static let inputOrder = Property(
        id: "out-of-order",
        name: Localized("results in the order asked for", ja: "結果は依頼した順"),
        rule: Localized("The result has one thumbnail per id, in the order of `ids` — whatever order the loads end in.",
                        ja: "結果は id ごとに 1 つのサムネイルで、`ids` の順に並ぶ。ロードが終わる順序に関係なく。"))
    public static let limitRespected = Property(
        id: "over-limit",
        name: Localized("at most maxInFlight loads at once", ja: "同時のロードは maxInFlight 個まで"),
        rule: Localized("In every schedule, no more than `maxInFlight` loads run at once.",
                        ja: "どのスケジュールでも、同時に実行されるロードは `maxInFlight` 個を超えない。"))
    public static let startsInOrder = Property(
        id: "started-out-of-order",
        name: Localized("loads start in the order of ids", ja: "ロードは ids の順に始まる"),
        rule: Localized("Loads start in the order of `ids`: a later id never starts while an earlier one still waits for its turn.",
                        ja: "ロードは `ids` の順に始まる。前の id が順番を待っている間に、後の id が始まることはない。"))
    public static let slotsKeptBusy = Property(
        id: "idle-slot",
        name: Localized("the next load starts as soon as one ends", ja: "1 つ終わればすぐ次のロードが始まる"),
        rule: Localized("While ids are waiting, `maxInFlight` loads run: when one ends the next starts at once — not after the whole batch, not one by one.",
                        ja: "待っている id がある間は `maxInFlight` 個のロードが実行される。1 つ終われば次がすぐ始まる。バッチ全体を待ったり、1 つずつ実行したりしない。"))
    public static let failureThrown = Property(
        id: "error-lost",
        name: Localized("the first failure reaches the caller", ja: "最初の失敗が呼び出し元に届く"),
        rule: Localized("When a load fails, `thumbnails(for:maxInFlight:loader:)` throws that load's error — not `CancellationError`, not a partial result.",
                        ja: "ロードが失敗したら、`thumbnails(for:maxInFlight:loader:)` はそのロードのエラーをスローする。`CancellationError` や途中までの結果ではなく。"))
    public static let failureCancels = Property(
        id: "not-cancelled",
        name: Localized("a failure cancels the loads in flight", ja: "失敗すると実行中のロードはキャンセルされる"),
        rule: Localized("Loads still running when one fails are cancelled: none of them finishes later.",
                        ja: "1 つが失敗した時点で実行中のロードはキャンセルされ、後から完了するものはない。"))
    public static let noStartAfterFailure = Property(
        id: "load-after-failure",
        name: Localized("no load starts after a failure", ja: "失敗の後に始まるロードはない"),
        rule: Localized("Once a load has failed, no further load starts.",
                        ja: "ロードが 1 つ失敗したら、それ以上のロードは始まらない。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [inputOrder, limitRespected, startsInOrder, slotsKeptBusy, failureThrown, failureCancels, noStartAfterFailure,
                                    Property.finishes, Property.freshState]

    static let budget = Explorer.Budget(maxSchedules: 3_000, maxSeconds: 0.35, foreignWaitSeconds: 0.5)

    public static func run(_ make: @escaping @Sendable () -> any OrderedThumbnailsProtocol) -> CheckResult {
        let failure = checkSlidingWindow(make)
            ?? checkFailure(make)
            ?? checkFewerThanLimit(make, ids: ["x", "y", "x"], maxInFlight: 4)
            ?? checkFewerThanLimit(make, ids: [], maxInFlight: 2)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: Cases

    /// Case 1. With two at a time: d and a start; a ends at 10 → f; d and f end at 30 → b, e;
    /// e ends at 40 → c; c at 60; b at 70. In batches of two it ends at 90, one by one at 130.
    static let six: [(id: String, ms: Int)] = [("d", 30), ("a", 10), ("f", 20), ("b", 40), ("e", 10), ("c", 20)]

    static func checkSlidingWindow(_ make: @escaping @Sendable () -> any OrderedThumbnailsProtocol) -> CheckFailure? {
        let ids = six.map(\.id)
        let call = "`thumbnails(for: \(list(ids)), maxInFlight: 2, loader: …)`"
        let end = windowEnd(six.map(\.ms), maxInFlight: 2)
        return explore(call, maxInFlight: 2) {
            let loader = ThumbnailLoader(latencies: latencies(six))
            let result: [Thumbnail]
            do {
                result = try await make().thumbnails(for: ids, maxInFlight: 2, loader: loader)
            } catch {
                return brokenOutcome(inputOrder, Localized("threw \(errorName(error)) though no load failed", ja: "どのロードも失敗していないのに \(errorName(error)) をスローした"))
            }
            if loader.mostInFlight > 2 { return overLimit(loader.mostInFlight) }
            if result.map(\.id) != ids { return brokenOutcome(inputOrder, returned(result)) }
            let twice = ids.filter { id in loader.events.filter { $0.id == id && $0.kind == .started }.count > 1 }
            if !twice.isEmpty { return brokenOutcome(inputOrder, Localized("loaded \(list(twice)) more than once", ja: "\(list(twice)) を 2 回以上ロードした")) }
            if let early = startedAhead(loader.events, ids: ids) { return brokenOutcome(startsInOrder, early) }
            let elapsed = milliseconds(loader.elapsed)
            if elapsed != end { return brokenOutcome(slotsKeptBusy, Localized("ended at \(elapsed) ms, at most \(loader.mostInFlight) at once", ja: "\(elapsed) ms に終了、同時に最大 \(loader.mostInFlight) 個")) }
            return ok
        }
    }

    /// Case 2. p and q start; p ends at 20 → r; r fails at 30 while q (due at 40) still loads.
    static let five: [(id: String, ms: Int)] = [("p", 20), ("q", 40), ("r", 10), ("s", 10), ("t", 10)]

    static func checkFailure(_ make: @escaping @Sendable () -> any OrderedThumbnailsProtocol) -> CheckFailure? {
        let ids = five.map(\.id)
        let call = "`thumbnails(for: \(list(ids)), maxInFlight: 2, loader: …)`"
        return explore(call, maxInFlight: 2) {
            let loader = ThumbnailLoader(latencies: latencies(five), failing: "r")
            var thrown: String?
            do {
                let result = try await make().thumbnails(for: ids, maxInFlight: 2, loader: loader)
                thrown = nil
                if loader.mostInFlight > 2 { return overLimit(loader.mostInFlight) }
                return brokenOutcome(failureThrown, returned(result))
            } catch {
                thrown = errorName(error)
            }
            if loader.mostInFlight > 2 { return overLimit(loader.mostInFlight) }
            let events = loader.events
            guard let failedAt = events.firstIndex(where: { $0.kind == .failed }) else {
                return brokenOutcome(noStartAfterFailure, Localized("never loaded r; threw \(thrown ?? "nothing")", ja: "r をロードせず、\(thrown ?? "何も") スローした"))
            }
            let lateStarts = events[failedAt...].filter { $0.kind == .started }.map(\.id)
            if !lateStarts.isEmpty { return brokenOutcome(noStartAfterFailure, Localized("\(list(lateStarts)) started after r failed", ja: "r の失敗の後に \(list(lateStarts)) が始まった")) }
            let failureTime = events[failedAt].at
            let lateEnds = events.filter { $0.kind == .finished && $0.at > failureTime }.map(\.id)
            if !lateEnds.isEmpty { return brokenOutcome(failureCancels, Localized("\(list(lateEnds)) finished after r failed", ja: "r の失敗の後に \(list(lateEnds)) が完了した")) }
            if thrown != "LoadFailed(r)" { return brokenOutcome(failureThrown, Localized("threw \(thrown ?? "nothing")", ja: "\(thrown ?? "何も") スローした")) }
            return ok
        }
    }

    /// Case 3: fewer ids than the limit (or none).
    static func checkFewerThanLimit(_ make: @escaping @Sendable () -> any OrderedThumbnailsProtocol, ids: [String], maxInFlight: Int) -> CheckFailure? {
        let call = "`thumbnails(for: \(list(ids)), maxInFlight: \(maxInFlight), loader: …)`"
        return explore(call, maxInFlight: maxInFlight) {
            let loader = ThumbnailLoader(latencies: [:])
            let result: [Thumbnail]
            do {
                result = try await make().thumbnails(for: ids, maxInFlight: maxInFlight, loader: loader)
            } catch {
                return brokenOutcome(inputOrder, Localized("threw \(errorName(error)) though no load failed", ja: "どのロードも失敗していないのに \(errorName(error)) をスローした"))
            }
            if result.map(\.id) != ids { return brokenOutcome(inputOrder, returned(result)) }
            if loader.mostInFlight != ids.count { return brokenOutcome(slotsKeptBusy, Localized("at most \(loader.mostInFlight) at once", ja: "同時に最大 \(loader.mostInFlight) 個")) }
            return ok
        }
    }

    // MARK: Exploring

    static let ok = "ok"

    /// Explores `body`, whose outcome is `ok` or `<property id>|<what happened>`.
    static func explore(_ call: String, maxInFlight: Int, _ body: @escaping Explorer.Body) -> CheckFailure? {
        checkExplored(inputOrder, title: .verbatim(call), broken: brokenProperty(in: properties), leftWaiting: leftWaiting, observed: { outcome in
            observed(call, maxInFlight: maxInFlight, outcome)
        }, budget: budget, classify: { $0 == ok ? .acceptable : .forbidden }) {
            return try await body()
        }
    }

    static let leftWaiting = Localized(
        "Something waits for what no one gives — a continuation never resumed, or a child waiting on it; a group ends only when every child has ended.",
        ja: "誰も与えないものを何かが待っています（再開されない継続や、それを待つ子タスク）。グループは、すべての子タスクが終わったときにだけ終わります。")

    static func observed(_ call: String, maxInFlight: Int, _ outcome: String) -> Localized {
        guard let (id, what) = readBrokenOutcome(outcome) else { return .verbatim("\(call): \(outcome)") }
        switch id {
        case limitRespected.id:
            return Localized(
                "\(call): \(what.en) ran. Start `maxInFlight` tasks, then one more each time one ends (`for try await` / `group.next()`), never all of them up front.",
                ja: "\(call): \(what.ja)が実行されました。最初に `maxInFlight` 個のタスクを始め、1 つ終わるごとに 1 つ追加します（`for try await` や `group.next()`）。最初に全部を追加してはいけません。")
        case inputOrder.id:
            return Localized(
                "\(call): \(what.en). Results come out of a group in the order the loads end; keep each id's index with its result and put it back in place.",
                ja: "\(call): \(what.ja)。グループからは、ロードが終わった順に結果が出てきます。id ごとのインデックスを結果と一緒に持ち、元の位置に戻しましょう。")
        case startsInOrder.id:
            return Localized(
                "\(call): \(what.en). Start the loads in the order of `ids` — the first `maxInFlight`, then `ids[next]` each time one ends — and keep each result's index to put it in place.",
                ja: "\(call): \(what.ja)。ロードは `ids` の順に始めます。最初に `maxInFlight` 個、その後は 1 つ終わるたびに `ids[next]` を始め、結果はそれぞれのインデックスで元の位置に戻します。")
        case slotsKeptBusy.id:
            return Localized(
                "\(call): \(what.en); loads that start in the order asked for, each as soon as one ends, finish at \(windowEnd(six.map(\.ms), maxInFlight: 2)) ms (\(maxInFlight) at once). Waiting for a whole batch, or one load at a time, leaves slots idle.",
                ja: "\(call): \(what.ja)。依頼した順に、1 つ終わるとすぐ次を始めれば、\(windowEnd(six.map(\.ms), maxInFlight: 2)) ms（同時に \(maxInFlight) 個）で終わります。バッチ全体を待ったり 1 つずつ実行したりすると、空きが生まれます。")
        case failureThrown.id:
            return Localized(
                "\(call): \(what.en); the caller should get the loader's error, LoadFailed(r). Let `try await` on the group rethrow it; do not swallow it or return what was loaded so far.",
                ja: "\(call): \(what.ja)。呼び出し元はローダーのエラー LoadFailed(r) を受け取るはずです。グループへの `try await` でそのまま再スローさせ、握りつぶしたり途中までの結果を返したりしないでください。")
        case failureCancels.id:
            return Localized(
                "\(call): \(what.en) — a load kept running after the failure. Throw out of the group's closure (it cancels the other children), or call `group.cancelAll()`.",
                ja: "\(call): \(what.ja)。失敗の後もロードが続いていました。グループのクロージャからスローする（ほかの子タスクがキャンセルされる）か、`group.cancelAll()` を呼びましょう。")
        case noStartAfterFailure.id:
            return Localized(
                "\(call): \(what.en). After a failure, add no more tasks: stop the loop as soon as a result throws.",
                ja: "\(call): \(what.ja)。失敗の後はタスクを追加しないでください。結果がスローしたらすぐにループを止めます。")
        default:
            return .verbatim("\(call): \(outcome)")
        }
    }

    // MARK: Helpers

    /// Children added together may start in any order, but by the end of each moment the ids
    /// started so far must be the first ones of `ids`: "d and a, then f" — not "d and a, then b".
    static func startedAhead(_ events: [ThumbnailLoader.Event], ids: [String]) -> Localized? {
        let starts = events.filter { $0.kind == .started }
        for time in Set(starts.map(\.at)).sorted() {
            let started = starts.filter { $0.at <= time }.map(\.id)
            let expected = Array(ids.prefix(started.count))
            if started.sorted() != expected.sorted() {
                let ahead = started.filter { !expected.contains($0) }
                let waiting = list(expected.filter { !started.contains($0) })
                return Localized("\(list(ahead)) started at \(milliseconds(time)) ms, before \(waiting)",
                                 ja: "\(milliseconds(time)) ms に \(waiting) より先に \(list(ahead)) が始まった")
            }
        }
        return nil
    }

    static func overLimit(_ most: Int) -> String {
        brokenOutcome(limitRespected, Localized("\(most) loads at once", ja: "同時に \(most) 個のロード"))
    }

    static func returned(_ result: [Thumbnail]) -> Localized {
        Localized("returned \(list(result.map(\.id)))", ja: "\(list(result.map(\.id))) を返した")
    }

    static func latencies(_ table: [(id: String, ms: Int)]) -> [String: Duration] {
        Dictionary(uniqueKeysWithValues: table.map { ($0.id, Duration.milliseconds($0.ms)) })
    }

    /// When `maxInFlight` loads at a time, each starting as soon as one ends, all end.
    static func windowEnd(_ latencies: [Int], maxInFlight: Int) -> Int {
        var running: [Int] = []  // end times
        var now = 0
        for latency in latencies {
            if running.count == maxInFlight {
                now = running.min()!
                running.remove(at: running.firstIndex(of: now)!)
            }
            running.append(now + latency)
        }
        return running.max() ?? 0
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    static func list(_ ids: [String]) -> String { "[" + ids.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
}
