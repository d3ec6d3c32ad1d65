import ExerciseKit
import Foundation
import WorkbookExplorer
import WorkbookCore

/// Checks one exercise the way a learner's `swift test` does: the forbidden-spelling scan, then
/// the check in `exercise-runner` (a child process, so a crash or a deadlock in the learner's
/// code becomes a verdict), under ThreadSanitizer, and turns what came back into a `Verdict`.
///
/// The test suites and any other front end (a `workbook check` command) share this one copy of
/// the verdict logic.
public struct ExerciseChecker: Sendable {
    public let packageRoot: URL
    public let catalog: ExerciseCatalog
    public let runner: URL
    public var terminal: Terminal
    public var language: Language
    /// Check the reference solution instead of the learner's file (the workbook's own tests).
    public var reference = false
    /// The deadlock deadline of the run that confirms a deadlock without ThreadSanitizer.
    static let confirmationDeadlockSeconds = 2.0

    /// ThreadSanitizer's libdispatch support drops the barrier flag of a `DispatchWorkItem(flags:
    /// .barrier)` submitted with `queue.async(execute:)`, and on Apple platforms the runners cannot
    /// put it back (docs/platforms.md): a race inside such a block is explained, not blamed on the
    /// learner. True there; the workbook's tests set it to read Apple reports on Linux.
    public var barrierWorkItemsDropped: Bool = {
        #if canImport(Darwin)
        return true
        #else
        return PlatformMechanism.switchedOff
        #endif
    }()

    /// Runs the runners with every Linux-only mechanism off (`WORKBOOK_LINUX_MECHANISMS=off`) and
    /// reads their reports as on Apple platforms: the workbook's own proof, on Linux, of what a Mac
    /// learner is told.
    public var asOnApplePlatforms = false {
        didSet { if asOnApplePlatforms { barrierWorkItemsDropped = true } }
    }

    /// Runs a failure that is not a race again without ThreadSanitizer's runtime, to confirm it.
    /// The workbook's tests of the reports' wording turn it off: they read the report, which the
    /// second run only repeats, and it doubles their time.
    public var confirmsWithoutSanitizer = true

    public init(packageRoot: URL, catalog: ExerciseCatalog, runner: URL, terminal: Terminal, language: Language) {
        self.packageRoot = packageRoot
        self.catalog = catalog
        self.runner = runner
        self.terminal = terminal
        self.language = language
    }

