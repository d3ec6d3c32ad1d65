import Foundation
import WorkbookCore
import WorkbookExplorer

/// One exercise in `exercise-runner`'s registration list: its id and its check, run on the
/// learner's type or on the reference solution.
public struct CheckRegistration: Sendable {
    public let id: String
    /// Every property the check can name (`--properties` lists them; the docs and hints must
    /// cover each one).
    public let properties: [Property]
    public let learner: @Sendable () -> CheckResult
    public let reference: @Sendable () -> CheckResult

    public init(_ id: String, properties: [Property], learner: @escaping @Sendable () -> CheckResult, reference: @escaping @Sendable () -> CheckResult) {
        self.id = id
        self.properties = properties
        self.learner = learner
        self.reference = reference
    }

}

/// One of the workbook's buggy variants, registered with the property its check must name.
/// `variant-runner` runs them the way `exercise-runner` runs a learner's answer.
public struct VariantRegistration: Sendable {
    /// Unique and stable: `SafeCounter.readThenWrite`.
    public let name: String
    public let exercise: String
    /// What is wrong with it, as a phrase: "an increment that reads and writes in two blocks".
    public let summary: String
    /// The property id the verdict must name (`lost-update`, `data-race`, …).
    public let breaks: String
    public let run: @Sendable () -> CheckResult

    public init(_ name: String, _ summary: String, breaks: String, run: @escaping @Sendable () -> CheckResult) {
        self.name = name
        self.exercise = String(name.prefix { $0 != "." })
        self.summary = summary
        self.breaks = breaks
        self.run = run
    }

    public init(_ name: String, _ summary: String, breaks property: Property, run: @escaping @Sendable () -> CheckResult) {
        self.init(name, summary, breaks: property.id, run: run)
    }

    /// `--list` prints one line per variant: name, exercise, property, summary, tab-separated.
    public var listLine: String { [name, exercise, breaks, summary].joined(separator: "\t") }
}

/// The body of `exercise-runner` and `variant-runner`: parse the arguments, run the named check
/// on a thread of its own while the main thread serves the main queue and run loop (an answer
/// may deliver its completion on `DispatchQueue.main`), print the report and the verdict line,
/// and exit with the verdict's code.
public enum RunnerMain {
    /// `exercise-runner`: each exercise on the learner's type, or the reference with `--reference`.
    public static func run(program: String, exercises: [CheckRegistration]) -> Never {
        run(program: program,
            listing: exercises.map(\.id),
            properties: exercises.map { ($0.id, $0.properties) },
            // A learner meets this through `replay Name C:TOKEN` in a chapter program, or the
            // `swift run exercise-runner …` a report prints: the exercises, as they know them.
            unknown: { name in
                Localized("no exercise named '\(name)' (`swift run workbook` lists the exercises)",
                          ja: "'\(name)' という名前の演習はありません（演習の一覧は `swift run workbook`）")
            },
            checks: Dictionary(uniqueKeysWithValues: exercises.map { registration in
                (registration.id, { @Sendable (reference: Bool) -> CheckResult? in reference ? registration.reference() : registration.learner() })
            }))
    }

    /// `variant-runner`: each buggy variant by name.
    public static func run(program: String, variants: [VariantRegistration]) -> Never {
        run(program: program,
            listing: variants.map(\.listLine),
            checks: Dictionary(uniqueKeysWithValues: variants.map { variant in
                (variant.name, { @Sendable (reference: Bool) -> CheckResult? in reference ? nil : variant.run() })
            }))
    }

