import Foundation
import WorkbookCore
import WorkbookExplorer

/// Checks a property of async code under the explorer: every schedule with 0, 1, 2, …
/// preemptions, fewest first, for half the budget (or until there is none left), then random
/// and PCT schedules (`Explorer.Strategy.deepening`).
///
/// `body` runs one schedule and returns its outcome (e.g. `balance=2`); it throws
/// `InvariantViolation` — or returns an outcome `classify` calls forbidden — when the property
/// breaks. The failure carries the schedule with the fewest preemptions found, its replay token
/// and the outcome tally. `broken` names the property a failing outcome broke when it is not
/// `property`; a schedule in which the body never finished breaks `deadlock`, reported as
/// `title` never coming back, who waited and where, then the `leftWaiting` advice. `title` says
/// what the case runs (a crash in it is reported with it too). The body's task is the caller
/// (`callerTask`). `raceLane: false` skips the ThreadSanitizer pass after a clean search, for a
/// case whose tasks touch nothing another case's pass has not already shown racing.
/// `excusesRealClockTimers`: where clock readings are real (`PlatformMechanism.clockReadings`
/// unavailable: Apple platforms), a replay that ran differently is not held against the code —
/// a deadline it computed from `ContinuousClock.now` is read back from the real clock there, so
/// timers may differ; the check declares a probe for it, so a "done" verdict says what was not
/// checked.
public func checkExplored(
    _ property: Property,
    title: Localized? = nil,
    broken: @escaping @Sendable (String) -> Property? = { _ in nil },
    deadlock: Property = .finishes,
    leftWaiting: Localized? = nil,
    observed describe: @escaping @Sendable (String) -> Localized,
    budget: Explorer.Budget = Explorer.Budget(maxSchedules: 5_000, maxSeconds: 1.5),
    classify: @escaping @Sendable (String) -> OutcomeTally.Verdict = { _ in .acceptable },
    raceLane: Bool = true,
    excusesRealClockTimers: Bool = false,
    _ body: @escaping Explorer.Body
) -> CheckFailure? {
    let judged: Explorer.Body = {
        nameTask(callerTask)
        let outcome = try await body()
        if classify(outcome) == .forbidden { throw InvariantViolation(outcome) }
        return outcome
    }
    let (number, replayToken, skip) = ExploredCases.begin(title: title)
    if skip { return nil }
    var tally = OutcomeTally(classify: classify)
    func failure(_ schedule: ScheduleReport?, outcomes: [(outcome: String, count: Int)]) -> CheckFailure? {
        for (outcome, count) in outcomes { for _ in 0..<count { tally.record(outcome) } }
        guard let schedule else { return nil }
        // In both languages where the explorer says it (a deadlock names who waits, and where).
        let what: String
        switch schedule.outcome {
        case let .failed(message): what = message
        default: what = BilingualLabel.join(schedule.outcomeText(.en), schedule.outcomeText(.ja))
        }
        tally.record(what, forbidden: true)
        if case let .blocked(step) = schedule.outcome {
            let who = schedule.steps.last?.who.localized ?? .verbatim("?")
            return CheckFailure(.finishes, observed: Localized(
                "Step \(step) (\(who.en)) never gave its thread back: the code it ran blocked its thread — in a wait, a lock, a `sync` or a sleep — or looped, for something only another task could give. Async code must not block its thread: `await` what it waits for. The places where your code can block are listed below.",
                ja: "ステップ \(step)（\(who.ja)）がスレッドを返しませんでした。そこで実行したコードが、別のタスクしか与えられないものを求めて、スレッドをブロックしたか（wait、ロック、`sync`、スリープ）、ループし続けています。async のコードはスレッドをブロックしてはいけません。待つものは `await` しましょう。あなたのコードでブロックし得る場所を下に示します。"),
                tally: nil, schedule: schedule, exploredCase: number)
        }
        if isDeadlock(schedule) {
            let waited = leftWaiting.map { neverCameBack(title ?? .verbatim("?"), whoWaited: schedule.whoWaited, advice: $0) }
            return CheckFailure(deadlock, observed: waited ?? describe(what), tally: tally, schedule: schedule, exploredCase: number)
        }
        return CheckFailure(broken(what) ?? property, observed: describe(what), tally: tally, schedule: schedule, exploredCase: number)
    }
    if let replayToken {
        // This case alone, on the schedule asked for: no search, no race lane.
        let schedule = Explorer.replay(replayToken, budget: budget, judged)
        var passed = false
        if case .completed = schedule.outcome { passed = true }
        let found = failure(passed ? nil : schedule, outcomes: passed ? [(schedule.outcome.description, 1)] : [])
        ExploredCases.record(.init(number: number, token: replayToken, outcome: schedule.outcome.description, failure: found))
        return found
    }
    let result = Explorer.explore(.deepening(seed: 1), budget: budget, judged)
    ExploredCases.record(.init(schedules: result.schedulesRun, depth: result.depth))
    let showsStats = ProcessInfo.processInfo.environment["WORKBOOK_EXPLORER_STATS"] != nil
    if showsStats {
        // For tuning budgets: how far each search went.
        Console.error("explored \(property.id): \(result.schedulesRun) schedules in \(String(format: "%.3f", result.seconds)) s, every schedule: \(result.depth.everySchedule), complete bound: \(result.depth.completeBound.map(String.init) ?? "none"), failed: \(result.failure != nil)")
    }
    // Layer 2 for async code: on the driver thread TSan sees one thread and no race. When the
    // search passed, a few of its schedules run again with each task on a thread of its own,
    // ordered only by what the code orders; a race halts the process with TSan's report, and
    // the journal names the schedule it happened in.
    if result.failure == nil, result.sharedState == nil, raceLane, RaceDetector.isActive {
        var threaded = budget
        threaded.tasksOnOwnThreads = true
        threaded.maxSchedules = 3
        let lane = Explorer.explore(.exhaustive(maxPreemptions: 1), budget: threaded, judged)
        if showsStats {
            Console.error("  on threads of their own: \(lane.schedulesRun) schedules in \(String(format: "%.3f", lane.seconds)) s, failed: \(lane.failure != nil)")
        }
    }
    // With work from outside the run (a callback on a Dispatch queue), a replay may differ by
    // timing alone: that is no proof of shared state, and a correct answer must not fail on it.
    if result.sharedState != nil, result.uncontrolled.isEmpty {
        let runs = result.sharedStateRuns.count == 2 ? result.sharedStateRuns : ["?", "?"]
        let how = runs[0] == runs[1]
            ? Localized("it ended the same (\"\(BilingualLabel.english(runs[0]))\") but took other steps",
                        ja: "結果は同じ（「\(BilingualLabel.japanese(runs[0]))」）でしたが、別のステップをたどりました")
            : Localized("\"\(BilingualLabel.english(runs[0]))\" the first time, \"\(BilingualLabel.english(runs[1]))\" the second",
                        ja: "1 回目は「\(BilingualLabel.japanese(runs[0]))」、2 回目は「\(BilingualLabel.japanese(runs[1]))」でした")
        var whereItDiffered = Localized.verbatim("")
        var advice = Localized(
            "Something outlives a schedule — a `static let shared` actor, a global, a cache — or the code's own order changes from run to run: a `Dictionary` or `Set` keyed by values that differ each time (`ObjectIdentifier`, `UUID()`, addresses), random numbers. So no verdict about the interleavings can be trusted. Make the state inside the code that runs, and keep what must be served in order — waiting callers, say — in an array.",
            ja: "スケジュールより長生きするもの（`static let shared` のアクター、グローバル変数、キャッシュ）があるか、コード自身の順序が実行ごとに変わります（毎回違う値（`ObjectIdentifier`、`UUID()`、アドレス）をキーにした `Dictionary` や `Set`、乱数）。そのため、インターリーブについての判定を信頼できません。状態は実行されるコードの中で作り、順に応えるべきもの（待っている呼び出し元など）は配列に持ちましょう。")
        if excusesRealClockTimers, !PlatformMechanism.clockReadings.isAvailable {
            return failure(result.failure, outcomes: result.outcomes)
        }
        if let divergence = result.sharedStateDivergence {
            whereItDiffered = Localized(" At step \(divergence.step) the first run ran \(divergence.first), the second \(divergence.second).",
                                        ja: "ステップ \(divergence.step) で、1 回目は \(divergence.first)、2 回目は \(divergence.second) を実行しました。")
            if divergence.first.hasPrefix("timer") || divergence.second.hasPrefix("timer") {
                advice = Localized(
                    "The two runs' timers came due in another order: a sleep's length was computed from a real clock (`Date()`, `DispatchTime.now()`; on Apple platforms `ContinuousClock.now` too) at a moment that differed between runs, or state that outlives a schedule changed it. Sleep for fixed durations, or take the clock as a parameter and pass an injected one.",
                    ja: "2 回の実行でタイマーの期限の順序が変わりました。スリープの長さを実時間の時計（`Date()` や `DispatchTime.now()`。Apple プラットフォームでは `ContinuousClock.now` も）から、実行ごとに違う時点で計算しているか、スケジュールより長生きする状態がそれを変えています。決まった長さだけスリープするか、時計を引数で受け取り、注入した時計を渡しましょう。")
            }
        }
        return CheckFailure(.freshState, observed: Localized(
            "One schedule, run twice, ran differently: \(how.en).\(whereItDiffered.en) \(advice.en)",
            ja: "1 つのスケジュールを 2 回実行すると、違う実行になりました（\(how.ja)）。\(whereItDiffered.ja)\(advice.ja)"),
            tally: nil, schedule: result.failure, exploredCase: number)
    }
    return failure(result.failure, outcomes: result.outcomes)
}

