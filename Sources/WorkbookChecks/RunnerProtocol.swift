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
    public static let doneExitCode: Int32 = 0
    public static let failingExitCode: Int32 = 1
    public static let usageExitCode: Int32 = 2
    /// Hard limit for one exercise run; the check's own deadlock deadline is shorter.
    public static let timeoutSeconds: Double = 15
}