    public static func run(program: String, listing: [String], properties: [(exercise: String, properties: [Property])] = [],
                           unknown: ((String) -> Localized)? = nil,
                           checks: [String: @Sendable (Bool) -> CheckResult?]) -> Never {
        RunnerReexec.ensureRunnerEnvironment()
        let options: RunnerOptions
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            options = try RunnerOptions.parse(arguments)
        } catch let error as RunnerOptions.UsageError {
            // `--lang` may come after the mistake: read it from the arguments as they are.
            let asked = arguments.firstIndex(of: "--lang").flatMap { arguments.indices.contains($0 + 1) ? Language(rawValue: arguments[$0 + 1]) : nil }
            Console.error("\(program): \(error.message.text(asked ?? Language.fromEnvironment()))")
            exit(RunnerProtocol.usageExitCode)
        } catch {
            Console.error("\(program): \(error)")
            exit(RunnerProtocol.usageExitCode)
        }
        if options.list {
            Console.line(listing.joined(separator: "\n"))
            exit(0)
        }
        if options.properties {
            Console.line(properties.map { $0.exercise + "\t" + $0.properties.map(\.id).joined(separator: ",") }.joined(separator: "\n"))
            exit(0)
        }
        if let language = options.propertiesMarkdown {
            Console.line(PropertyTables.markdown(properties, language: language))
            exit(0)
        }
        guard let name = options.exercise else {
            Console.error("usage: \(program) <name> [--reference] [--replay CASE:TOKEN] [--deadline SECONDS] [--color] [--unicode] [--width N] [--lang en|ja]; \(program) --list")
            exit(RunnerProtocol.usageExitCode)
        }
        guard let check = checks[name] else {
            let message = unknown?(name) ?? Localized("no check named '\(name)' (\(program) --list shows them)",
                                                      ja: "'\(name)' という名前のチェックはありません（\(program) --list で一覧）")
            Console.error("\(program): " + message.text(options.language))
            exit(RunnerProtocol.usageExitCode)
        }
        // Resolve TSan's entry points now, before any other thread exists: the first resolution
        // writes a plain global that later readers then see through thread creation.
        _ = RaceDetector.isActive
        if let seconds = options.deadlockSeconds { CheckOptions.standardDeadlockSeconds = seconds }
        AnotherThread.start()
        if let replay = options.replay { ExploredCases.replay(case: replay.number, token: replay.token) }
        let checkThread = Thread {
            guard let result = check(options.reference) else {
                Console.error("\(program): \(name) has no reference")
                exit(RunnerProtocol.usageExitCode)
            }
            if let replay = options.replay { exit(RunnerOutput.printReplay(result, exercise: name, asked: replay, options: options)) }
            if !RaceDetector.isActive { Console.line(RunnerProtocol.raceDetectorOffMarker) }
            if case let .failed(failure) = result {
                // An explored deadlock has already waited seconds for work from outside since the
                // last step ran: a race report begun then is under way by now.
                var exploredDeadlock = false
                if case .deadlock = failure.schedule?.outcome { exploredDeadlock = true }
                waitForSanitizerReport(grace: failure.property.id == Property.finishes.id && !exploredDeadlock ? 1.5 : 0.3)
            }
            exit(RunnerOutput.print(result, exercise: name, options: options))
        }
        checkThread.name = "check"
        checkThread.stackSize = 8 << 20
        checkThread.start()
        while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
    }
}

/// Before a failing verdict, gives a ThreadSanitizer report in progress the time to finish.
///
/// A race stops the racing thread while TSan restores stacks and symbolizes them (it starts
/// `llvm-symbolizer`, which took seconds on a loaded machine); meanwhile the check could time
/// out waiting for that thread and report a deadlock — seen: 1 run in 90. TSan ends the process
/// once the report is out, so waiting here costs nothing when it comes. The runner starts no
/// child processes of its own: a child now is TSan's symbolizer. A deadlock verdict waits
/// longer first (`grace`): on a loaded machine TSan had not yet started the symbolizer 300 ms
/// after a racing read had stopped its thread (1 run in 20 of `ReadersWriters.cachedCopy`).
func waitForSanitizerReport(grace: Double) {
    guard RaceDetector.isActive else { return }
    usleep(UInt32(grace * 1_000_000))
    let deadline = MonotonicClock.now() + 10_000_000_000
    while MonotonicClock.now() < deadline {
        var status: Int32 = 0
        // 0: a child exists and has not exited; -1 (ECHILD): no child at all.
        guard waitpid(-1, &status, WNOHANG) == 0 else { return }
        usleep(50_000)
    }
}

/// `exercise-runner`'s arguments.
public struct RunnerOptions: Sendable {
    public var exercise: String?
    public var list = false
    public var properties = false
    /// `--properties-markdown en|ja`: the tables docs/how-checks-work.md embeds.
    public var propertiesMarkdown: Language?
    public var reference = false
    /// `--replay CASE:TOKEN`: only that explored case, on that schedule (`ExploredCases`).
    public var replay: (number: Int, token: ReplayToken)?
    public var terminal = Terminal.plain
    public var language = Language.fromEnvironment()
    /// `--deadline SECONDS`: the checks' deadlock deadline instead of the standard one.
    public var deadlockSeconds: Double?

    public init() {}

    public struct UsageError: Error, CustomStringConvertible {
        /// In both languages when a learner may see it (`--replay`, through the chapter program).
        public let message: Localized
        public init(description: String) { message = .verbatim(description) }
        public init(_ message: Localized) { self.message = message }
        public var description: String { message.en }
    }

