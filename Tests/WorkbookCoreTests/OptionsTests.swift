import Testing
import WorkbookExplorer
@testable import WorkbookCore

@Suite("Chapter options", .workbookSelfTest)
struct ChapterOptionsTests {
    @Test("no flags means the REPL")
    func defaults() throws {
        let options = try ChapterOptions.parse([])
        #expect(options.action == .repl)
        #expect(options.language == nil)
    }

    @Test("--run takes a number and knobs")
    func run() throws {
        let options = try ChapterOptions.parse(["--run", "2", "iterations=500", "--lang", "ja", "--no-color", "--seed", "9"])
        #expect(options.action == .run(number: 2, knobs: ["iterations": 500]))
        #expect(options.language == .ja)
        #expect(options.noColor)
        #expect(options.seed == 9)
    }

    @Test("rejects bad input with a message in both languages", arguments: [
        ["--bogus"], ["--lang"], ["--lang", "fr"], ["--run", "x"], ["--run", "0"], ["--run", "1", "iterations"], ["--seed", "-1"],
    ])
    func rejects(arguments: [String]) {
        #expect(throws: ChapterOptions.ParseError.self) { try ChapterOptions.parse(arguments) }
        do {
            _ = try ChapterOptions.parse(arguments)
        } catch {
            #expect(!error.message.en.isEmpty && !error.message.ja.isEmpty)
        }
    }

    @Test("--svg takes a path, before or after --run")
    func svg() throws {
        #expect(try ChapterOptions.parse(["--run", "1", "--svg", "t.svg"]).svgPath == "t.svg")
        let first = try ChapterOptions.parse(["--svg", "/tmp/a b.svg", "--run", "2", "count=3"])
        #expect(first.svgPath == "/tmp/a b.svg")
        #expect(first.action == .run(number: 2, knobs: ["count": 3]))
        #expect(try ChapterOptions.parse(["--run", "1"]).svgPath == nil)
    }

    @Test("--svg without --run, or without a path, is bad usage, said in both languages", arguments: [
        ["--svg", "t.svg"], ["--list", "--svg", "t.svg"], ["--all", "--svg", "t.svg"], ["--run", "1", "--svg"], ["--run", "1", "--svg", "--lang", "ja"],
    ])
    func svgUsage(arguments: [String]) {
        do {
            _ = try ChapterOptions.parse(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(!error.message.en.isEmpty && !error.message.ja.isEmpty)
            #expect(error.message.en.contains("--svg") && error.message.ja.contains("--svg"))
            #expect(!error.message.en.contains("\n"))
        }
    }

    @Test("LANG=ja_JP picks Japanese, anything else English")
    func language() {
        #expect(Language.fromEnvironment(["LANG": "ja_JP.UTF-8"]) == .ja)
        #expect(Language.fromEnvironment(["LANG": "en_US.UTF-8"]) == .en)
        #expect(Language.fromEnvironment(["LC_ALL": "ja_JP.UTF-8", "LANG": "en_US"]) == .ja)
        #expect(Language.fromEnvironment([:]) == .en)
    }

    @Test("colour only on a TTY without NO_COLOR")
    func color() {
        // The test's standard output is not a TTY under `swift test` pipes, so colour is off here;
        // NO_COLOR must turn it off everywhere.
        #expect(!Terminal.detect(environment: ["NO_COLOR": "1", "TERM": "xterm"]).usesColor)
        #expect(!Terminal.detect(environment: ["TERM": "dumb"]).usesColor)
        #expect(!Terminal.detect(environment: ["LANG": "C"]).usesUnicode)
    }
}

@Suite("Outcome tally", .workbookSelfTest)
struct OutcomeTallyTests {
    @Test("counts outcomes, classifies them and renders a table")
    func tally() {
        var tally = OutcomeTally { $0 == "2" ? .acceptable : .forbidden }
        for outcome in ["2", "2", "1", "2"] { tally.record(outcome) }
        #expect(tally.total == 4)
        #expect(tally.count(of: "2") == 3)
        #expect(tally.forbiddenCount == 1)
        let table = tally.render(terminal: .plain, language: .en)
        #expect(table.contains("75.0%"))
        #expect(table.contains("FORBIDDEN"))
        #expect(tally.render(terminal: .plain, language: .ja).contains("禁止"))
    }

    @Test("a long outcome is wrapped inside its column: no line is wider than the terminal", arguments: Language.allCases)
    func fitsTheWidth(_ language: Language) {
        var tally = OutcomeTally { $0.hasPrefix("ok") ? .acceptable : .forbidden }
        let long = BilingualLabel.join(
            "repeated-pair|(a, x) was sent twice in a row (at 20 and 30 ms); pairs: (, )@0ms, (a, )@10ms, (a, x)@20ms, (a, x)@30ms",
            "repeated-pair|(a, x) が続けて 2 回送られた（20 ms と 30 ms）。ペア: (, )@0ms, (a, )@10ms, (a, x)@20ms, (a, x)@30ms")
        for _ in 0..<3 { tally.record("ok=1") }
        tally.record(long)
        for width in [60, 80, 100] {
            let table = tally.render(terminal: Terminal(usesColor: false, usesUnicode: true, width: width), language: language)
            let lines = table.split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { displayWidth($0) <= width }, "\(width):\n\(table)")
            #expect(lines.count > 3, "the long outcome takes several lines:\n\(table)")
            #expect(lines.contains { $0.contains("25.0%") && $0.contains(language == .en ? "FORBIDDEN" : "禁止") })
        }
        // A table that fits is drawn as it always was.
        var short = OutcomeTally { $0 == "2" ? .acceptable : .forbidden }
        for outcome in ["2", "2", "1"] { short.record(outcome) }
        #expect(short.render(terminal: .plain, language: .en) == """
              outcome  count  share    verdict
              2            2  66.7%    acceptable
              1            1  33.3%    FORBIDDEN
            """)
    }
}

@Suite("The explorer's names in Japanese", .workbookSelfTest)
struct ExplorerNamesTests {
    @Test("a task on the main actor has a lane name short enough for a report's timeline")
    func mainActorLane() {
        #expect(Entity.onMainActor(.task(1)).localized.ja == "タスク 1（MainActor）")
        let events = [Entity.onMainActor(.task(1)), .timer(owner: .named(BilingualLabel.join("user of A", "A のユーザー"))),
                      .onMainActor(.named(BilingualLabel.join("caller", "呼び出し元")))].enumerated().map { index, who in
            Trace.Event(sequence: index, time: UInt64(index + 1), lane: who.localized.ja, label: "x", kind: .point)
        }
        // A report draws its timeline two columns narrower than the terminal.
        let drawn = Timeline(terminal: Terminal(usesColor: false, usesUnicode: true, width: 78)).render(events, language: .ja)
        for name in ["タスク 1（MainActor）", "タイマー（A のユーザー）", "呼び出し元（MainActor）"] {
            #expect(drawn.contains(name), "\(drawn)")
        }
        #expect(!drawn.contains("…"))
        #expect(drawn.split(separator: "\n").allSatisfy { displayWidth(String($0)) <= 78 })
    }

    @Test("what ran outside the explorer's control is said in Japanese, and the checkpoints of a step are joined with ／")
    func uncontrolledAndSeparators() {
        let foreign = "a job was enqueued from another thread (a callback on a Dispatch queue, the main actor, or a thread of your own)"
        #expect(ScheduleReport.uncontrolledInJapanese[foreign] != nil)
        #expect(ScheduleReport.labelSeparator == Localized("; ", ja: "／"))
    }
}
