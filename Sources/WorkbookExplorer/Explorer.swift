import Foundation

/// Runs async code with all its tasks one job at a time on one driver thread, choosing which
/// ready job runs next — so an interleaving that breaks the code can be found on purpose,
/// reported as numbered steps, and replayed exactly from a token.
///
/// Controlled: structured child tasks (`async let`, task groups), default actors, `Task {}` and
/// `Task.detached` created inside the body, continuations resumed inside the body,
/// `Task.yield()`, and sleeping on an `ExplorerClock`. Not controlled (reported as
/// "uncontrolled"): work resumed from other threads, such as a Dispatch callback or the main
/// actor.
public enum Explorer {
    public enum Strategy: Sendable, CustomStringConvertible {
        /// Every schedule with at most this many deviations from the default scheduler, fewest
        /// first (0, then 1, then 2 …), stopping at the first failure.
        case exhaustive(maxPreemptions: Int)
        /// Uniformly random choices, seeded.
        case random(seed: UInt64)
        /// Probabilistic concurrency testing: random task priorities with `depth − 1` priority
        /// change points; finds a depth-d bug among n tasks and k steps with probability at least
        /// 1/(n·k^(d−1)) per schedule.
        case pct(seed: UInt64, depth: Int)
        /// What a check should use: every schedule with 0, 1, 2, … preemptions for as long as
        /// half the budget lasts (or until none is left), then random schedules for a quarter,
        /// then PCT (depth 3) — bugs that need many preemptions are found by the last two.
        case deepening(seed: UInt64)

        public var description: String {
            switch self {
            case let .exhaustive(bound): "exhaustive, at most \(bound) preemptions"
            case let .random(seed): "random, seed \(seed)"
            case let .pct(seed, depth): "PCT depth \(depth), seed \(seed)"
            case let .deepening(seed): "deepening search, then random and PCT, seed \(seed)"
            }
        }
    }

    public struct Budget: Sendable {
        public var maxSchedules: Int
        public var maxSeconds: Double
        public var maxStepsPerSchedule: Int
        /// How long to wait for work from other threads before calling it a deadlock.
        public var foreignWaitSeconds: Double
        /// How long one step may run before it is reported as blocked (its thread waits for
        /// something only another step could give).
        public var blockedStepSeconds: Double = 2
        /// Runs each task's jobs on a thread of its own (still one at a time, as chosen), so
        /// ThreadSanitizer can see two tasks touch the same memory with nothing ordering them.
        /// Slower: for a few schedules after a search, in a process with TSan.
        public var tasksOnOwnThreads = false
        /// How far off a timer may be and still fire while other work is ready: a step of real
        /// work takes time, so a task that sleeps 1 ms may wake while another is mid-way (two
        /// increments started 1 ms apart overlap). A timer further off waits until nothing is
        /// ready — work is never assumed to take so long that a timeout beats it.
        public var workQuantum: Duration = .milliseconds(2)
        /// Every schedule with at most this many preemptions runs before the time limit counts
        /// (up to `maxSchedules`, and 5 s or ten times `maxSeconds` at most): a verdict on a bug that
        /// needs no more does not depend on how loaded the machine is. -1: none guaranteed.
        public var guaranteedBound = -1

        /// A short search that still runs every schedule with at most `preemptions` preemptions,
        /// however loaded the machine (`guaranteedBound`): the budget of most explored checks.
        public static func guaranteeing(preemptions: Int, maxSchedules: Int = 2_000, maxSeconds: Double = 0.05,
                                        foreignWaitSeconds: Double = 2) -> Budget {
            var budget = Budget(maxSchedules: maxSchedules, maxSeconds: maxSeconds, foreignWaitSeconds: foreignWaitSeconds)
            budget.guaranteedBound = preemptions
            return budget
        }

        /// `foreignWaitSeconds`: a callback from a Dispatch queue or a thread may take its time
        /// (a slow network fake: half a second); a deadlock is reported after this long.
        public init(maxSchedules: Int = 20_000, maxSeconds: Double = 1.5, maxStepsPerSchedule: Int = 10_000, foreignWaitSeconds: Double = 2) {
            self.maxSchedules = maxSchedules
            self.maxSeconds = maxSeconds
            self.maxStepsPerSchedule = maxStepsPerSchedule
            self.foreignWaitSeconds = foreignWaitSeconds
        }
    }

