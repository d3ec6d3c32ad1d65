import Foundation
import WorkbookCore
import WorkbookExplorer

// What the chapter's scenarios share: exploring a body in every schedule within a bound, showing
// the schedule that breaks a rule, and running a body once in virtual time.

/// What an exploration of one body found: every outcome, judged, and the first forbidden
/// schedule (fewest preemptions first), if any.
struct ExploredCase: Sendable {
    let tally: OutcomeTally
    let schedules: Int
    /// Every schedule within the bound ran.
    let exhausted: Bool
    let bound: Int
    /// The first schedule with a forbidden outcome: the same steps as the game's, so its token
    /// replays in `replay N`.
    let forbidden: ScheduleReport?
    let uncontrolled: [String]
    /// The search stopped at a schedule that failed (a deadlock, say): the tally has only what ran
    /// before it.
    let stoppedAtFailure: Bool

    /// The outcomes seen, sorted: what the tests compare.
    var outcomes: [String] { tally.outcomes.map { BilingualLabel.english($0.outcome) }.sorted() }
}

/// Explores `body` in every schedule with at most `bound` preemptions (all of them, whatever the
/// machine's load: `guaranteedBound`), on a thread of its own.
func explore(bound: Int = 2, classify: @escaping @Sendable (String) -> OutcomeTally.Verdict,
             _ body: @escaping Explorer.Body) async -> ExploredCase {
    await onDedicatedThread {
        var budget = Explorer.Budget(maxSchedules: 20_000, maxSeconds: 5, foreignWaitSeconds: 0)   // nothing here waits on another thread
        budget.guaranteedBound = bound
        let all = Explorer.explore(.exhaustive(maxPreemptions: bound), budget: budget, body)
        var tally = OutcomeTally(classify: classify)
        for (outcome, count) in all.outcomes {
            for _ in 0..<count { tally.record(outcome) }
        }
        var forbidden = all.failure
        if let failure = all.failure {
            tally.record(BilingualLabel.join(failure.outcomeText(.en), failure.outcomeText(.ja)), forbidden: true)
        } else if tally.forbiddenCount > 0 {
            // Again, stopping at the first forbidden outcome: the search's order gives the
            // schedule with the fewest preemptions.
            forbidden = Explorer.explore(.exhaustive(maxPreemptions: bound), budget: budget) {
                let outcome = try await body()
                if classify(outcome) == .forbidden { throw InvariantViolation(outcome) }
                return outcome
            }.failure
        }
        return ExploredCase(tally: tally, schedules: all.schedulesRun, exhausted: all.exhausted, bound: bound,
                            forbidden: forbidden, uncontrolled: all.uncontrolled, stoppedAtFailure: all.failure != nil)
    }
}

/// Runs `body` once under the explorer with the default choices: a deterministic run in
/// virtual time, on a thread of its own.
func inVirtualTime(_ body: @escaping Explorer.Body) async -> ScheduleReport {
    await onDedicatedThread {
        Explorer.play(budget: .init(maxSchedules: 1, maxSeconds: 10, foreignWaitSeconds: 0), choose: { $0.defaultChoice }, body)
    }
}

/// A task's name in both languages, for `nameNextTasks`.
func taskName(_ en: String, _ ja: String) -> String { BilingualLabel.join(en, ja) }

extension ScenarioContext {
    /// A heading for one explored case, its tally, and — if it found one — the forbidden
    /// schedule step by step, ending with the commands that play and replay it.
    func show(_ explored: ExploredCase, _ heading: Localized, game: Int? = nil, key: String) {
        let reach = explored.stoppedAtFailure
            ? Localized("stopped at the first failing schedule, the \(ordinal(explored.schedules))",
                        ja: "最初に失敗したスケジュール（\(explored.schedules) 個目）で停止")
            : explored.exhausted
            ? Localized("every schedule within \(explored.bound) preemptions, \(explored.schedules) schedules",
                        ja: "プリエンプション \(explored.bound) 回以内のすべてのスケジュール、\(explored.schedules) 個")
            : Localized("\(explored.schedules) schedules", ja: "スケジュール \(explored.schedules) 個")
        say(Localized("\(heading.en) (explored: \(reach.en)):", ja: "\(heading.ja)（探索: \(reach.ja)）:"))
        show(explored.tally.render(terminal: terminal, language: language))
        note("\(key) outcomes", explored.outcomes.joined(separator: " | "))
        note("\(key) forbidden", String(explored.tally.forbiddenCount))
        note("\(key) exhausted", String(explored.exhausted))
        if !explored.uncontrolled.isEmpty { note("\(key) uncontrolled", explored.uncontrolled.joined(separator: "; ")) }
        guard let schedule = explored.forbidden else {
            say(Localized("   No schedule breaks the rule.", ja: "   規則を破るスケジュールはありません。"))
            return
        }
        note("\(key) token", schedule.token.description)
        say(Localized("   A schedule that breaks it (\(schedule.deviations) preemption(s)):",
                      ja: "   規則を破るスケジュール（プリエンプション \(schedule.deviations) 回）:"))
        showSteps(of: schedule)
        if let game {
            show("     play \(game) · replay \(game) \(schedule.token)")
        }
    }

    /// The steps of a schedule that passed a checkpoint, numbered, wrapped to the terminal, and
    /// recorded on the trace with one lane per task.
    func showSteps(of schedule: ScheduleReport) {
        for step in schedule.steps where !step.checkpoints.isEmpty {
            let who = step.who.localized
            let en = stepText(who: who.en, passed: step.checkpoints(in: .en))
            let ja = stepText(who: who.ja, passed: step.checkpoints(in: .ja))
            say(Localized("     \(step.number). \(en)", ja: "     \(step.number). \(ja)"))
            trace.record(Localized(step.checkpoints(in: .en).joined(separator: "; "), ja: step.checkpoints(in: .ja).joined(separator: "／")),
                         lane: who)
        }
    }
}

/// The result of an async call, as a value.
func result<Value>(of body: @Sendable () async throws -> Value) async -> Result<Value, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`.
func ordinal(_ number: Int) -> String {
    let suffix = (11...13).contains(number % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][number % 10] ?? "th"
    return "\(number)\(suffix)"
}