    public static func parse(_ arguments: [String]) throws -> RunnerOptions {
        var options = RunnerOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--list": options.list = true
            case "--properties": options.properties = true
            case "--properties-markdown":
                guard let text = rest.popFirst(), let value = Language(rawValue: text) else { throw UsageError(description: "--properties-markdown takes en or ja") }
                options.propertiesMarkdown = value
            case "--reference": options.reference = true
            case "--replay":
                guard let text = rest.popFirst() else { throw UsageError(description: "--replay needs CASE:TOKEN, as a failure report prints it (3:w1d:0x9)") }
                options.replay = try parseReplay(text)
            case "--color": options.terminal.usesColor = true
            case "--unicode": options.terminal.usesUnicode = true
            case "--width":
                guard let text = rest.popFirst(), let width = Int(text), width > 0 else { throw UsageError(description: "--width needs a number") }
                options.terminal.width = width
            case "--lang":
                guard let text = rest.popFirst(), let value = Language(rawValue: text) else { throw UsageError(description: "--lang takes en or ja") }
                options.language = value
            case "--deadline":
                guard let text = rest.popFirst(), let seconds = Double(text), seconds > 0, seconds.isFinite else { throw UsageError(description: "--deadline needs a number of seconds") }
                options.deadlockSeconds = seconds
            default:
                guard !argument.hasPrefix("-"), options.exercise == nil else { throw UsageError(description: "unknown argument \(argument)") }
                options.exercise = argument
            }
        }
        return options
    }

    /// `3:w1d:0x9` → case 3, that token.
    static func parseReplay(_ text: String) throws -> (number: Int, token: ReplayToken) {
        guard let colon = text.firstIndex(of: ":"), let number = Int(text[..<colon]), number >= 1 else {
            throw UsageError(Localized(
                "'\(text)' is not CASE:TOKEN — a case number, a colon, a replay token, as a failure report prints it (3:w1d:0x9)",
                ja: "'\(text)' は ケース:トークン の形ではありません。失敗レポートに表示されるとおり、ケース番号、コロン、リプレイトークンです（3:w1d:0x9）"))
        }
        let token = String(text[text.index(after: colon)...])
        switch ReplayToken.parse(token) {
        case let .success(parsed): return (number, parsed)
        case let .failure(error): throw UsageError(error.explained(token))
        }
    }
}

/// What `exercise-runner` prints for a result, and its exit code.
public enum RunnerOutput {
    /// After `--replay`: the case's failure as a check reports it, or that it holds on that
    /// schedule now. Not a verdict: the other cases did not run.
    static func printReplay(_ result: CheckResult, exercise: String, asked: (number: Int, token: ReplayToken), options: RunnerOptions) -> Int32 {
        func t(_ text: Localized) -> String { text.text(options.language) }
        guard let replayed = ExploredCases.replayed else {
            Console.error(t(Localized(
                "\(exercise) has no explored case \(asked.number) (this run reached \(ExploredCases.count)). Copy CASE:TOKEN from the latest failure report.",
                ja: "\(exercise) に探索ケース \(asked.number) はありません（この実行で到達したのは \(ExploredCases.count) 個）。最新の失敗レポートから ケース:トークン をコピーしてください。")))
            return RunnerProtocol.usageExitCode
        }
        if let failure = replayed.failure {
            Console.line(Report.failed(exercise, failure, terminal: options.terminal, language: options.language))
            let note = t(Localized("(Case \(replayed.number) alone, on the schedule asked for; `swift test --filter \(exercise)` runs the whole check.)",
                                   ja: "（ケース \(replayed.number) だけを、指定したスケジュールで実行しました。チェック全体は `swift test --filter \(exercise)` で実行します。）"))
            Console.line(wrap(note, prefix: "  ", width: options.terminal.width).joined(separator: "\n"))
            return RunnerProtocol.failingExitCode
        }
        let outcome = Localized(bilingual: replayed.outcome)
        let holds = t(Localized(
            "✓ \(exercise), case \(replayed.number), schedule \(replayed.token): it holds now (\(outcome.en)). Only this schedule ran: `swift test --filter \(exercise)` runs the whole check.",
            ja: "✓ \(exercise)、ケース \(replayed.number)、スケジュール \(replayed.token): いまは成り立ちます（\(outcome.ja)）。実行したのはこのスケジュールだけです。チェック全体は `swift test --filter \(exercise)` で実行します。"))
        Console.line(options.terminal.paint(wrap(holds, width: options.terminal.width).joined(separator: "\n"), .green))
        return RunnerProtocol.doneExitCode
    }