    public struct Result: Sendable {
        public let schedulesRun: Int
        /// The first failing schedule (with the fewest preemptions, for `exhaustive`).
        public let failure: ScheduleReport?
        /// For `exhaustive`: every schedule within the bound ran.
        public let exhausted: Bool
        /// How often each completed outcome happened, in order of first appearance.
        public let outcomes: [(outcome: String, count: Int)]
        public let uncontrolled: [String]
        public let seconds: Double
        /// How deep the search went.
        public let depth: Depth
        /// Set when one schedule, run twice, ran differently: state shared across schedules (a
        /// `static let shared` actor, a global) or work outside the explorer's control. Every
        /// verdict of such a search is in doubt; build fresh state inside the body.
        public let sharedState: String?
        /// With `sharedState`: the outcome of the schedule the first time and the second.
        public let sharedStateRuns: [String]
        /// With `sharedState`: the first step the two runs took differently, and who ran in it
        /// each time (nil when they took the same steps and only the outcome differed).
        public var sharedStateDivergence: Divergence? = nil
    }

    /// How deep a search went: what a clean result stands on.
    /// Where two runs of one schedule parted: the step (1-based), and who ran in it each time.
    public struct Divergence: Sendable, Equatable {
        public let step: Int
        public let first: String
        public let second: String
    }

    public struct Depth: Sendable, Equatable {
        /// Every schedule with at most this many preemptions ran (nil: not even bound 0).
        public let completeBound: Int?
        /// Every schedule there is ran.
        public let everySchedule: Bool
        public let randomSchedules: Int
        public let pctSchedules: Int
    }

    public typealias Body = @Sendable () async throws -> String

    /// Explores `body` with `strategy` until a schedule fails or the budget runs out.
    public static func explore(_ strategy: Strategy, budget: Budget = Budget(), _ body: @escaping Body) -> Result {
        onDriverThread(budget: budget, { exploreHere(strategy, budget: budget, body) }, blocked: { report in
            Result(schedulesRun: 1, failure: report, exhausted: false, outcomes: [], uncontrolled: report.uncontrolled, seconds: budget.blockedStepSeconds,
                   depth: Depth(completeBound: nil, everySchedule: false, randomSchedules: 0, pctSchedules: 0), sharedState: nil, sharedStateRuns: [])
        })
    }

    /// Runs exactly the schedule a token describes — or, with `stoppingBefore`, its steps up to
    /// that one (1-based) and not that one: a schedule that trapped (its token from the
    /// `ScheduleJournal`), replayed up to the step that trapped. The report's `next` says who
    /// that step would have run. The jobs left are abandoned, so do that in a process that
    /// ends soon after.
    public static func replay(_ token: ReplayToken, stoppingBefore step: Int? = nil, budget: Budget = Budget(),
                              _ body: @escaping Body) -> ScheduleReport {
        onDriverThread(budget: budget, {
            var chooser = PrefixChooser(prefix: token.choices)
            return runOnce(&chooser, search: .replay, budget: budget, stopBefore: step, body)
        }, blocked: { $0 })
    }

    /// What an interactive chooser sees at a scheduling point.
    public struct ChoicePoint: Sendable {
        public let step: Int
        /// Each ready entity: whether it has run yet, and the last checkpoint it passed (where it
        /// will continue).
        public let ready: [(who: Entity, hasRun: Bool, lastCheckpoint: String?)]
        public let defaultChoice: Int
        /// The steps so far.
        public let history: [ScheduleStep]
    }

    /// Runs one schedule, asking `choose` at every scheduling point with more than one ready job.
    /// Returning nil lets the default scheduler decide from then on.
    public static func play(budget: Budget = Budget(), choose: @escaping @Sendable (ChoicePoint) -> Int?, _ body: @escaping Body) -> ScheduleReport {
        onDriverThread(budget: budget, {
            var chooser = InteractiveChooser(choose: choose)
            return runOnce(&chooser, search: .played, budget: budget, body)
        }, blocked: { $0 })
    }

    // MARK: From async code

    // The same three, for async callers: the wait — for the process's one run at a time, then
    // for the run itself — happens on a thread of its own, not on one of the cooperative pool's
    // (one per core). In a test run, tests that each held a pool thread while they waited for
    // their turn to explore starved every other task in the process for tens of seconds.

