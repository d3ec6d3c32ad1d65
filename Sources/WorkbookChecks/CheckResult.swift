import WorkbookCore
import WorkbookExplorer

/// A property an exercise answer must have, named the way a failure report names it.
public struct Property: Sendable, Hashable {
    /// Stable id, used by tests and the runner: `lost-update`, `write-overlap`, …
    public let id: String
    public let name: Localized
    /// The rule in one sentence.
    public let rule: Localized

    public init(id: String, name: Localized, rule: Localized) {
        self.id = id
        self.name = name
        self.rule = rule
    }

    /// Every check has it: the calls return within the deadline.
    public static let finishes = Property(
        id: "deadlock",
        name: Localized("finishes (no deadlock)", ja: "終わる（デッドロックしない）"),
        rule: Localized("Every call returns, and every callback comes, within the deadline.",
                        ja: "期限内に、すべての呼び出しが戻り、すべてのコールバックが呼ばれる。"))

    /// Every explored check has it: one schedule, run twice, runs the same way.
    public static let freshState = Property(
        id: "shared-state",
        name: Localized("each schedule starts from fresh state", ja: "各スケジュールは新しい状態から始まる"),
        rule: Localized("Nothing carries over from one schedule to the next: no `static let shared` actor, no global; state is made inside the code that runs, so the same schedule runs the same way.",
                        ja: "あるスケジュールから次のスケジュールへ何も持ち越さない。`static let shared` のアクターもグローバル変数も使わず、状態は実行されるコードの中で作るので、同じスケジュールは同じように実行される。"))
}

/// Why an answer failed: the property it broke, what was seen, and the evidence.
public struct CheckFailure: Error, Sendable {
    public let property: Property
    /// What happened, in a sentence or two.
    public let observed: Localized
    /// The part of the trace that shows it (may be empty; a schedule's steps are drawn from `schedule`).
    public let events: [Trace.Event]
    /// Outcome tally of a stress run or an exploration, if there was one.
    public let tally: OutcomeTally?
    /// For explored code: the failing schedule, with its replay token.
    public let schedule: ScheduleReport?
    /// For explored code: which of the check's explored cases it was (1-based, in the order they
    /// run), to replay it alone (`ExploredCases`).
    public let exploredCase: Int?

    public init(_ property: Property, observed: Localized, events: [Trace.Event] = [], tally: OutcomeTally? = nil,
                schedule: ScheduleReport? = nil, exploredCase: Int? = nil) {
        self.property = property
        self.observed = observed
        self.events = events  // for a schedule, the report draws its steps in the learner's language
        self.tally = tally
        self.schedule = schedule
        self.exploredCase = exploredCase
    }
}

public enum CheckResult: Sendable {
    /// Every property held; lists them.
    case passed([Property])
    case failed(CheckFailure)

    public var failure: CheckFailure? {
        if case let .failed(failure) = self { return failure }
        return nil
    }
}

/// Tuning for a check run. Learners get the defaults; checker tests shorten the deadline for
/// answers that are known to deadlock.
public struct CheckOptions: Sendable {
    /// How long to wait for a call or callback before calling it a deadlock.
    public var deadlockSeconds: Double

    public init(deadlockSeconds: Double = CheckOptions.standardDeadlockSeconds) {
        self.deadlockSeconds = deadlockSeconds
    }

    private static let standard = Locked(4.0)
    /// The learners' deadline: 4 s, generous for code slowed down by ThreadSanitizer on a busy
    /// machine. A runner confirming a deadlock without ThreadSanitizer is started with a shorter
    /// one (`--deadline`), since the same code runs several times faster there.
    public static var standardDeadlockSeconds: Double {
        get { standard.current }
        set { standard.withLock { $0 = newValue } }
    }
}

extension CheckFailure {
    /// A call or callback that did not come within the deadline.
    /// `call` names what did not finish: code as it is (`.verbatim("join()")`), or a phrase in
    /// both languages.
    static func deadlock(trace: Trace, options: CheckOptions, doing call: Localized) -> CheckFailure {
        let seconds = formatSeconds(options.deadlockSeconds)
        return CheckFailure(
            .finishes,
            observed: Localized(
                "\(call.en) did not finish within \(seconds.en): a deadlock (for example `sync` onto a queue that waits for this thread, a semaphore or group that is never signalled, a condition's `wait()` that no `signal()`/`broadcast()` ends, or a lock taken twice or never unlocked) or work that never ends.",
                ja: "\(call.ja) が \(seconds.ja)以内に終わりませんでした。デッドロック（たとえばこのスレッドを待っているキューへの `sync`、signal されないセマフォや leave されないグループ、`signal()`/`broadcast()` が来ない条件変数の `wait()`、二重に取ったロックや解放されないロック）か、終わらない処理です。"),
            events: traceTail(trace.events))
    }
}

/// A duration as the reports write it: "4 s" in English, "4 秒" in Japanese.
func formatSeconds(_ seconds: Double) -> Localized {
    let number = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
    return Localized("\(number) s", ja: "\(number) 秒")
}
