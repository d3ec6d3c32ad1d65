import Foundation
import Testing
import WorkbookExplorer
@testable import WorkbookCore

actor SplitCounter {
    var value = 0
    func read() -> Int { value }
    func write(_ newValue: Int) { value = newValue }
}

let counterRaceGame = Game(
    slug: "counter-race",
    title: Localized("Two tasks, one counter", ja: "2 つのタスクと 1 つのカウンタ"),
    narration: Localized("Each task reads, then writes read+1.", ja: "各タスクは読んでから 読んだ値+1 を書きます。"),
    explanation: Localized("Both read 0 before either wrote.", ja: "どちらかが書く前に両方が 0 を読みました。"),
    classify: { $0 == "counter=2" ? .acceptable : .forbidden }
) {
    let counter = SplitCounter()
    async let a: Void = { nameTask("A"); let v = await counter.read(); checkpoint("A read \(v)"); await counter.write(v + 1) }()
    async let b: Void = { nameTask("B"); let v = await counter.read(); checkpoint("B read \(v)"); await counter.write(v + 1) }()
    _ = await (a, b)
    return "counter=\(await counter.value)"
}

/// A two-scenario chapter to drive the REPL with.
let sampleChapter = Chapter(
    number: 99,
    executable: "ch99-sample",
    title: Localized("Sample", ja: "サンプル"),
    scenarios: [
        Scenario(
            slug: "letters",
            title: Localized("Letters", ja: "文字"),
            narration: Localized("Prints A then B.", ja: "A の次に B を表示します。"),
            knobs: [.init("count", default: 2, range: 1...5, help: Localized("how many", ja: "個数"))],
            prediction: .init(
                question: Localized("Which order?", ja: "どの順番？"),
                explanation: Localized("One thread, program order.", ja: "1 スレッドなのでプログラム順です。"),
                isPossible: { $0 == "AB" })
        ) { context in
            for letter in ["A", "B", "C", "D", "E"].prefix(context.knob("count")) { context.emit(letter) }
        },
        Scenario(slug: "fails", title: Localized("Fails", ja: "失敗"), narration: Localized("Throws.", ja: "例外をスローします。")) { _ in
            struct Boom: Error {}
            throw Boom()
        },
    ],
    games: [counterRaceGame])