    public static func print(_ result: CheckResult, exercise: String, options: RunnerOptions) -> Int32 {
        switch result {
        case let .passed(properties):
            let notRun = PlatformProbes.notRunnable(exercise)
            Console.line(Report.passed(exercise, properties: properties, notRun: notRun, terminal: options.terminal, language: options.language))
            if let searched = ExploredCases.searchSummary {
                Console.line(options.terminal.paint(wrap(searched.text(options.language), prefix: "  ", width: options.terminal.width).joined(separator: "\n"), .dim))
            }
            for probe in notRun { Console.line("\(PlatformProbes.notRunMarker) \(probe.id)") }
            Console.line("\(RunnerProtocol.verdictMarker) done")
            return RunnerProtocol.doneExitCode
        case let .failed(failure):
            Console.line(Report.failed(exercise, failure, terminal: options.terminal, language: options.language))
            Console.line("\(RunnerProtocol.verdictMarker) failing \(failure.property.id)")
            return RunnerProtocol.failingExitCode
        }
    }
}

/// The property tables of docs/how-checks-work.md (and its Japanese twin), made from the checks
/// themselves so the docs cannot drift: `exercise-runner --properties-markdown en`.
public enum PropertyTables {
    public static let begin = "<!-- property tables: generated by `exercise-runner --properties-markdown`; do not edit by hand -->"
    public static let end = "<!-- end of property tables -->"

    public static func markdown(_ exercises: [(exercise: String, properties: [Property])], language: Language) -> String {
        func t(_ text: Localized) -> String { text.text(language).replacingOccurrences(of: "|", with: "\\|") }
        let dataRace = Property(
            id: VerdictProperty.dataRace,
            name: Localized("no data race", ja: "データ競合がない"),
            rule: Localized("ThreadSanitizer sees no two accesses to the same memory, one a write, that nothing orders.",
                            ja: "同じメモリへの順序付けのない 2 つのアクセス（一方は書き込み）を、ThreadSanitizer が 1 つも検出しない。"))
        var lines = [begin]
        for (exercise, properties) in exercises {
            lines.append("")
            lines.append("#### \(exercise)")
            lines.append(Localized("| id | property | rule |", ja: "| id | 性質 | ルール |").text(language))
            lines.append("|---|---|---|")
            for property in [dataRace] + properties {
                lines.append("| `\(property.id)` | \(t(property.name)) | \(t(property.rule)) |")
            }
        }
        lines += probeTable(exercises.map(\.exercise), language: language)
        lines.append("")
        lines.append(end)
        return lines.joined(separator: "\n")
    }

    /// What each exercise's check does on Linux only (`PlatformProbes`), and what it needs.
    static func probeTable(_ exercises: [String], language: Language) -> [String] {
        func t(_ text: Localized) -> String { text.text(language).replacingOccurrences(of: "|", with: "\\|") }
        var lines = ["", Localized("#### Checked on Linux only", ja: "#### Linux でのみ検査するもの").text(language)]
        lines.append(t(Localized(
            "On Apple platforms these probes cannot run, and a \"done\" verdict says so, naming them. Everything else in the tables above (ThreadSanitizer included, where Xcode provides it) runs on both.",
            ja: "Apple プラットフォームではこれらの検査を実行できず、「完了」の判定にはそのことと検査の名前が添えられます。上の表のそれ以外（Xcode に ThreadSanitizer があればデータ競合も）は両方で検査します。")))
        lines.append("")
        lines.append(Localized("| exercise | probe | what it provokes or sees | needs (Linux only) |", ja: "| 演習 | 検査 | 起こす・観測するもの | 必要なもの（Linux のみ） |").text(language))
        lines.append("|---|---|---|---|")
        for exercise in exercises {
            let probes = PlatformProbes.of(exercise).filter { !$0.needs.allSatisfy(\.existsOnApplePlatforms) }
            if probes.isEmpty {
                lines.append("| \(exercise) | — | \(t(Localized("every part runs on both", ja: "すべて両方で実行"))) | — |")
            }
            for probe in probes {
                lines.append("| \(exercise) | `\(probe.id)` | \(t(probe.what)) | \(probe.needs.map { t($0.summary) }.joined(separator: "; ")) |")
            }
        }
        return lines
    }
}
