import Testing
@testable import WorkbookCore

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
        Scenario(slug: "fails", title: Localized("Fails", ja: "失敗"), narration: Localized("Throws.", ja: "例外を投げます。")) { _ in
            struct Boom: Error {}
            throw Boom()
        },
    ])

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

func session(input: [String], language: Language = .en) -> (Session, Transcript) {
    let transcript = Transcript()
    let queue = Locked(input[...])
    var options = ChapterOptions()
    options.language = language
    let session = Session(chapter: sampleChapter, options: options, terminal: .plain, environment: [:], interactive: false,
                          readLine: { queue.withLock { $0.popFirst() } }, write: transcript.write)
    return (session, transcript)
}

@Suite("REPL")
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
}
