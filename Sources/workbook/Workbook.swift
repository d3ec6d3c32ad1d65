import Foundation
import WorkbookChecks
import WorkbookCore

/// Runs one `workbook` command and returns the exit status: 0 fine, 1 a check failing or the
/// build broken, 2 bad usage.
enum Workbook {
    static func main(_ arguments: [String]) -> Int32 {
        let environmentLanguage = Language.fromEnvironment()
        let options: WorkbookOptions
        do {
            options = try WorkbookOptions.parse(arguments)
        } catch {
            Console.error("workbook: " + error.message.text(environmentLanguage))
            Console.error(Localized("Run 'swift run workbook --help' for the commands.", ja: "コマンドの一覧は 'swift run workbook --help'。").text(environmentLanguage))
            return 2
        }
        let language = options.language ?? environmentLanguage
        var terminal = Terminal.detect()
        if options.noColor { terminal.usesColor = false }
        if options.wantsHelp {
            Console.line(WorkbookHelp.text(for: options.command == .help ? nil : options.command, language: language))
            return 0
        }
        let context: CommandContext
        do {
            let workspace = try Workspace.locate()
            context = CommandContext(workspace: workspace, options: options, terminal: terminal, language: language, checks: workspace.checksFingerprint())
        } catch {
            Console.error("workbook: " + error.message.text(language))
            return 2
        }
        do {
            switch options.command {
            case .status: return try StatusCommand.run(context)
            case .check: return try CheckCommand.run(context)
            case .watch: return try WatchCommand.run(context)
            case .hint: return try HintCommand.run(context)
            case .reset: return try ResetCommand.run(context)
            case .solution: return try SolutionCommand.run(context)
            case .progress: return try ProgressCommand.run(context)
            case .session: return try SessionCommand.run(context)
            case .help: return 0
            }
        } catch {
            Console.error("workbook: " + error.message.text(language))
            return 2
        }
    }
}

/// What every command gets: where it runs, what it was asked, how to speak.
struct CommandContext {
    let workspace: Workspace
    let options: WorkbookOptions
    let terminal: Terminal
    let language: Language
    /// `Workspace.checksFingerprint()`, read once per run.
    let checks: String

    func t(_ text: Localized) -> String { text.text(language) }

    var checking: Checking { Checking(workspace: workspace, terminal: terminal, language: language) }

    /// The exercise named by the command's operand.
    func entry() throws(UsageError) -> ExerciseCatalog.Entry {
        guard let id = options.operands.first else {
            throw UsageError(message: Localized("name an exercise, e.g. SafeCounter", ja: "演習を指定してください（例: SafeCounter）"))
        }
        return try workspace.entry(id).get()
    }

    /// Every exercise's status: from the state file where the learner's file is unchanged since
    /// its last check, else checked now (after a build). A build that fails leaves the cached
    /// ones and says so.
    func statuses(state: inout WorkbookState) -> (verdicts: [String: Verdict], buildFailure: String?) {
        var verdicts = cachedVerdicts(state)
        let stale = workspace.catalog.exercises.filter { verdicts[$0.id] == nil }
        guard !stale.isEmpty else { return (verdicts, nil) }
        Console.error(terminal.paint(t(Localized(
            "Checking \(stale.count) exercise(s) changed since their last check (swift build, then each check)…",
            ja: "前回のチェックから変わった演習 \(stale.count) 件をチェックしています（swift build のあと、1 件ずつ）…")), .dim))
        let built: Checking.Built
        do {
            built = try checking.buildRecordingFiles()
        } catch {
            // Each exercise that could not be checked keeps its last verdict, so the list stays
            // whole and "next" stays on the exercise being edited.
            for entry in stale {
                if let last = state.verdicts[entry.id] {
                    verdicts[entry.id] = Verdict(exercise: entry.id, status: last.status, failedProperty: last.property, report: "", notRun: last.notRun ?? [])
                }
            }
            return (verdicts, error.diagnostics)
        }
        do {
            for verdict in try checking.check(stale, built: built, state: &state, checks: checks) { verdicts[verdict.exercise] = verdict }
        } catch {
            return (verdicts, error.message.text(language))
        }
        return (verdicts, nil)
    }

    func summary(_ verdicts: [String: Verdict]) -> VerdictSummary {
        var summary = VerdictSummary()
        for verdict in verdicts.values { summary.record(verdict) }
        return summary
    }

    /// The verdicts that still hold: the learner's file and the checks as they were then.
    func cachedVerdicts(_ state: WorkbookState) -> [String: Verdict] {
        var verdicts: [String: Verdict] = [:]
        for entry in workspace.catalog.exercises {
            if let cached = state.verdict(for: entry, in: workspace, checks: checks) {
                verdicts[entry.id] = Verdict(exercise: entry.id, status: cached.status, failedProperty: cached.property, report: "", notRun: cached.notRun ?? [])
            }
        }
        return verdicts
    }
}