final class Transcript: Sendable {
    let lines = Locked<[String]>([])
    var text: String { lines.current.joined(separator: "\n") }
    func write(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Runs the REPL on `input` on a thread of its own and returns the exit code and transcript.
func repl(_ input: [String], language: Language = .en) async -> (Int32, Transcript) {
    let (session, transcript) = session(input: input, language: language)
    let code = await onDedicatedThread { session.perform(.repl) }
    return (code, transcript)
}

func session(input: [String], language: Language = .en, svgPath: String? = nil) -> (Session, Transcript) {
    let transcript = Transcript()
    let queue = Locked(input[...])
    var options = ChapterOptions()
    options.language = language
    options.svgPath = svgPath
    let session = Session(chapter: sampleChapter, options: options, terminal: .plain, environment: [:], interactive: false,
                          readLine: { queue.withLock { $0.popFirst() } }, write: transcript.write)
    return (session, transcript)
}

@Suite("REPL", .workbookSelfTest)
struct SessionTests {
    @Test("lists, runs with knobs, explains and quits on piped input without prompts")
    func pipedSession() async {
        let (code, transcript) = await repl(["list", "run 1 count=3", "explain 1", "quit", "list"])
        #expect(code == 0)
        let text = transcript.text
        #expect(text.contains("1.  Letters"))
        #expect(text.contains("main: C") || text.contains(": C"))
        #expect(text.contains("count=2  (1...5)"))
        #expect(!text.contains("ch99>"))
        #expect(text.components(separatedBy: "ch99-sample — Sample").count == 2)  // the second `list` never ran
    }

    @Test("end of input quits cleanly")
    func endOfInput() async {
        let (code, _) = await repl(["list"])
        #expect(code == 0)
    }

    @Test("an unknown command prints help and carries on")
    func unknownCommand() async {
        let (code, transcript) = await repl(["frobnicate", "run 1"])
        #expect(code == 0)
        #expect(transcript.text.contains("unknown command 'frobnicate'"))
        #expect(transcript.text.contains("Commands:"))
        #expect(transcript.text.contains(": B"))
    }

    @Test("N … is run N …: the knobs are used, and checked the same way")
    func bareNumberTakesKnobs() async {
        let (_, withKnobs) = await repl(["timeline off", "1 count=4"])
        #expect(withKnobs.text.contains("count=4"))
        #expect(withKnobs.text.contains(": D"))
        for (bare, run) in [("1 count=9", "run 1 count=9"), ("1 bogus", "run 1 bogus"), ("2 x=1", "run 2 x=1"), ("999", "run 999"), ("0", "run 0")] {
            let (_, a) = await repl([bare])
            let (_, b) = await repl([run])
            #expect(a.text == b.text, "\(bare) vs \(run)")
            #expect(!a.text.contains("unknown command"))
            #expect(!a.text.contains("── "), "\(bare) ran")
        }
        let (_, missing) = await repl(["999"])
        #expect(missing.text == "no scenario 999: there are 2 (1...2; 'list' shows them)")
        let (_, noKnobs) = await repl(["run 2 x=1"])
        #expect(noKnobs.text == "unknown knob 'x': this scenario has no knobs")
    }

    @Test("a line of nothing but arrow keys gets one line about them, not the help; control characters are dropped")
    func escapeSequences() async {
        let (_, arrows) = await repl(["\u{1B}[A", "\u{1B}[D\u{1B}[C"])
        #expect(!arrows.text.contains("unknown command"))
        #expect(!arrows.text.contains("Commands:"))
        #expect(arrows.lines.current.count == 2)
        #expect(arrows.text.contains("Arrow keys and command history are not supported here"))
        let (_, formFeed) = await repl(["timeline off", "\u{0C}run 1"])
        #expect(formFeed.text.contains(": B"))
        #expect(!formFeed.text.contains("unknown command"))
        let (_, mixed) = await repl(["timeline off", "\u{1B}[Drun 1"])
        #expect(mixed.text.contains("it was read as 'run 1'"))
        #expect(mixed.text.contains(": B"))
        let (_, ja) = await repl(["\u{1B}[A"], language: .ja)
        #expect(ja.text.contains("矢印キー"))
    }

    @Test("the help's descriptions start in one column, in display cells, and fit 80 columns", arguments: Language.allCases)
    func helpAligned(_ language: Language) async {
        let (_, transcript) = await repl(["help"], language: language)
        let rows = transcript.text.split(separator: "\n").dropFirst().map(String.init)
        #expect(rows.allSatisfy { displayWidth($0) <= 80 }, "\(rows)")
        // Each row as display cells: a wide character takes two.
        func cells(_ row: String) -> [Character] { row.flatMap { displayWidth(String($0)) == 2 ? [$0, $0] : [$0] } }
        for row in rows.map(cells) {
            #expect(row.count > 26 && row[25] == " " && row[26] != " ", "\(String(row))")
        }
    }

    @Test("replay with a name that is no exercise says so in the chapter program's terms, not the runner's")
    func replayUnknownExercise() async throws {
        // The catalog is read from the package the program runs in: here, the test's.
        try #require(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/exercises/exercises.json"))
        let (_, transcript) = await repl(["replay Nope 1:w1d:0x3", "replay safecounter 1:w1d:0x3"])
        #expect(transcript.text.contains("There is no exercise named 'Nope'."))
        #expect(transcript.text.contains("Did you mean SafeCounter?"))
        #expect(transcript.text.contains("`swift run workbook`"))
        #expect(!transcript.text.contains("exercise-runner"))
    }

    @Test("--run 999 names --list, the REPL's run 999 names list")
    func noSuchScenarioWhere() async {
        let (session, _) = WorkbookCoreTests.session(input: [])
        #expect(session.t(session.noSuchScenario(999, onCommandLine: true)).contains("--list shows them"))
        #expect(session.t(session.noSuchScenario(999)).contains("'list' shows them"))
    }

    @Test("bad knobs and numbers are explained, not run", arguments: ["run 1 count=9", "run 1 speed=2", "run 1 count=x", "run 7", "run", "predict x"])
    func badArguments(command: String) async {
        let (code, transcript) = await repl([command])
        #expect(code == 0)
        #expect(!transcript.text.contains(": A"))
        #expect(!transcript.text.isEmpty)
    }

    @Test("predict compares the answer with what the run did")
    func predict() async {
        let (_, matchedText) = await repl(["predict 1", "a, b"])
        #expect(matchedText.text.contains("Matched"))
        let (_, missedText) = await repl(["predict 1", "BA"])
        #expect(missedText.text.contains("cannot happen"))
        #expect(missedText.text.contains("program order"))
    }

    @Test("lang ja switches to Japanese")
    func switchLanguage() async {
        let (_, transcript) = await repl(["lang ja", "list"])
        #expect(transcript.text.contains("文字"))
    }

    @Test("a failing scenario is reported and the REPL carries on; --run exits 1")
    func failingScenario() async {
        let (_, transcript) = await repl(["run 2", "run 1"])
        #expect(transcript.text.contains("The scenario failed"))
        #expect(transcript.text.contains(": A"))
        let (oneShot, _) = WorkbookCoreTests.session(input: [])
        #expect(await onDedicatedThread { oneShot.perform(.run(number: 2, knobs: [:])) } == 1)
        #expect(await onDedicatedThread { oneShot.perform(.run(number: 3, knobs: [:])) } == 2)
        #expect(await onDedicatedThread { oneShot.perform(.run(number: 1, knobs: ["count": 99])) } == 2)
    }

    @Test("timeline off hides the timeline")
    func timelineOff() async {
        let (_, transcript) = await repl(["timeline off", "run 1"])
        #expect(!transcript.text.contains("1   0ns"))
    }

    @Test("play lists the games, plays one to the end with picks and auto, and prints a replay token")
    func playToTheEnd() async throws {
        let (code, transcript) = await repl(["play", "play 1", "1", "2", "auto", "quit"])
        #expect(code == 0)
        let text = transcript.text
        #expect(text.contains("1.  Two tasks, one counter"))
        #expect(text.contains("ready to run:"))
        #expect(text.contains("Outcome: counter="))
        let token = try #require(text.split(separator: "\n").first { $0.contains("replay 1 w1d:") })
        #expect(!text.contains("pick>"))
        _ = token
    }

    @Test("replay reproduces a played schedule's outcome")
    func replayReproduces() async throws {
        let (_, played) = await repl(["play 1", "auto"])
        let line = try #require(played.text.split(separator: "\n").first { $0.contains("replay 1 w1d:") })
        let command = String(line[line.range(of: "replay 1 ")!.lowerBound...])
        let outcome = try #require(played.text.split(separator: "\n").first { $0.hasPrefix("Outcome:") })
        let (_, replayed) = await repl([command])
        #expect(replayed.text.contains(outcome))
    }

    @Test("undo takes back a pick, quit and end of input leave the game")
    func undoAndQuit() async {
        let (_, undone) = await repl(["play 1", "2", "undo", "quit"])
        #expect(undone.text.contains("undone"))
        #expect(undone.text.contains("Left the game."))
        let (code, ended) = await repl(["play 1"])
        #expect(code == 0)
        #expect(ended.text.contains("Left the game."))
    }

    @Test("a bad pick is explained and asked again")
    func badPick() async {
        let (_, transcript) = await repl(["play 1", "9", "auto"])
        #expect(transcript.text.contains("pick 1–"))
        #expect(transcript.text.contains("Outcome:"))
    }

    @Test("some schedule loses the update: picking B right after A's read")
    func lostUpdateIsReachable() async {
        // Explore all first picks; at least one game path must end forbidden.
        var outcomes: Set<String> = []
        for first in 1...2 {
            for second in 1...2 {
                let (_, transcript) = await repl(["play 1", "\(first)", "\(second)", "1", "1", "1", "1", "auto"])
                if let line = transcript.text.split(separator: "\n").first(where: { $0.hasPrefix("Outcome:") }) { outcomes.insert(String(line)) }
            }
        }
        #expect(outcomes.contains { $0.contains("FORBIDDEN") })
    }
}