    /// Explores `body` with `strategy`, waited for off the cooperative pool.
    public static func explore(_ strategy: Strategy, budget: Budget = Budget(), _ body: @escaping Body) async -> Result {
        await offThePool { explore(strategy, budget: budget, body) }
    }

    /// Replays the schedule `token` describes, waited for off the cooperative pool.
    public static func replay(_ token: ReplayToken, stoppingBefore step: Int? = nil, budget: Budget = Budget(),
                              _ body: @escaping Body) async -> ScheduleReport {
        await offThePool { replay(token, stoppingBefore: step, budget: budget, body) }
    }

    /// Plays one schedule with `choose`, waited for off the cooperative pool.
    public static func play(budget: Budget = Budget(), choose: @escaping @Sendable (ChoicePoint) -> Int?, _ body: @escaping Body) async -> ScheduleReport {
        await offThePool { play(budget: budget, choose: choose, body) }
    }

    private static func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "explorer caller"
            thread.start()
        }
    }

    // MARK: Internals

    private static let oneRunAtATime = NSLock()

    /// A step that never returned keeps its driver thread — and the explorer — for good: every
    /// later exploration in the process reports that step again at once.
    private static let blockedForGood = QuietLocked<ScheduleReport?>(nil)

    /// Explorations run on a thread of their own: never on a Swift concurrency thread, whose
    /// pool the explored code must not depend on. A step that runs longer than
    /// `budget.blockedStepSeconds` is reported through `blocked` (the thread is abandoned).
    static func onDriverThread<R: Sendable>(budget: Budget, _ work: @escaping @Sendable () -> R,
                                            blocked: (ScheduleReport) -> R) -> R {
        if let report = blockedForGood.current { return blocked(report) }
        let finished = onDriverThread(work, watching: budget.blockedStepSeconds)
        switch finished {
        case let .finished(result): return result
        case let .blocked(report):
            blockedForGood.withLock { $0 = report }
            return blocked(report)
        }
    }

    private enum DriverEnd<R> {
        case finished(R)
        case blocked(ScheduleReport)
    }

    private static func onDriverThread<R: Sendable>(_ work: @escaping @Sendable () -> R, watching stepSeconds: Double) -> DriverEnd<R> {
        let result = QuietLocked<R?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            oneRunAtATime.lock()
            RuntimeHooks.install()  // once per exploration, not per schedule
            let value = work()
            result.withLock { $0 = value }
            RuntimeHooks.uninstall()
            oneRunAtATime.unlock()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.name = "explorer-driver"
        thread.start()
        while done.wait(timeout: .now() + 0.1) == .timedOut {
            if let report = DriverThread.activeRun?.blockedReport(after: stepSeconds) { return .blocked(report) }
        }
        return .finished(result.current!)
    }

    static func runOnce<C: Chooser>(_ chooser: inout C, search: Search, budget: Budget, stopBefore: Int? = nil,
                                    _ body: @escaping Body) -> ScheduleReport {
        precondition(RuntimeHooks.available, "the Swift runtime does not offer swift_task_enqueueGlobal_hook")
        let run = ScheduleRun(stepCap: budget.maxStepsPerSchedule, foreignWaitSeconds: budget.foreignWaitSeconds,
                              tasksOnOwnThreads: budget.tasksOnOwnThreads, workQuantum: budget.workQuantum)
        DriverThread.drive(run)
        defer { DriverThread.drive(nil) }
        let root: @Sendable () async -> Void = {
            do {
                run.finishRoot(.completed(try await body()))
            } catch {
                run.finishRoot(.failed(String(describing: error)))
            }
        }
        Task(executorPreference: run, operation: root)
        return run.drive(&chooser, search: search, stopBefore: stopBefore)
    }

    private static func exploreHere(_ strategy: Strategy, budget: Budget, _ body: @escaping Body) -> Result {
        let start = Date()
        var outcomes: [(outcome: String, count: Int)] = []
        var uncontrolled: Set<String> = []
        var schedules = 0
        var completedBound: Int?
        var randomSchedules = 0, pctSchedules = 0
        func outOfBudget() -> Bool { schedules >= budget.maxSchedules || Date().timeIntervalSince(start) >= budget.maxSeconds }
        var first: ScheduleReport?
        func result(_ failure: ScheduleReport?, exhausted: Bool) -> Result {
            // The same schedule must give the same run: replay the failure (or the first
            // schedule) once more. If it differs, state outlived its schedule (a static, a
            // singleton actor) or work escaped the explorer, and every verdict is in doubt.
            var sharedState: String?
            var sharedStateRuns: [String] = []
            var divergence: Divergence?
            if let probe = failure ?? first {
                var chooser = PrefixChooser(prefix: probe.token.choices)
                // A deadlock has already waited the full `foreignWaitSeconds` for work from
                // outside and none came: the replay need not wait as long to end the same way.
                // (Work that came in it after a shorter wait would not have changed the verdict,
                // which the first run reached after the full wait.)
                var replayBudget = budget
                if case .deadlock = probe.outcome { replayBudget.foreignWaitSeconds = min(budget.foreignWaitSeconds, 0.25) }
                let again = runOnce(&chooser, search: .replay, budget: replayBudget, body)
                // Work from outside that came in the replay explains a difference as well as
                // work that came in the search (a cancellation handler that was stuck on a lock
                // and finished late, say).
                uncontrolled.formUnion(again.uncontrolled)
                if again.outcome != probe.outcome || again.steps.map(\.who) != probe.steps.map(\.who) {
                    let cause = uncontrolled.isEmpty ? "" : "; work ran outside the explorer's control (\(uncontrolled.sorted().joined(separator: "; "))), which can do that too"
                    sharedState = "the same schedule ran again ended differently (\"\(probe.outcome)\" the first time, \"\(again.outcome)\" the second)\(cause)"
                    sharedStateRuns = [probe.outcome.description, again.outcome.description]
                    let firstSteps = probe.steps.map { "\($0.who)" }, secondSteps = again.steps.map { "\($0.who)" }
                    if let index = zip(firstSteps, secondSteps).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset
                        ?? (firstSteps.count != secondSteps.count ? min(firstSteps.count, secondSteps.count) : nil) {
                        divergence = Divergence(step: index + 1, first: firstSteps.indices.contains(index) ? firstSteps[index] : "nothing (it had ended)",
                                                second: secondSteps.indices.contains(index) ? secondSteps[index] : "nothing (it had ended)")
                    }
                }
            }
            var result = Result(schedulesRun: schedules, failure: failure, exhausted: exhausted, outcomes: outcomes,
                   uncontrolled: uncontrolled.sorted(), seconds: Date().timeIntervalSince(start),
                   depth: Depth(completeBound: completedBound, everySchedule: exhausted && failure == nil,
                                randomSchedules: randomSchedules, pctSchedules: pctSchedules),
                   sharedState: sharedState, sharedStateRuns: sharedStateRuns)
            result.sharedStateDivergence = divergence
            return result
        }
        /// Records a report; returns it if it failed. A schedule that hit the step cap is run
        /// again — its first half as it was, then fairly — and counts as a livelock only if
        /// that fails too: the chooser may have starved a task that would have ended it.
        func record(_ report: ScheduleReport) -> ScheduleReport? {
            schedules += 1
            if first == nil { first = report }
            uncontrolled.formUnion(report.uncontrolled)
            var report = report
            if case .livelock = report.outcome {
                var fair = FairAfterPrefixChooser(prefix: Array(report.token.choices.prefix(report.stepCount / 2)))
                report = runOnce(&fair, search: .thenFair(report.search), budget: budget, body)
                uncontrolled.formUnion(report.uncontrolled)
            }
            if case let .completed(outcome) = report.outcome {
                if let index = outcomes.firstIndex(where: { $0.outcome == outcome }) { outcomes[index].count += 1 } else { outcomes.append((outcome, 1)) }
                return nil
            }
            return report
        }

        /// Every schedule with at most `maxBound` preemptions, fewest first, until `stop()`.
        /// Returns a failure, and whether every schedule (of any bound) ran.
        func exhaustive(maxBound: Int, stop: () -> Bool) -> (failure: ScheduleReport?, exhausted: Bool) {
            var level: [[Int]] = [[]]
            for bound in 0...max(0, maxBound) {
                var next: [[Int]] = []
                for prefix in level {
                    if stop() { return (nil, false) }
                    var chooser = PrefixChooser(prefix: prefix)
                    let report = runOnce(&chooser, search: .exhaustive, budget: budget, body)
                    if let failure = record(report) { return (failure, false) }
                    guard bound < maxBound else { continue }
                    let records = report.table.records
                    for index in records.indices where index >= prefix.count {
                        let taken = report.token.choices[..<index]
                        for alternative in records[index].candidates.indices where alternative != records[index].defaultChoice {
                            next.append(taken + [alternative])
                        }
                    }
                }
                completedBound = bound
                if bound < maxBound && next.isEmpty { return (nil, true) }
                level = next
            }
            return (nil, false)
        }
        func random(seed: UInt64, stop: () -> Bool) -> ScheduleReport? {
            var generator = SplitMix64(seed: seed)
            while !stop() {
                var chooser = RandomChooser(generator: SplitMix64(seed: generator.next()))
                randomSchedules += 1
                if let failure = record(runOnce(&chooser, search: .random(seed: seed), budget: budget, body)) { return failure }
            }
            return nil
        }
        func pct(seed: UInt64, depth: Int, stop: () -> Bool) -> ScheduleReport? {
            var generator = SplitMix64(seed: seed)
            var estimatedSteps = 16
            while !stop() {
                var chooser = PCTChooser(generator: SplitMix64(seed: generator.next()), depth: depth, estimatedSteps: estimatedSteps)
                let report = runOnce(&chooser, search: .pct(seed: seed, depth: depth), budget: budget, body)
                estimatedSteps = max(estimatedSteps, report.stepCount)
                pctSchedules += 1
                if let failure = record(report) { return failure }
            }
            return nil
        }
        /// Stops at `share` of the budget (schedules and time), or at its end.
        func spent(_ share: Double) -> () -> Bool {
            { outOfBudget() || Double(schedules) >= share * Double(budget.maxSchedules)
                || Date().timeIntervalSince(start) >= share * budget.maxSeconds }
        }

        switch strategy {
        case let .exhaustive(maxPreemptions):
            let (failure, exhausted) = exhaustive(maxBound: maxPreemptions, stop: outOfBudget)
            return result(failure, exhausted: failure == nil && (exhausted || completedBound == maxPreemptions))
        case let .random(seed):
            return result(random(seed: seed, stop: outOfBudget), exhausted: false)
        case let .pct(seed, depth):
            return result(pct(seed: seed, depth: depth, stop: outOfBudget), exhausted: false)
        case let .deepening(seed):
            let halfway = spent(0.5)
            let (failure, exhausted) = exhaustive(maxBound: .max) {
                guard (completedBound ?? -1) < budget.guaranteedBound else { return halfway() }
                return schedules >= budget.maxSchedules || Date().timeIntervalSince(start) >= max(10 * budget.maxSeconds, 5)
            }
            if failure != nil || exhausted { return result(failure, exhausted: exhausted) }
            if let failure = random(seed: seed, stop: spent(0.75)) { return result(failure, exhausted: false) }
            return result(pct(seed: seed, depth: 3, stop: outOfBudget), exhausted: false)
        }
    }
}

/// Explorer state behind a lock that ThreadSanitizer does not see: code on the explorer's lanes
/// (`TaskLanes`) calls in here, and must be neither ordered by the lock nor seen touching the
/// explorer's memory (in a build where the explorer is instrumented too). `locked` reads even the
/// `lock` property inside `RaceDetector.quietly`.
protocol QuietlyLocked: AnyObject {
    associatedtype Lock: NSLocking
    var lock: Lock { get }
}

extension QuietlyLocked {
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        try RaceDetector.quietly {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }
}

/// A value guarded by a lock that ThreadSanitizer does not see (see `QuietlyLocked`): the
/// explorer's own shared state, and a fake's or a check's bookkeeping inside code the learner's
/// tasks run.
///
/// The racy way for a check: two of the learner's tasks each record into a `Locked` box, and
/// the box's lock orders them for TSan — a race between them is hidden. `QuietLocked` records
/// the same, and the tasks stay as unordered as the learner left them.
public final class QuietLocked<Value>: QuietlyLocked, @unchecked Sendable {
    let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try locked { try body(&value) }
    }

    /// A copy of the current value.
    public var current: Value { withLock { $0 } }
}
