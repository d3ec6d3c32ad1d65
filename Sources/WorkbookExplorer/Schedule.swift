/// What one step of a schedule did.
public struct ScheduleStep: Sendable, Equatable {
    /// 1-based.
    public let number: Int
    /// The index chosen in the ready list (what a replay token records).
    public let choice: Int
    /// The entities that were ready, in ready-list order.
    public let ready: [String]
    /// The entity that ran: `task 1`, `task 2`, … in order of first appearance, or a name
    /// given with `nameTask(_:)`; `actor` for an actor running the jobs queued on it.
    public let entity: String
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

    public var isFailure: Bool {
        if case .completed = self { return false }
        return true
    }
}

/// One schedule, run to its end.
public struct ScheduleReport: Sendable {
    public let outcome: ScheduleOutcome
    public let steps: [ScheduleStep]
    public let token: ReplayToken
    /// How many choices differed from the default scheduler ("preemptions").
    public var deviations: Int { steps.filter(\.isDeviation).count }
    /// Work that escaped control, e.g. a continuation resumed from a Dispatch thread.
    public let uncontrolled: [String]
    /// What the strategy was, e.g. `exhaustive, bound 1` or `random, seed 7`.
    public let strategy: String
}

/// An invariant the body checks; throw it (or call `explorerFail`) to fail the schedule.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Fails the current schedule with `message`.
public func explorerFail(_ message: String) throws -> Never { throw InvariantViolation(message) }
