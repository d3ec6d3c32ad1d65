import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The REPL and the one-shot actions of a chapter executable.
///
/// Non-TTY input is read line by line with no prompt; end of input quits. Output goes through
/// `write` so tests can capture it.
public final class Session: @unchecked Sendable {  // used from the REPL thread only
    let chapter: Chapter
    var language: Language
    var showsTimeline = true
    let seed: UInt64
    /// `--svg PATH` of a one-shot run.
    let svgPath: String?
    /// The last run of each scenario in this session, by number, for `svg N PATH`.
    var lastRuns: [Int: LastRun] = [:]
    var terminal: Terminal
    let write: @Sendable (String) -> Void

    /// Writes prose (a narration, a question, an explanation) broken at spaces to the terminal's
    /// width, so no word is split by the terminal's own wrapping.
    func writeWrapped(_ text: String) {
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            write(wrap(String(paragraph), width: terminal.width).joined(separator: "\n"))
        }
    }
    let readLineFromInput: () -> String?
    /// Input ended at a prompt inside a command (a prediction's answer, a game's pick): the REPL
    /// then ends too, without a prompt of its own.
    let inputEnded = Locked(false)
    let interactive: Bool
    /// How long a scenario may run before the REPL gives up on it and carries on.
    public var scenarioDeadlineSeconds: Double = 60

    public init(
        chapter: Chapter,
        options: ChapterOptions,
        terminal: Terminal,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        interactive: Bool = isatty(STDIN_FILENO) == 1,
        readLine: @escaping () -> String? = { Swift.readLine(strippingNewline: true) },
        write: @escaping @Sendable (String) -> Void
    ) {
        self.chapter = chapter
        self.language = options.language ?? Language.fromEnvironment(environment)
        self.seed = options.seed
        self.svgPath = options.svgPath
        var terminal = terminal
        if options.noColor { terminal.usesColor = false }
        self.terminal = terminal
        self.interactive = interactive
        self.readLineFromInput = readLine
        self.write = write
    }

    func t(_ text: Localized) -> String { text.text(language) }

    /// Performs an action and returns the exit code.
    public func perform(_ action: ChapterOptions.Action) -> Int32 {
        switch action {
        case .repl: return repl()
        case .list: list(); return 0
        case .help: write(helpForFlags()); return 0
        case .all:
            var failed = false
            for number in chapter.scenarios.indices.map({ $0 + 1 }) where !run(number, knobs: [:]) { failed = true }
            return failed ? 1 : 0
        case let .run(number, knobs):
            guard scenario(number) != nil else {
                writeError(t(noSuchScenario(number, onCommandLine: true)))
                return 2
            }
            do throws(KnobError) {
                _ = try chapter.scenarios[number - 1].knobValues(knobs)
            } catch {
                writeError(t(error.message))
                return 2
            }
            let succeeded = run(number, knobs: knobs)
            if let svgPath, !saveTimeline(of: number, to: svgPath, inREPL: false) { return 1 }
            return succeeded ? 0 : 1
        case .child:
            return 2
        }
    }

    // MARK: REPL

    func repl() -> Int32 {
        if interactive {
            write(terminal.paint(t(chapter.title.with([:])).isEmpty ? "" : titleLine, .bold))
            write(t(Localized("Type 'list' to see the scenarios, 'help' for commands.", ja: "'list' でシナリオ一覧、'help' でコマンド一覧を表示します。")))
        }
        while true {
            // The prompt that met the end of input ended its own line.
            if inputEnded.current { return 0 }
            if interactive {
                terminal.followResize()
                Console.prompt(terminal.paint("ch\(String(format: "%02d", chapter.number))> ", .bold))
            }
            guard let line = nextLine() else {
                if interactive { write("") }
                return 0
            }
            if !execute(line) { return 0 }
        }
    }

    /// The next line of input; nil at its end, and from then on.
    func nextLine() -> String? {
        guard !inputEnded.current else { return nil }
        let line = readLineFromInput()
        if line == nil { inputEnded.withLock { $0 = true } }
        return line
    }

    /// What a line of nothing but escape sequences (an arrow key, say) gets.
    var arrowKeysMessage: Localized {
        Localized("Arrow keys and command history are not supported here: type the command ('help' lists them).",
                  ja: "ここでは矢印キーやコマンド履歴は使えません。コマンドを入力してください（一覧は 'help'）。")
    }

    /// Executes one REPL command; returns false on `quit`.
    ///
    /// Escape sequences and control characters (what arrow keys and Ctrl-L send: there is no
    /// line editing) are taken out first.
    @discardableResult
    public func execute(_ typed: String) -> Bool {
        let input = InputLine(typed)
        if input.isBlank {
            if input.hadEscapeSequence { writeWrapped(t(arrowKeysMessage)) }
            return true
        }
        let line = input.text
        if input.hadEscapeSequence {
            let shown = line.trimmingCharacters(in: .whitespaces)
            writeWrapped(t(Localized("(Arrow keys do not edit the line here; it was read as '\(shown)'.)",
                              ja: "（ここでは矢印キーで行を編集できません。入力は '\(shown)' として読みました）")))
        }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard var command = words.first?.lowercased() else { return true }
        var arguments = Array(words.dropFirst())
        // `N …` is `run N …`: the same checks, the same messages.
        if Int(command) != nil {
            command = "run"
            arguments = words
        }
        switch command {
        case "quit", "exit", "q":
            return false
        case "help", "?":
            write(helpForCommands())
        case "list", "ls":
            list()
        case "run", "predict", "explain":
            guard let first = arguments.first, let number = Int(first) else {
                write(t(Localized("usage: \(command) N   (N from 'list')", ja: "使い方: \(command) N   （N は 'list' の番号）")))
                return true
            }
            guard scenario(number) != nil else {
                write(t(noSuchScenario(number)))
                return true
            }
            var knobs: [String: Int] = [:]
            do throws(KnobError) {
                for text in arguments.dropFirst() {
                    let (name, value) = try parseKnob(text)
                    knobs[name] = value
                }
                _ = try chapter.scenarios[number - 1].knobValues(knobs)
            } catch {
                write(t(error.message))
                return true
            }
            switch command {
            case "run": run(number, knobs: knobs)
            case "predict": predict(number, knobs: knobs)
            default: explain(number)
            }
        case "play":
            if arguments.isEmpty { listGames(); return true }
            guard let number = Int(arguments[0]) else {
                write(t(Localized("usage: play [N]", ja: "使い方: play [N]")))
                return true
            }
            play(number)
        case "replay":
            guard arguments.count == 2 else {
                write(t(Localized("usage: replay N TOKEN   (the token is printed at the end of a game)\n       replay Exercise CASE:TOKEN   (as an exercise's failure report prints it)",
                                  ja: "使い方: replay N トークン（トークンはゲームの最後に表示されます）\n        replay 演習名 ケース:トークン（演習の失敗レポートに表示されます）")))
                return true
            }
            if let number = Int(arguments[0]) {
                replay(number, token: arguments[1])
            } else {
                replayExercise(arguments[0], arguments[1])
            }
        case "svg":
            svgCommand(line)
        case "timeline":
            switch arguments.first?.lowercased() {
            case "on": showsTimeline = true
            case "off": showsTimeline = false
            default:
                write(t(Localized("usage: timeline on|off", ja: "使い方: timeline on|off")))
                return true
            }
            write(t(showsTimeline ? Localized("timeline: on", ja: "タイムライン: 表示") : Localized("timeline: off", ja: "タイムライン: 非表示")))
        case "lang":
            guard let code = arguments.first, let language = Language(rawValue: code.lowercased()) else {
                write(t(Localized("usage: lang en|ja", ja: "使い方: lang en|ja")))
                return true
            }
            self.language = language
            write(t(Localized("language: English", ja: "言語: 日本語")))
        default:
            write(t(Localized("unknown command '\(command)'", ja: "不明なコマンド '\(command)'")))
            write(helpForCommands())
        }
        return true
    }

    // MARK: Commands

    func scenario(_ number: Int) -> Scenario? {
        chapter.scenarios.indices.contains(number - 1) ? chapter.scenarios[number - 1] : nil
    }

    /// For `run 999` in the REPL, or `--run 999` on the command line, where the list is `--list`.
    func noSuchScenario(_ number: Int, onCommandLine: Bool = false) -> Localized {
        let count = chapter.scenarios.count
        let list = onCommandLine ? "--list" : "'list'"
        return Localized("no scenario \(number): there are \(count) (1...\(count); \(list) shows them)",
                         ja: "シナリオ \(number) はありません。シナリオは \(count) 個です（1...\(count)、\(list) で一覧）")
    }

    /// `ch06-streams — Streams: …`, wrapped under the title.
    var titleLine: String {
        wrap(t(chapter.title), prefix: "\(chapter.executable) — ", width: terminal.width).joined(separator: "\n")
    }

    func list() {
        write(terminal.paint(titleLine, .bold))
        for (index, scenario) in chapter.scenarios.enumerated() {
            // The title wrapped under itself; the knobs and the predict mark after it, whole.
            var lines = wrap(t(scenario.title), prefix: "    ", width: terminal.width)
            lines[0] = padded("\(index + 1).", to: 4) + lines[0].dropFirst(4)
            let knobs = scenario.knobs.isEmpty ? "" : "  [" + scenario.knobs.map(\.name).joined(separator: " ") + "]"
            let predict = scenario.prediction == nil ? "" : t(Localized("  (predict)", ja: "  （予想）"))
            let marks = (knobs.isEmpty ? "" : terminal.paint(knobs, .dim)) + (predict.isEmpty ? "" : terminal.paint(predict, .yellow))
            if knobs.isEmpty && predict.isEmpty {
            } else if displayWidth(lines[lines.count - 1] + knobs + predict) <= terminal.width {
                lines[lines.count - 1] += marks
            } else {
                lines.append("   " + marks)
            }
            write(lines.joined(separator: "\n"))
        }
    }

    func explain(_ number: Int) {
        let scenario = chapter.scenarios[number - 1]
        write(terminal.paint("\(number). \(t(scenario.title))", .bold))
        writeWrapped(t(scenario.narration))
        if !scenario.knobs.isEmpty {
            write("")
            write(t(Localized("Knobs (run \(number) name=value):", ja: "パラメータ（run \(number) 名前=値）:")))
            for knob in scenario.knobs {
                write("  \(knob.name)=\(knob.defaultValue)  (\(knob.range.lowerBound)...\(knob.range.upperBound))  \(t(knob.help))")
            }
        }
        if let prediction = scenario.prediction {
            write("")
            writeWrapped(t(Localized("Predict: ", ja: "予想: ")) + t(prediction.question) + "  → predict \(number)")
        }
    }

    /// Runs a scenario and prints its output and timeline. Returns false if it threw or hung.
    @discardableResult
    func run(_ number: Int, knobs: [String: Int]) -> Bool {
        runAndReturnContext(number, knobs: knobs) != nil
    }

    func runAndReturnContext(_ number: Int, knobs: [String: Int]) -> ScenarioContext? {
        let scenario = chapter.scenarios[number - 1]
        let values = (try? scenario.knobValues(knobs)) ?? [:]
        let knobText = scenario.knobs.map { "\($0.name)=\(values[$0.name]!)" }.joined(separator: " ")
        // The knobs on the title's line when they fit, else on a line of their own.
        var header = wrap(t(scenario.title), prefix: "── \(number). ", width: terminal.width)
        if !knobText.isEmpty {
            if displayWidth(header[header.count - 1] + " " + knobText) <= terminal.width { header[header.count - 1] += " " + knobText }
            else { header.append("   " + knobText) }
        }
        write(terminal.paint(header.joined(separator: "\n"), .bold))
        let language = self.language
        let context = ScenarioContext(language: language, seed: seed, knobs: values, terminal: terminal, output: write)
        let outcome: String?? = waitForAsync(seconds: scenarioDeadlineSeconds) { () async -> String? in
            do {
                try await scenario.run(context)
                return nil
            } catch let stuck as ScenarioStuck {
                return stuck.what.text(language)
            } catch {
                return String(describing: error)
            }
        }
        let events = context.trace.events
        lastRuns[number] = LastRun(events: events, knobText: knobText)
        if showsTimeline {
            write("")
            write(Timeline(terminal: terminal).render(events, language: language))
        }
        switch outcome {
        case .some(nil):
            return context
        case .some(let message?):
            write(terminal.paint(t(Localized("The scenario failed: \(message)", ja: "シナリオが失敗しました: \(message)")), .red))
            return nil
        case nil:
            write(terminal.paint(t(Localized(
                "The scenario did not finish within \(Int(scenarioDeadlineSeconds)) s; it was left behind.",
                ja: "シナリオが \(Int(scenarioDeadlineSeconds)) 秒以内に終わらなかったため、置き去りにしました。")), .red))
            return nil
        }
    }

    func predict(_ number: Int, knobs: [String: Int]) {
        let scenario = chapter.scenarios[number - 1]
        guard let prediction = scenario.prediction else {
            write(t(Localized("Scenario \(number) has no prediction; try 'run \(number)'.", ja: "シナリオ \(number) には予想問題がありません。'run \(number)' を試してください。")))
            return
        }
        write(terminal.paint("\(number). \(t(scenario.title))", .bold))
        writeWrapped(t(prediction.question))
        if interactive { Console.prompt(t(Localized("your answer> ", ja: "あなたの答え> "))) }
        guard let typed = nextLine() else {
            if interactive { write("") }  // end the prompt's line before the program ends
            return
        }
        let input = InputLine(typed)
        let answer = input.text.trimmingCharacters(in: .whitespaces)
        if !interactive { write(t(Localized("your answer: ", ja: "あなたの答え: ")) + answer) }
        if input.hadEscapeSequence && input.isBlank { writeWrapped(t(arrowKeysMessage)) }
        let guess = Scenario.Prediction.normalize(answer)
        if let problem = prediction.problem(with: guess) {
            write(terminal.paint(t(problem), .red) + t(Localized(" Nothing was run; 'predict \(number)' asks again.", ja: "何も実行していません。'predict \(number)' でもう一度聞きます。")))
            return
        }
        guard let context = runAndReturnContext(number, knobs: knobs) else { return }
        let observed = Scenario.Prediction.normalize(prediction.observe(context))
        write("")
        if prediction.matches(guess, observed) {
            write(terminal.paint(t(Localized("✓ Matched: this run gave \(observed).", ja: "✓ 的中: この実行の結果は \(observed) でした。")), .green))
        } else if prediction.isPossible(guess, after: context) {
            write(terminal.paint(t(Localized(
                "~ This run gave \(observed), but \(guess) is also possible: run it again.",
                ja: "~ この実行の結果は \(observed) でしたが、\(guess) も起こり得ます。もう一度実行してみてください。")), .yellow))
        } else {
            write(terminal.paint(t(Localized("✗ This run gave \(observed); \(guess) cannot happen.", ja: "✗ この実行の結果は \(observed) でした。\(guess) は起こり得ません。")), .red))
        }
        writeWrapped(t(Localized("Why: ", ja: "理由: ")) + t(prediction.explanation))
    }

    // MARK: Help

    func helpForCommands() -> String {
        let rows: [(Localized, Localized)] = [
            (.verbatim("list"), Localized("the scenarios", ja: "シナリオ一覧")),
            (Localized("run N [name=value …]", ja: "run N [名前=値 …]"),
             Localized("run scenario N, optionally with knobs changed", ja: "シナリオ N を実行（パラメータを変えられます）")),
            (Localized("N [name=value …]", ja: "N [名前=値 …]"), Localized("same as run N …", ja: "run N … と同じ")),
            (.verbatim("predict N"), Localized("answer the question first, then run and compare", ja: "先に答えてから実行し、結果と比べる")),
            (.verbatim("explain N"), Localized("what scenario N shows, its knobs and question", ja: "シナリオ N の説明、パラメータ、問題")),
            (.verbatim("play"), Localized("the games: you are the scheduler", ja: "ゲーム一覧: あなたがスケジューラです")),
            (.verbatim("play N"), Localized("play game N: pick which task runs at each step", ja: "ゲーム N: 各ステップで実行するタスクを選ぶ")),
            (Localized("replay N TOKEN", ja: "replay N トークン"), Localized("replay a game's schedule from its token", ja: "ゲームのスケジュールをトークンから再現")),
            (Localized("replay Exercise C:TOKEN", ja: "replay 演習 C:トークン"),
             Localized("replay an exercise check's failing schedule (case C)", ja: "演習のチェックで失敗したスケジュール（ケース C）を再現")),
            (Localized("svg N PATH", ja: "svg N パス"),
             Localized("write scenario N's last timeline to PATH (SVG picture)", ja: "シナリオ N の最後の実行のタイムラインを SVG 画像で保存")),
            (.verbatim("timeline on|off"), Localized("draw the timeline after each run", ja: "実行後のタイムライン表示を切り替える")),
            (.verbatim("lang en|ja"), Localized("switch language", ja: "言語を切り替える")),
            (.verbatim("help"), Localized("this text", ja: "このヘルプ")),
            (.verbatim("quit"), Localized("leave (end of input also quits)", ja: "終了（入力の終わりでも終了）")),
        ]
        return ([t(Localized("Commands:", ja: "コマンド:"))] + table(rows, column: 24)).joined(separator: "\n")
    }

    /// Rows of a help text, `  command  what it does`: every description starts in the same
    /// column (display cells, so Japanese lines up) and is wrapped under itself to the terminal's
    /// width; a command too wide for its column has its description on the next line.
    func table(_ rows: [(Localized, Localized)], column: Int) -> [String] {
        let indent = String(repeating: " ", count: 2 + column)
        return rows.flatMap { command, what -> [String] in
            let head = "  " + t(command)
            guard displayWidth(head) < indent.count else {
                return [head] + wrap(t(what), prefix: indent, width: terminal.width)
            }
            return wrap(t(what), prefix: padded(head, to: indent.count), width: terminal.width)
        }
    }

    func helpForFlags() -> String {
        let e = chapter.executable
        let rows: [(Localized, Localized)] = [
            (Localized("(no options)", ja: "（オプションなし）"),
             Localized("interactive: type 'help' for commands; reads piped input line by line", ja: "対話モード: 'help' でコマンド一覧。パイプ入力は 1 行ずつ")),
            (.verbatim("--list"), Localized("list the scenarios", ja: "シナリオ一覧")),
            (.verbatim("--run N [k=v …]"), Localized("run scenario N once, with optional knobs", ja: "シナリオ N を 1 回実行（パラメータ指定可）")),
            (Localized("--svg PATH", ja: "--svg パス"),
             Localized("with --run: also write the run's timeline to PATH (SVG picture)", ja: "--run と一緒に: そのタイムラインを SVG 画像でパスに保存")),
            (.verbatim("--all"), Localized("run every scenario with default knobs", ja: "全シナリオを既定のパラメータで実行")),
            (.verbatim("--lang en|ja"), Localized("language (default: from LANG)", ja: "言語（既定: LANG から）")),
            (.verbatim("--no-color"), Localized("plain output (also: NO_COLOR=1, or output not a terminal)", ja: "色なし（NO_COLOR=1 や端末以外への出力でも同じ）")),
            (.verbatim("--seed S"), Localized("seed for scenarios that choose at random (default 1)", ja: "ランダムに選ぶシナリオのシード（既定 1）")),
            (.verbatim("--help"), Localized("this text", ja: "このヘルプ")),
        ]
        let exit = Localized("Exit status: 0 ok, 1 a scenario failed or the SVG was not written, 2 bad usage.",
                             ja: "終了コード: 0 正常、1 シナリオ失敗または画像を保存できなかった、2 使い方の誤り")
        return ([
            titleLine,
            "",
            t(Localized("Usage: swift run \(e) [options]", ja: "使い方: swift run \(e) [オプション]")),
        ] + table(rows, column: 19) + wrap(t(exit), width: terminal.width)).joined(separator: "\n")
    }
}
