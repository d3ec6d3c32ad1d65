import WorkbookCore
import WorkbookExplorer

/// Checks a property of async code under the explorer: every schedule with up to two
/// preemptions, fewest first, then PCT schedules for what is left of the time budget.
///
/// `body` runs one schedule and returns its outcome (e.g. `balance=2`); it throws
/// `InvariantViolation` — or returns an outcome `classify` calls forbidden — when the property
/// breaks. The failure carries the schedule with the fewest preemptions found, its replay token
/// and the outcome tally.
public func checkExplored(
    _ property: Property,
    observed describe: @escaping @Sendable (String) -> Localized,
    budget: Explorer.Budget = Explorer.Budget(maxSchedules: 5_000, maxSeconds: 1.5),
    classify: @escaping @Sendable (String) -> OutcomeTally.Verdict = { _ in .acceptable },
    _ body: @escaping Explorer.Body
) -> CheckFailure? {
    let judged: Explorer.Body = {
        let outcome = try await body()
        if classify(outcome) == .forbidden { throw InvariantViolation(outcome) }
        return outcome
    }
    var tally = OutcomeTally(classify: classify)
    func failure(_ result: Explorer.Result) -> CheckFailure? {
        for (outcome, count) in result.outcomes { for _ in 0..<count { tally.record(outcome) } }
        guard let schedule = result.failure else { return nil }
        let what: String
        switch schedule.outcome {
        case let .failed(message): what = message
        default: what = schedule.outcomeText
        }
        tally.record(what)
        return CheckFailure(property.id == Property.finishes.id || !isDeadlock(schedule) ? property : .finishes,
                            observed: describe(what), tally: tally, schedule: schedule)
    }
    let exhaustive = Explorer.explore(.exhaustive(maxPreemptions: 2), budget: budget, judged)
    if let found = failure(exhaustive) { return found }
    if exhaustive.exhausted { return nil }
    var rest = budget
    rest.maxSeconds = max(0.1, budget.maxSeconds - exhaustive.seconds)
    rest.maxSchedules = max(1, budget.maxSchedules - exhaustive.schedulesRun)
    return failure(Explorer.explore(.pct(seed: 1, depth: 3), budget: rest, judged))
}

private func isDeadlock(_ schedule: ScheduleReport) -> Bool {
    if case .deadlock = schedule.outcome { return true }
    return false
}
