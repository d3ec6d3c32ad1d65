/// Who runs a step: structured, so the report layer can say it in the learner's language.
public indirect enum Entity: Sendable, Hashable, CustomStringConvertible {
    /// A task not named with `nameTask`, numbered in order of first appearance.
    case task(Int)
    /// A task named with `nameTask(_:)` (named so from its first step on).
    case named(String)
    /// An actor running the calls queued on it.
    case actor
    /// A sleep's timer firing; the owner is the task that slept.
    case timer(owner: Entity?)
    /// The runtime's job that ends a task's `Task.yield()`: when it runs, the task is ready again.
    case yieldEnds(owner: Entity?)
    /// A job isolated to the main actor.
    case onMainActor(Entity)

    /// English, for logs and tests: `task 1`, `A`, `actor`, `timer (A)`, `yield (A)`, `A on MainActor`.
    public var description: String {
        switch self {
        case let .task(number): "task \(number)"
        case let .named(name): BilingualLabel.english(name)
        case .actor: "actor"
        case let .timer(owner): owner.map { "timer (\($0))" } ?? "timer"
        case let .yieldEnds(owner): owner.map { "yield (\($0))" } ?? "yield"
        case let .onMainActor(entity): "\(entity) on MainActor"
        }
    }
}

/// A task name or checkpoint given in two languages is kept as one string, English and
/// Japanese joined by a unit separator; plain strings are the same in both.
public enum BilingualLabel {
    public static let separator: Character = "\u{1F}"

    public static func join(_ english: String, _ japanese: String) -> String { english + String(separator) + japanese }
    public static func english(_ label: String) -> String { String(label.prefix { $0 != separator }) }
    public static func japanese(_ label: String) -> String {
        guard let index = label.firstIndex(of: separator) else { return label }
        return String(label[label.index(after: index)...])
    }
}

/// How a schedule was chosen.
public indirect enum Search: Sendable, Equatable, CustomStringConvertible {
    case exhaustive
    case random(seed: UInt64)
    case pct(seed: UInt64, depth: Int)
    case replay
    case played
    /// A schedule that hit the step cap, re-run: its first half as it was, then fairly.
    case thenFair(Search)

    public var description: String {
        switch self {
        case .exhaustive: "exhaustive search"
        case let .random(seed): "random schedules, seed \(seed)"
        case let .pct(seed, depth): "PCT depth \(depth), seed \(seed)"
        case .replay: "replay"
        case .played: "your choices"
        case let .thenFair(search): "\(search), then fair"
        }
    }
}

/// A task left waiting when nothing could run, and the last checkpoint it passed.
public struct Waiting: Sendable, Equatable {
    public let who: Entity
    public let after: String?
}

/// What one step of a schedule did.
public struct ScheduleStep: Sendable, Equatable {
    /// 1-based.
    public let number: Int
    /// The index chosen in the ready list (what a replay token records).
    public let choice: Int
    /// The entities that were ready (and the timers that could fire), in ready-list order.
    public let readyEntities: [Entity]
    /// The entity that ran.
    public let who: Entity
    /// `ready` and `entity` in English (`Entity.description`).
    public var ready: [String] { readyEntities.map(\.description) }
    public var entity: String { who.description }
    /// Checkpoint labels passed during the step, in order.
    public let checkpoints: [String]
    /// What the default scheduler would pick: the task that ran last if it is ready again,
    /// else the one waiting longest.
    public let defaultChoice: Int

    /// True when this choice differs from what the default scheduler would pick.
    public var isDeviation: Bool { choice != defaultChoice }
}

public enum ScheduleOutcome: Sendable, Equatable {
    /// The body returned; the string is its outcome (for tallies).
    case completed(String)
    /// The body threw: an invariant broke. The string is the error's description.
    case failed(String)
    /// Nothing could run while the body was unfinished. Lists who waited, and where.
    case deadlock([String])
    /// The step cap was reached.
    case livelock(steps: Int)
    /// A replay stopped before this step (1-based) ran, as asked: the step that trapped.
    case stopped(beforeStep: Int)
    /// This step (1-based) never returned: the code it ran blocked the driver thread (a
    /// semaphore, a group's `wait()`, a lock) — in async code, a wait that should be an `await`.
    case blocked(step: Int)

    public var isFailure: Bool {
        switch self {
        case .completed, .stopped: false
        case .failed, .deadlock, .livelock, .blocked: true
        }
    }
}

extension ScheduleOutcome: CustomStringConvertible {
    /// One line in English, what a tally counts: `counter=1`, `failed: …`, `deadlock: …`.
    public var description: String {
        switch self {
        case let .completed(text): text
        case let .failed(message): "failed: \(message)"
        case let .deadlock(waiting): "deadlock: " + waiting.joined(separator: ", ")
        case let .livelock(steps): "livelock after \(steps) steps"
        case let .stopped(step): "stopped before step \(step)"
        case let .blocked(step): "blocked: step \(step) never returned"
        }
    }
}

/// One schedule, run to its end.
public struct ScheduleReport: Sendable {
    public let outcome: ScheduleOutcome
    let table: StepTable
    /// The steps, in order (named when first asked for).
    public var steps: [ScheduleStep] { table.steps }
    /// How many steps the schedule took.
    public var stepCount: Int { table.records.count }
    public let token: ReplayToken
    /// How many choices differed from the default scheduler ("preemptions").
    public var deviations: Int { table.deviations }
    /// Work that escaped control, e.g. a continuation resumed from a Dispatch thread.
    public let uncontrolled: [String]
    /// How the schedule was chosen.
    public let search: Search
    /// For a deadlock: who waited, and where.
    public let waiting: [Waiting]
    /// For a replay stopped before a step: who that step would have run.
    public var next: Entity? { nextKey.map(table.entity) }
    let nextKey: EntityKey?
    /// `search` in English.
    public var strategy: String { search.description }
}

/// An invariant the body checks; throw it (or call `explorerFail`) to fail the schedule.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Fails the current schedule with `message`.
public func explorerFail(_ message: String) throws -> Never { throw InvariantViolation(message) }