    public func check(_ exercise: String) -> Verdict {
        guard let entry = catalog.entry(exercise) else {
            return fail(exercise, VerdictProperty.runner, reason: Localized(
                "exercises/exercises.json has no exercise '\(exercise)'.",
                ja: "exercises/exercises.json に演習 '\(exercise)' がありません。"), details: [], entry: nil)
        }
        let file = reference ? entry.solutionFile : entry.file
        var arguments = [exercise]
        if reference { arguments.append("--reference") }
        let learnerFolder = reference ? "exercises/Solutions/" : "exercises/Exercises/"
        // Layer 1: spellings the exercise forbids (race-check silencers, unchecked continuations).
        if let source = try? String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8) {
            let found = forbiddenSpellings(entry.forbids, in: source)
            if !found.isEmpty {
                // A stub may hold one (07-actors/BankAccountActor starts as the racy
                // `@unchecked Sendable` class to fix): while it still reaches `todo()`, it is not started.
                if codeLines(source).contains(where: { $0.contains("todo(") }) {
                    let verdict = run(arguments, exercise: exercise, entry: entry, file: file, learnerFolder: learnerFolder)
                    if verdict.status == .notStarted { return verdict }
                }
                return fail(exercise, VerdictProperty.forbiddenSpelling, reason: forbiddenReason(found.map(\.spelling)),
                    details: found.map { "\(file):\($0.line): \($0.spelling)" }, entry: entry)
            }
        }
        return run(arguments, exercise: exercise, entry: entry, file: file, learnerFolder: learnerFolder)
    }

    /// Checks one of the workbook's buggy variants (`variant-runner`, the same path as a
    /// learner's answer): the verdict must name the property the variant was written to break.
    public func checkVariant(_ name: String, exercise: String) -> Verdict {
        guard let entry = catalog.entry(exercise) else {
            return fail(name, VerdictProperty.runner, reason: Localized("no exercise '\(exercise)'", ja: "演習 '\(exercise)' がありません"), details: [], entry: nil)
        }
        return run([name], exercise: name, entry: entry, file: entry.file, learnerFolder: "Tests/CheckerVariants/")
    }

    private func run(_ head: [String], exercise: String, entry: ExerciseCatalog.Entry, file: String, learnerFolder: String) -> Verdict {
        var arguments = head + ["--lang", language.rawValue, "--width", String(terminal.width)]
        if terminal.usesColor { arguments.append("--color") }
        if terminal.usesUnicode { arguments.append("--unicode") }
        // Where an explored check keeps the schedule in progress, so a trap in it is reported
        // with its schedule (see ScheduleJournal).
        let journal = FileManager.default.temporaryDirectory
            .appendingPathComponent("workbook-schedule-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        var environment = Self.runnerEnvironment()
        environment[ScheduleJournal.environmentKey] = journal
        if asOnApplePlatforms { environment["WORKBOOK_LINUX_MECHANISMS"] = "off" }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess(executable: runner, arguments: arguments, environment: environment)
                .run(timeoutSeconds: RunnerProtocol.timeoutSeconds)
        } catch {
            return fail(exercise, VerdictProperty.runner, reason: Localized(
                "could not start \(runner.path): \(error)", ja: "\(runner.path) を起動できませんでした: \(error)"), details: [], entry: entry)
        }
        let underSanitizer = verdict(exercise, entry: entry, file: file, outcome: outcome, learnerFolder: learnerFolder, journal: journal)
        // A race is final. Any other failure is confirmed without TSan's runtime: TSan changes
        // how some GCD calls behave (a barrier carried by a block is dropped), so a correct
        // answer can fail under it — so is a race explained as that (`sanitizerLimitation`).
        // A deadlock is confirmed with a shorter deadline: without TSan the same code runs
        // several times faster, and the learner has already waited the full one.
        let deadlocked = underSanitizer.failedProperty == Property.finishes.id
        let confirming = deadlocked ? arguments + ["--deadline", String(Self.confirmationDeadlockSeconds)] : arguments
        guard underSanitizer.status == .failing, underSanitizer.failedProperty != VerdictProperty.dataRace,
              underSanitizer.failedProperty != VerdictProperty.sanitizer, confirmsWithoutSanitizer, let plainRunner,
              let plain = try? ChildProcess(executable: plainRunner, arguments: confirming, environment: environment)
                .run(timeoutSeconds: RunnerProtocol.timeoutSeconds)
        else { return underSanitizer }
        let confirmed = verdict(exercise, entry: entry, file: file, outcome: plain, learnerFolder: learnerFolder, raceDetectorExpected: false,
                                journal: journal)
        guard confirmed.status == .done else {
            // A crash both times: TSan's report has the crashing thread's frames and the trap's
            // name (libdispatch's `__DISPATCH_WAIT_FOR_QUEUE__`, say); without TSan (and with the
            // backtracer off) a trap leaves only its signal. Keep the telling one.
            if confirmed.failedProperty == VerdictProperty.crash && underSanitizer.failedProperty == VerdictProperty.crash {
                return underSanitizer
            }
            // A deadlock both times: the first report names the standard deadline.
            if deadlocked && confirmed.failedProperty == Property.finishes.id { return underSanitizer }
            return confirmed
        }
        let why = underSanitizer.failedProperty == VerdictProperty.sanitizerLimitation
            ? Localized("it reported a race this platform cannot judge", ja: "この環境では判定できない競合が報告されました")
            : Localized("ThreadSanitizer changes how some GCD calls behave", ja: "ThreadSanitizer は一部の GCD の呼び出しの振る舞いを変えます")
        let note = terminal.paint(t(Localized(
            "  (Under ThreadSanitizer this answer failed `\(underSanitizer.failedProperty ?? "?")`, and without it, it passed: \(why.en) — see docs/platforms.md. Counted as done.)",
            ja: "  （ThreadSanitizer 下ではこの解答は `\(underSanitizer.failedProperty ?? "?")` で失敗し、なしでは成功しました。\(why.ja)（docs/platforms.md）。完了として扱います。）")), .dim)
        return Verdict(exercise: exercise, status: .done, report: confirmed.report + "\n" + note, notRun: confirmed.notRun)
    }

    /// A crash or a race inside an explored schedule: the case, the step it happened in and the
    /// schedule's replay token, from the journal the runner kept (nil for any other verdict).
    func scheduleLine(_ exercise: String, _ property: String, journal: String) -> String? {
        guard property == VerdictProperty.crash || property == VerdictProperty.dataRace,
              let contents = ScheduleJournal.contents(path: journal), let token = contents.token else { return nil }
        let title = contents.caseTitle.map { Localized(bilingual: $0) }
        let number = contents.caseNumber
        let steps = token.choices.count
        // "`presentAll([A, B, C])` (case 3)": what the case runs, as far as the check said.
        let ran: Localized = switch (title, number) {
        case let (title?, number?): Localized("“\(title.en)” (case \(number))", ja: "「\(title.ja)」（ケース \(number)）")
        case let (title?, nil): Localized("“\(title.en)”", ja: "「\(title.ja)」")
        case let (nil, number?): Localized("case \(number)", ja: "ケース \(number)")
        case (nil, nil): Localized("a check", ja: "チェック")
        }
        let crashed = property == VerdictProperty.crash
        var text = crashed
            ? Localized("  It crashed while the explorer ran \(ran.en): in step \(steps) of the schedule with replay token \(token).",
                        ja: "  リプレイトークン \(token) のスケジュールのステップ \(steps) でクラッシュしました。エクスプローラが実行していたのは\(ran.ja)。")
            : Localized("  It happened while the explorer ran \(ran.en) with each task on a thread of its own, so that ThreadSanitizer could see which of them touched what: in step \(steps) of the schedule with replay token \(token).",
                        ja: "  リプレイトークン \(token) のスケジュールのステップ \(steps) で起きました。エクスプローラが実行していたのは\(ran.ja)。どのタスクが何に触れたかを ThreadSanitizer が見られるよう、各タスクをそれぞれ専用のスレッドで動かしていました。")
        // A crash replays (and crashes again, with the runtime's message); a race needs the
        // threads of the race lane, which a replay does not use.
        if crashed, let number {
            let again = Report.replayInstruction(exercise, case: number, token: token)
            text = Localized("\(text.en) \(again.en)", ja: text.ja + again.ja)
        }
        return terminal.paint(t(text), .yellow)
    }

    /// `exercise-runner-plain` (or `variant-runner-plain`) beside the runner, if it was built.
    var plainRunner: URL? {
        let candidate = runner.deletingLastPathComponent().appendingPathComponent(runner.lastPathComponent + "-plain")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    /// Maps the runner's exit and output to a verdict. ThreadSanitizer's findings come first:
    /// a race is the bug even when the check's own properties happened to hold.
    func verdict(_ exercise: String, entry: ExerciseCatalog.Entry, file: String, outcome: ChildProcess.Outcome,
                 learnerFolder: String = "exercises/Exercises/", raceDetectorExpected: Bool = true, journal: String? = nil) -> Verdict {
        let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let report = lines.filter { !$0.hasPrefix(RunnerProtocol.verdictMarker) && !$0.hasPrefix(NotStarted.marker)
            && !$0.hasPrefix(RunnerProtocol.doingMarker + " ")
            && !$0.hasPrefix(RunnerProtocol.raceDetectorOffMarker) && !$0.hasPrefix(PlatformProbes.notRunMarker + " ") }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let marker = lines.last { $0.hasPrefix(RunnerProtocol.verdictMarker) }?.split(separator: " ").map(String.init) ?? []

        // Apple platforms' frames name a file by its bare name: the learner's are those under the folder.
        let learnerFiles = outcome.standardError.contains("ThreadSanitizer")
            ? LearnerFiles.under(learnerFolder, packageRoot: packageRoot, first: file) : LearnerFiles([file])
        if let sanitizer = SanitizerReport.first(in: outcome.standardError, learnerFolder: learnerFolder, learnerFiles: learnerFiles) {
            let (property, reason, details) = describe(sanitizer, exercise: exercise)
            return fail(exercise, property, reason: reason, details: details, entry: entry, journal: journal)
        }
        // A trap or crash that TSan caught: "==1==ERROR: ThreadSanitizer: ILL on unknown address …".
        if let range = outcome.standardError.range(of: #"ERROR: ThreadSanitizer: [A-Z]+"#, options: .regularExpression) {
            let kind = outcome.standardError[range].split(separator: " ").last.map(String.init) ?? "?"
            let signal = ["ILL": SIGILL, "SEGV": SIGSEGV, "BUS": SIGBUS, "ABRT": SIGABRT, "TRAP": SIGTRAP, "FPE": SIGFPE][kind]
            let name = signal.map { describeSignal($0) } ?? Localized.verbatim("SIG\(kind)")
            return fail(exercise, VerdictProperty.crash, reason: Localized(
                "your code crashed: \(name.en).", ja: "コードがクラッシュしました: \(name.ja)。"),
                details: runtimeMessages(outcome.standardError, language: language, learnerFile: file, learnerFiles: learnerFiles)
                    + resumingPlaces(outcome.standardError, file) + checkWasDoing(lines), entry: entry, journal: journal)
        }
        switch outcome.termination {
        case .exited(NotStarted.exitCode):
            let location = lines.first { $0.hasPrefix(NotStarted.marker) }
                .map { String($0.dropFirst(NotStarted.marker.count + 1)) } ?? file
            return Verdict(exercise: exercise, status: .notStarted, report: terminal.paint(t(Localized(
                "◻ \(exercise) — not started (todo() at \(location))",
                ja: "◻ \(exercise) — 未着手（todo() が \(location) に残っています）")), .dim))
        case .exited(RunnerProtocol.doneExitCode) where marker.count >= 2 && marker[1] == "done":
            let detectorOff = raceDetectorExpected && lines.contains(RunnerProtocol.raceDetectorOffMarker)
            let notRun = lines.filter { $0.hasPrefix(PlatformProbes.notRunMarker + " ") }.map { String($0.dropFirst(PlatformProbes.notRunMarker.count + 1)) }
            return Verdict(exercise: exercise, status: .done, report: report + (detectorOff ? "\n" + raceDetectorNote() : ""), notRun: notRun)
        case .exited(RunnerProtocol.failingExitCode) where marker.count >= 3:
            let property = marker[2]
            let waits = property == Property.finishes.id ? waitingPlaces(file)
                : property == AsyncOperationCheck.announcesUnlocked.id ? announcingPlaces(file) : []
            return Verdict(exercise: exercise, status: .failing, failedProperty: property,
                           report: ([report] + runtimeWarnings(outcome.standardError) + waits + [hintLines(entry, property: property)]).joined(separator: "\n"))
        case let .exited(code):
            return fail(exercise, VerdictProperty.crash, reason: Localized(
                "the check ended with exit code \(code) before giving a verdict.",
                ja: "チェックが判定を出す前に終了コード \(code) で終わりました。"),
                details: runtimeMessages(outcome.standardError, language: language, learnerFile: file, learnerFiles: learnerFiles) + lines.suffix(20), entry: entry, journal: journal)
        case let .signalled(signal):
            return fail(exercise, VerdictProperty.crash, reason: Localized(
                "your code crashed: \(describeSignal(signal).en).", ja: "コードがクラッシュしました: \(describeSignal(signal).ja)。"),
                details: runtimeMessages(outcome.standardError, language: language, learnerFile: file, learnerFiles: learnerFiles)
                    + resumingPlaces(outcome.standardError, file) + checkWasDoing(lines), entry: entry, journal: journal)
        case let .timedOut(seconds):
            return fail(exercise, VerdictProperty.timeLimit, reason: Localized(
                "the check did not finish within \(Int(seconds)) s and was stopped: something blocks forever (a deadlock) or loops, outside the calls the check guards.",
                ja: "チェックが \(Int(seconds)) 秒以内に終わらなかったため、打ち切りました。チェックが見張る呼び出しの外で、何かが永久に待っている（デッドロック）かループしています。"),
                details: lines.suffix(20) + waitingPlaces(file), entry: entry)
        }
    }

    /// What the Swift runtime said without stopping the program — a continuation dropped
    /// without being resumed — while the check ran: the runtime's own words, once each.
    func runtimeWarnings(_ standardError: String) -> [String] {
        let lines = continuationMisuseLines(standardError)
        guard !lines.isEmpty else { return [] }
        return [terminal.paint(t(Localized("  The Swift runtime said, while the check ran:", ja: "  チェックの実行中に Swift ランタイムが出したメッセージ:")), .yellow)]
            + lines.prefix(3).map { "    " + $0 }
    }

    /// Every place in the learner's file that can wait — a deadlock is one of them waiting for
    /// ever. Read from the source (comments and strings ignored), so it works on every platform.
    func waitingPlaces(_ file: String) -> [String] {
        places(in: file, matching: #"\.(sync|wait|lock|join|waitUntilFinished|waitUntilAllOperationsAreFinished|addOperations)\b|\b(Thread\.sleep|usleep|sleep)\("#,
               head: Localized(
                "  Where your code waits (a deadlock is one of these waiting for ever; the other cause is a loop that never ends):",
                ja: "  あなたのコードが待つ場所（デッドロックなら、このどれかが永久に待っています。もう一つの原因は終わらないループです）:"))
    }

    /// The last thing the check said it was doing to the answer before the crash, if it said one.
    func checkWasDoing(_ standardOutput: [String]) -> [String] {
        guard let line = standardOutput.last(where: { $0.hasPrefix(RunnerProtocol.doingMarker + " ") }) else { return [] }
        let parts = line.dropFirst(RunnerProtocol.doingMarker.count + 1).split(separator: "\t", maxSplits: 1).map(String.init)
        let what = Localized(parts.first ?? "", ja: parts.count > 1 ? parts[1] : parts.first ?? "")
        return [t(Localized("  It crashed after the check had \(what.en).", ja: "  クラッシュの直前に、チェックは\(what.ja)。"))]
    }

    /// After the runtime's "tried to resume its continuation more than once": every place in the
    /// learner's file that resumes — the crash's frames show the second resume only; the first
    /// already returned.
    func resumingPlaces(_ standardError: String, _ file: String) -> [String] {
        guard standardError.contains("more than once") else { return [] }
        return places(in: file, matching: #"\.resume\b"#, head: Localized(
            "  Where your code resumes (the frames above show the second resume; the first is another of these, run earlier for the same continuation):",
            ja: "  あなたのコードが再開する場所（上のフレームは 2 回目の再開です。1 回目は、同じ継続に対して先に実行された、このどれかです）:"))
    }

    /// Where the learner's file takes and releases its locks and announces changes — the order
    /// that `lock-across-announcement` is about.
    func announcingPlaces(_ file: String) -> [String] {
        places(in: file, matching: #"\.(lock|unlock|withLock|sync)\b|\b(willChangeValue|didChangeValue)\("#,
               head: Localized(
                "  Where your code locks, unlocks and announces (each didChangeValue must come after the unlock):",
                ja: "  あなたのコードがロック・アンロック・通知をする場所（didChangeValue はどれもアンロックの後に来る必要があります）:"))
    }

    /// The lines of the learner's file whose code (comments and strings ignored) matches
    /// `pattern`, under `head`; nothing when none does.
    private func places(in file: String, matching pattern: String, head: Localized) -> [String] {
        guard let lines = sourceLines(file) else { return [] }
        let code = codeLines(lines.joined(separator: "\n"))
        var found: [String] = []
        for (index, line) in code.enumerated() where line.range(of: pattern, options: .regularExpression) != nil {
            found.append("    \(file):\(index + 1)  \(lines[index].trimmingCharacters(in: .whitespaces))")
        }
        guard !found.isEmpty else { return [] }
        return [t(head)] + found.prefix(12)
    }

    // MARK: Building the text

    private func t(_ text: Localized) -> String { text.text(language) }

    private func fail(_ exercise: String, _ property: String, reason: Localized, details: [String], entry: ExerciseCatalog.Entry?,
                      journal: String? = nil) -> Verdict {
        var text = [terminal.paint(t(Localized("✗ \(exercise) — failing: ", ja: "✗ \(exercise) — 失敗: ")) + t(reason), .red)]
        text += details.map { "  " + $0 }
        if let journal, let line = scheduleLine(exercise, property, journal: journal) { text.append(line) }
        if let entry { text.append(hintLines(entry, property: property)) }
        return Verdict(exercise: exercise, status: .failing, failedProperty: property, report: text.joined(separator: "\n"))
    }

    /// The hint written for the property that failed, and where the others are. With no hint for
    /// that property (a crash, explained by the runtime's message; a deadlock the exercise has no
    /// hint for), only where the others are: the first layer's hint would be a guess — "add a
    /// queue" said to an answer that has one and waits on it.
    func hintLines(_ entry: ExerciseCatalog.Entry, property: String) -> String {
        let more = terminal.paint(t(Localized("  More hints: exercises/exercises.json", ja: "  ほかのヒント: exercises/exercises.json")), .dim)
        guard let hint = entry.hints(after: property).first, hint.properties.contains(property) else { return more }
        return terminal.paint(t(Localized("  Hint: ", ja: "  ヒント: ")) + t(hint.localized), .yellow) + "\n" + more
    }

    /// Said with every "done" where the runner had no ThreadSanitizer, so a pass never hides
    /// that data races went unchecked.
    private func raceDetectorNote() -> String {
        terminal.paint(t(Localized(
            "  Note: ThreadSanitizer is not available here, so data races were not checked — only the check's own properties.",
            ja: "  注意: この環境では ThreadSanitizer が使えないため、データ競合は検査していません（チェック自身の性質のみ）。")), .yellow)
    }

    /// A ThreadSanitizer finding in the learner's words: both places, their source lines, and
    /// the variable they share when the two lines name one.
    func describe(_ report: SanitizerReport, exercise: String = "") -> (property: String, reason: Localized, details: [String]) {
        // The variable both lines name, else the one the raced-on object was made for.
        let made = report.allocation.flatMap { place in place.line.flatMap { assignedVariable(place.file, line: $0) }.map { (place, $0) } }
        let variable = sharedVariable(report.accesses.compactMap(\.place)) ?? made?.1
        // Lines first — the accesses TSan gave a line, then the others, a function's before a
        // closure's — shown in TSan's order.
        var lines: [Int: (line: Int, exact: Bool)] = [:]
        var placed: [(function: String, line: Int)] = []
        for (index, access) in report.accesses.enumerated() {
            guard let place = access.place, let line = place.line else { continue }
            lines[index] = (line, true)
            placed.append((place.function, line))
        }
        for (index, access) in report.accesses.enumerated().sorted(by: { !$0.1.isClosure && $1.1.isClosure }) where lines[index] == nil {
            guard let place = access.place else { continue }
            if let same = placed.first(where: { $0.function == place.function }) {
                // The function another access stands at: likeliest that same statement, run by
                // two threads.
                lines[index] = (same.line, false)
            } else {
                // TSan may give no line for a closure's frame; the function's body line that names
                // the shared variable is the best stand-in, marked "near". A closure's access is
                // not its enclosing function's own: look past the line that one stands at.
                var after = made.flatMap { $0.0.file == place.file ? $0.0.line : nil }
                if access.isClosure {
                    let enclosing = String(place.function.dropFirst("closure in ".count))
                    if let taken = placed.filter({ $0.function == enclosing }).map(\.line).max() {
                        after = max(after ?? 0, taken + 1)
                    }
                }
                if let near = nearestLine(in: place, mentioning: variable, after: after) { lines[index] = (near, false) }
            }
            if let found = lines[index] { placed.append((place.function, found.line)) }
        }
        var details: [String] = []
        for (index, access) in report.accesses.enumerated() {
            let verb = access.isWrite ? Localized("written", ja: "書き込み") : Localized("read", ja: "読み取り")
            let thread = Self.threadName(access.thread, task: report.threadNames[access.thread])
            guard let place = access.place else {
                details.append(t(Localized("\(verb.en) by \(thread.en), outside your file (in a library call you made)",
                                           ja: "\(thread.ja) が\(verb.ja)（あなたのファイルの外、呼び出したライブラリの中）")))
                continue
            }
            let at = lines[index].map { $0.exact ? ":\($0.line)" : Localized(" near line \($0.line)", ja: " の \($0.line) 行付近").text(language) } ?? ""
            // In Japanese the function is marked as code: its name and types stay in English.
            details.append(t(Localized("\(verb.en) at \(place.file)\(at) in \(place.function), by \(thread.en)",
                                       ja: "\(place.file)\(at) の `\(place.function)` で\(verb.ja)（\(thread.ja)）")))
            if let line = lines[index]?.line, let text = sourceLine(place.file, line) { details.append("    " + text) }
        }
        if report.isDataRace, let item = barrierWorkItemAccess(report) {
            let at = "\(item.file)\(item.line.map { ":\($0)" } ?? "")"
            return (VerdictProperty.sanitizerLimitation, Localized(
                "ThreadSanitizer reported a race in the block of a `DispatchWorkItem(flags: .barrier)` (\(item.function), \(at)). That is a known limitation of ThreadSanitizer on Apple platforms, not a proven bug in your code: its libdispatch support drops the barrier flag of a work item submitted with `queue.async(execute:)`, so it sees the write run beside the reads. Write the barrier as `queue.async(flags: .barrier) { … }`, which ThreadSanitizer understands. The places it named:",
                ja: "ThreadSanitizer が `DispatchWorkItem(flags: .barrier)` のブロックの中（`\(item.function)`、\(at)）で競合を報告しました。これは Apple プラットフォームでの ThreadSanitizer の既知の制限で、あなたのコードの誤りと決まったわけではありません。`queue.async(execute:)` で投入した作業項目のバリアフラグを ThreadSanitizer の libdispatch 対応が落とすため、書き込みが読み取りと並んで動いたように見えるのです。バリアは ThreadSanitizer が理解できる `queue.async(flags: .barrier) { … }` で書いてください。報告された場所:"),
                details)
        }
        if report.isDataRace, mainQueueApartFromMainActor(exercise), report.accesses.contains(where: { $0.thread == "main thread" }) {
            return (VerdictProperty.sanitizerLimitation, Localized(
                "ThreadSanitizer reported a race with the main thread. Here the check cannot make the main queue and its own main actor one executor (docs/platforms.md), so a block sent with `DispatchQueue.main` may run beside code on the main actor, which on a device it never does: not a proven bug in your code. Reaching the main actor with `Task { @MainActor in … }` is judged the same everywhere. The places it named:",
                ja: "ThreadSanitizer がメインスレッドとの競合を報告しました。この環境では、チェックはメインキューと自分のメインアクターを 1 つの executor にできません（docs/ja/platforms.md）。そのため `DispatchQueue.main` で送ったブロックが、メインアクター上のコードと並んで動くことがあります。実機ではそうはなりません。あなたのコードの誤りと決まったわけではありません。`Task { @MainActor in … }` でメインアクターに移る書き方なら、どの環境でも同じように判定されます。報告された場所:"),
                details)
        }
        guard report.isDataRace else {
            let place = report.learnerPlaces.first.map { "\($0.file):\($0.line.map(String.init) ?? "?") in \($0.function)" } ?? "?"
            return (VerdictProperty.sanitizer, Localized(
                "ThreadSanitizer stopped the run: \(report.kind), at \(place).",
                ja: "ThreadSanitizer が実行を止めました: \(report.kind)（\(place)）。"), details)
        }
        let on = variable.map { " on `\($0)`" } ?? ""
        let onJa = variable.map { "`\($0)` の" } ?? ""
        return (VerdictProperty.dataRace, Localized(
            "data race\(on): two threads touched the same memory, at least one writing, and nothing ordered the two accesses (no lock, queue, semaphore or thread start between them). ThreadSanitizer saw it happen:",
            ja: "\(onJa)データ競合: 2 本のスレッドが同じメモリに触れ、少なくとも一方は書き込みで、2 つのアクセスの間に順序付け（ロック、キュー、セマフォ、スレッド開始）がありませんでした。ThreadSanitizer が実際に観測しました:"),
            details)
    }

    /// The exercise has a probe that needs the main queue run as one executor with the explorer's
    /// main actor (`PlatformMechanism.mainQueueOrder`), and this platform cannot do it: Apple
    /// platforms, or Linux with its mechanisms off.
    func mainQueueApartFromMainActor(_ exercise: String) -> Bool {
        guard PlatformProbes.of(exercise).contains(where: { $0.needs.contains(.mainQueueOrder) }) else { return false }
        #if canImport(Darwin)
        return true
        #else
        return asOnApplePlatforms || PlatformMechanism.switchedOff
        #endif
    }

    /// Where `barrierWorkItemsDropped` holds: the access made in a closure of a function that
    /// submits a barrier carried by its block, if one is — a `DispatchWorkItem(flags: .barrier)`,
    /// or `.barrier` beside `qos:` or `group:` (the Swift overlay then makes a work item too) or in
    /// `asyncAfter`. Only plain `async(flags: .barrier)` / `sync(flags: .barrier)` reach
    /// libdispatch's barrier functions, which TSan models.
    func barrierWorkItemAccess(_ report: SanitizerReport) -> SanitizerReport.Place? {
        guard barrierWorkItemsDropped else { return nil }
        let barrier = #"flags:\s*(\.barrier|\[[^\]]*\.barrier)"#
        let carriedByBlock = #"DispatchWorkItem\s*\(|\b(qos|group):|asyncAfter\s*\("#
        return report.accesses.compactMap(\.place).first { place in
            guard place.function.hasPrefix("closure in "), let lines = sourceLines(place.file),
                  let body = functionBody(place.function, in: lines) else { return false }
            let code = codeLines(lines.joined(separator: "\n"))
            return code[body].contains {
                $0.range(of: barrier, options: .regularExpression) != nil && $0.range(of: carriedByBlock, options: .regularExpression) != nil
            }
        }
    }

    /// TSan's name for a thread (`thread T2`, `main thread`) in both languages, with the task
    /// it ran when the explorer named it: thread T5 (task `caller`).
    static func threadName(_ tsan: String, task: String? = nil) -> Localized {
        let thread: Localized
        if tsan == "main thread" { thread = Localized(tsan, ja: "メインスレッド") }
        else if tsan.hasPrefix("thread ") { thread = Localized(tsan, ja: "スレッド " + tsan.dropFirst("thread ".count)) }
        else { thread = .verbatim(tsan) }
        guard let task else { return thread }
        return Localized("\(thread.en) (task `\(task)`)", ja: "\(thread.ja)、タスク `\(task)`")
    }

    /// For a frame without a line: the first line of the function's body (from its `func` to the
    /// next `func`) that names `variable`, else the `func` line itself.
    func nearestLine(in place: SanitizerReport.Place, mentioning variable: String?, after made: Int? = nil) -> Int? {
        guard let lines = sourceLines(place.file), let body = functionBody(place.function, in: lines) else { return nil }
        let declaration = body.lowerBound - 1
        if let variable {
            // After the line that made the object, when it is in this function: its uses.
            let start = made.map { max(body.lowerBound, $0) } ?? body.lowerBound
            for index in start..<max(start, body.upperBound)
            where lines[index].range(of: "\\b\(variable)\\b", options: .regularExpression) != nil {
                return index + 1
            }
        }
        return declaration + 1
    }

    /// The lines (0-based) after `function`'s `func` line, up to the next `func`:
    /// "closure in SafeCounter.increment(_:)" → the body of `func increment` — in the type of
    /// that name where the file declares one (a file may hold several types), else the first.
    private func functionBody(_ function: String, in lines: [String]) -> Range<Int>? {
        let qualified = function.components(separatedBy: " in ").last ?? function
        let path = qualified.prefix { $0 != "(" }.split(separator: ".").map(String.init)
        guard let name = path.last, !name.isEmpty else { return nil }
        let typeLine = path.dropLast().last.flatMap { type in
            lines.firstIndex { $0.range(of: #"\b(class|struct|actor|enum|extension)\s+"# + type + #"\b"#, options: .regularExpression) != nil }
        }
        guard let declaration = lines[(typeLine ?? 0)...].firstIndex(where: { $0.range(of: "func \(name)\\b", options: .regularExpression) != nil })
        else { return nil }
        let end = lines[(declaration + 1)...].firstIndex { $0.contains("func ") } ?? lines.count
        return (declaration + 1)..<end
    }

    private func sourceLines(_ file: String) -> [String]? {
        guard let text = try? String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8) else { return nil }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func sourceLine(_ file: String, _ number: Int) -> String? {
        guard let lines = sourceLines(file), number >= 1, number <= lines.count else { return nil }
        return "\(number) | " + lines[number - 1].trimmingCharacters(in: .whitespaces)
    }

    /// The name line `line` of `file` gives a new object: `let results = Results()` → `results`.
    func assignedVariable(_ file: String, line: Int) -> String? {
        guard let text = sourceLine(file, line),
              let match = text.range(of: #"\b(let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(:[^=]*)?="#, options: .regularExpression) else { return nil }
        let declaration = text[match].split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "=" })
        return declaration.count >= 2 ? String(declaration[1]) : nil
    }

    /// A stored `var` of the learner's file that both racing lines (or, without a line, their
    /// functions) mention, if there is one.
    func sharedVariable(_ places: [SanitizerReport.Place]) -> String? {
        guard let file = places.first?.file, let lines = sourceLines(file) else { return nil }
        let declared = lines.compactMap { line -> String? in
            guard let range = line.range(of: #"\bvar\s+([A-Za-z_][A-Za-z0-9_]*)"#, options: .regularExpression) else { return nil }
            return String(line[range].split(whereSeparator: \.isWhitespace).last ?? "")
        }
        // A place TSan gave no line stands for its function's whole body.
        let mentioned = places.compactMap { place -> String? in
            guard let number = place.line else {
                return functionBody(place.function, in: lines).map { lines[$0].joined(separator: "\n") }
            }
            return number >= 1 && number <= lines.count ? lines[number - 1] : nil
        }
        guard !mentioned.isEmpty else { return nil }
        return declared.first { name in
            mentioned.allSatisfy { $0.range(of: "\\b\(name)\\b", options: .regularExpression) != nil }
        } ?? declared.first { name in mentioned.contains { $0.range(of: "\\b\(name)\\b", options: .regularExpression) != nil } }
    }

    // MARK: The runner's environment

    /// ThreadSanitizer stops at its first report (the verdict names it); lock-order reports are
    /// off (the checks make real deadlocks happen and any consistent lock order is right). The
    /// Swift backtracer is off: under TSan its fork crashed inside TSan and replaced the
    /// runtime's own message (libdispatch's, say) with TSan's; a trap's message names its line.
    static func runnerEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // A `Dictionary` or `Set` iterates in an order set by its keys alone, not also by where
        // its storage lies: code that resumes the waiters in a dictionary's order replays the
        // same schedule the same way (else "fresh state" would blame it for the heap).
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        // handle_sigill/sigtrap/abort: TSan prints the crashing thread's frames for a Swift or
        // libdispatch trap (SIGILL on x86_64, SIGTRAP on arm64) instead of dying silently.
        // atexit_sleep_ms=0: TSan otherwise sleeps 1 s at exit while other threads live (always,
        // with GCD's pool), half of every verdict. No check leaves its race to that second: every
        // buggy variant gave its verdict without it (188 variants × 3 runs, a core busy).
        var options = ["halt_on_error=1", "exitcode=66", "detect_deadlocks=0", "report_thread_leaks=0",
                       "report_signal_unsafe=0", "history_size=7", "handle_sigill=1", "handle_sigtrap=1", "handle_abort=1",
                       "atexit_sleep_ms=0"]
        if let symbolizer = symbolizerPath(environment) { options.append("external_symbolizer_path=\(symbolizer)") }
        if let existing = environment["TSAN_OPTIONS"], !existing.isEmpty { options.append(existing) }
        environment["TSAN_OPTIONS"] = options.joined(separator: ":")
        return environment
    }

    /// `llvm-symbolizer` turns TSan's addresses into file:line. On the PATH usually; else the
    /// one in the toolchain this process was built with (found from the Swift runtime's path).
    /// On Apple platforms none is named: TSan then runs `atos` from the PATH on its own, which gives
    /// bare file names (`SanitizerReport` reads both); not run here (docs/platforms.md).
    static func symbolizerPath(_ environment: [String: String]) -> String? {
        #if canImport(Darwin)
        return nil
        #else
        let name = "llvm-symbolizer"
        for folder in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        // /proc/self/maps: "… /opt/swift/usr/lib/swift/linux/libswiftCore.so" → /opt/swift/usr/bin/llvm-symbolizer
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
              let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
              let path = line.split(separator: " ").last else { return nil }
        let candidate = URL(fileURLWithPath: String(path)).deletingLastPathComponent()  // lib/swift/linux
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bin/\(name)").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
        #endif
    }
}