/// An explored outcome that broke `property`, in both languages (`id|English`, `id|日本語`), so
/// a tally shows it in the learner's language and `readBrokenOutcome` gives it back.
public func brokenOutcome(_ property: Property, _ what: Localized) -> String {
    BilingualLabel.join("\(property.id)|\(what.en)", "\(property.id)|\(what.ja)")
}

/// The property id and what happened, of an outcome made by `brokenOutcome`.
public func readBrokenOutcome(_ outcome: String) -> (id: String, what: Localized)? {
    let english = BilingualLabel.english(outcome), japanese = BilingualLabel.japanese(outcome)
    guard let bar = english.firstIndex(of: "|") else { return nil }
    let id = String(english[..<bar])
    let ja = japanese.hasPrefix(id + "|") ? String(japanese.dropFirst(id.count + 1)) : String(english[english.index(after: bar)...])
    return (id, Localized(String(english[english.index(after: bar)...]), ja: ja))
}

/// The property of `properties` an outcome made by `brokenOutcome` names.
public func brokenProperty(in properties: [Property]) -> @Sendable (String) -> Property? {
    { outcome in readBrokenOutcome(outcome).flatMap { broken in properties.first { $0.id == broken.id } } }
}

/// An error as a report names it: `CancellationError`, `ThumbnailError.badID`, `LoadFailed(r)`
/// (a type that describes itself with its name).
public func errorName(_ error: any Error) -> String {
    if error is CancellationError { return "CancellationError" }
    let described = String(describing: error), type = String(describing: Swift.type(of: error))
    return described.hasPrefix(type) ? described : "\(type).\(described)"
}

