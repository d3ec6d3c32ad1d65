import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A runner started by hand (`swift run exercise-runner … --replay …`) has neither the runners'
/// `TSAN_OPTIONS` nor `SWIFT_BACKTRACE=enable=no`: the Swift backtracer and ThreadSanitizer then
/// both take a crash, and the process dies in TSan's own CHECK instead of printing the runtime's
/// message. Both are read at start-up, so the runner starts itself again with the environment
/// the verdicts give it (`ExerciseChecker.runnerEnvironment`). Started by a verdict, it has them
/// already and goes on.
enum RunnerReexec {
    static let marker = "WORKBOOK_RUNNER_ENVIRONMENT"

    static func ensureRunnerEnvironment() {
        let current = ProcessInfo.processInfo.environment
        guard current[marker] == nil, current["SWIFT_BACKTRACE"] == nil,
              let path = Bundle.main.executablePath else { return }
        var environment = ExerciseChecker.runnerEnvironment()
        environment[marker] = "1"
        let arguments = [path] + CommandLine.arguments.dropFirst()
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(path, argv, envp)
        // execve returned: it failed; go on as we are.
    }
}
