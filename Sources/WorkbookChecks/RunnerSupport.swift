import Foundation
import WorkbookCore

/// One exercise in `exercise-runner`'s registration list: its id and its check, run on the
/// learner's type or on the reference solution.
public struct CheckRegistration: Sendable {
    public let id: String
    public let learner: @Sendable () -> CheckResult
    public let reference: @Sendable () -> CheckResult

    public init(_ id: String, learner: @escaping @Sendable () -> CheckResult, reference: @escaping @Sendable () -> CheckResult) {
        self.id = id
        self.learner = learner
        self.reference = reference
    }
}

/// `exercise-runner`'s arguments.
public struct RunnerOptions: Sendable {
    public var exercise: String?
    public var list = false
    public var reference = false
    public var terminal = Terminal.plain
    public var language = Language.fromEnvironment()

    public init() {}

    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ arguments: [String]) throws -> RunnerOptions {
        var options = RunnerOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--list": options.list = true
            case "--reference": options.reference = true
            case "--color": options.terminal.usesColor = true
            case "--unicode": options.terminal.usesUnicode = true
            case "--width":
                guard let text = rest.popFirst(), let width = Int(text), width > 0 else { throw UsageError(description: "--width needs a number") }
                options.terminal.width = width
            case "--lang":
                guard let text = rest.popFirst(), let value = Language(rawValue: text) else { throw UsageError(description: "--lang takes en or ja") }
                options.language = value
            default:
                guard !argument.hasPrefix("-"), options.exercise == nil else { throw UsageError(description: "unknown argument \(argument)") }
                options.exercise = argument
            }
        }
        return options
    }
}

/// What `exercise-runner` prints for a result, and its exit code.
public enum RunnerOutput {
    public static func print(_ result: CheckResult, exercise: String, options: RunnerOptions) -> Int32 {
        switch result {
        case let .passed(properties):
            Console.line(Report.passed(exercise, properties: properties, terminal: options.terminal, language: options.language))
            Console.line("\(RunnerProtocol.verdictMarker) done")
            return RunnerProtocol.doneExitCode
        case let .failed(failure):
            Console.line(Report.failed(exercise, failure, terminal: options.terminal, language: options.language))
            Console.line("\(RunnerProtocol.verdictMarker) failing \(failure.property.id)")
            return RunnerProtocol.failingExitCode
        }
    }
}
