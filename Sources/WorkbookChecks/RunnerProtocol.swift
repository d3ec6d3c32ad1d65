import WorkbookCore

/// How `exercise-runner` tells `swift test` its verdict: the exit code, and a last line
/// `WORKBOOK-VERDICT <done|failing|not-started> [property-id]` on standard output.
public enum RunnerProtocol {
    public static let executableName = "exercise-runner"
    /// The same checks without ThreadSanitizer's runtime, for confirming a failure that is not a race.
    public static let plainExecutableName = "exercise-runner-plain"
    public static let variantExecutableName = "variant-runner"
    public static let verdictMarker = "WORKBOOK-VERDICT"
    /// A line the runner prints when it runs without ThreadSanitizer (a platform without it).
    public static let raceDetectorOffMarker = "WORKBOOK-RACE-DETECTOR off"
    /// `WORKBOOK-DOING <en>\t<ja>`: what the check is about to do to the answer that may make it
    /// crash (a wake-up with nothing in it). A crash report quotes the last one.
    public static let doingMarker = "WORKBOOK-DOING"
    /// Says, before a provocation, what it is: printed at once, so a crash cannot lose it.
    public static func doing(_ what: Localized) {
        Console.line("\(doingMarker) \(what.en.replacingOccurrences(of: "\t", with: " "))\t\(what.ja)")
    }
    public static let doneExitCode: Int32 = 0
    public static let failingExitCode: Int32 = 1
    public static let usageExitCode: Int32 = 2
    /// Hard limit for one exercise run; the check's own deadlock deadline is shorter.
    public static let timeoutSeconds: Double = 15
}
