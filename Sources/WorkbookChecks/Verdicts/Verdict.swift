import WorkbookCore

/// What a learner is told about one exercise.
public struct Verdict: Sendable {
    public enum Status: String, Sendable, Codable {
        case done
        case failing
        case notStarted = "not-started"
    }

    public let exercise: String
    public let status: Status
    /// The property that failed first: a check property's id (`lost-update`), or one of the
    /// verdict's own: `data-race`, `crash`, `deadlock`, `forbidden-spelling`, `runner`.
    public let failedProperty: String?
    /// Ready to print: painted for the terminal, in the learner's language.
    public let report: String
    /// With `done`: the check's platform probes that could not run here (`PlatformProbe.id`),
    /// which the report names too. Empty where every part of the check ran.
    public let notRun: [String]

    public init(exercise: String, status: Status, failedProperty: String? = nil, report: String, notRun: [String] = []) {
        self.exercise = exercise
        self.status = status
        self.failedProperty = failedProperty
        self.report = report
        self.notRun = notRun
    }
}

/// Property ids a verdict can name that are not one check's own.
public enum VerdictProperty {
    /// ThreadSanitizer saw two unordered accesses, one a write.
    public static let dataRace = "data-race"
    /// Another ThreadSanitizer finding (a mutex unlocked twice, use after free, …).
    public static let sanitizer = "sanitizer"
    /// A race ThreadSanitizer reports where it cannot see the learner's synchronization (a
    /// barrier work item on Apple platforms): explained, then confirmed without ThreadSanitizer.
    public static let sanitizerLimitation = "sanitizer-limitation"
    /// The learner's code trapped or crashed.
    public static let crash = "crash"
    /// The runner was killed at its hard time limit.
    public static let timeLimit = "time-limit"
    /// The file uses a spelling the exercise forbids.
    public static let forbiddenSpelling = "forbidden-spelling"
    /// The runner itself could not run (not built, bad output).
    public static let runner = "runner"
}