/// What a call gave, as a report names it: the value described (`Thumbnail(cat)`), or the
/// error's name.
public func resultText<Value>(_ result: Result<Value, any Error>) -> String {
    switch result {
    case let .success(value): String(describing: value)
    case let .failure(error): errorName(error)
    }
}

/// What an async call gives, as `resultText` names it.
public func outcomeText<Value>(_ call: () async throws -> Value) async -> String {
    do {
        return resultText(.success(try await call()))
    } catch {
        return resultText(Result<Value, any Error>.failure(error))
    }
}

/// A report's "seen" line for an outcome made by `brokenOutcome`: the call, what happened, and
/// the advice for the property it broke (`advice` by property id).
public func observedOutcome(_ call: Localized, _ outcome: String, advice: (String) -> Localized?) -> Localized {
    guard let (id, what) = readBrokenOutcome(outcome) else { return Localized("\(call.en): \(outcome)", ja: "\(call.ja): \(outcome)") }
    guard let more = advice(id) else { return Localized("\(call.en): \(what.en).", ja: "\(call.ja): \(what.ja)。") }
    return Localized("\(call.en): \(what.en). \(more.en)", ja: "\(call.ja): \(what.ja)。\(more.ja)")
}

/// What a report says when `call` never came back: who waited, and where, then `advice`.
public func neverCameBack(_ call: Localized, whoWaited who: Localized, advice: Localized) -> Localized {
    Localized("This call never came back: \(call.en). Nothing was left to run and nothing to wake the caller (where each task was last: \(who.en)). \(advice.en)",
              ja: "次の呼び出しが戻りませんでした: \(call.ja)。実行できるものも呼び出し元を起こすものも残っていません（各タスクが最後にいた場所: \(who.ja)）。\(advice.ja)")
}

/// The name checks give the task that calls the learner's code.
public let callerTask = Localized("caller", ja: "呼び出し元")

private func isDeadlock(_ schedule: ScheduleReport) -> Bool {
    if case .deadlock = schedule.outcome { return true }
    return false
}
