import Foundation
import JapaneseTextRules
import Testing
import WorkbookCore

extension EnglishWords {
    /// Every knob's name: the learner types them, so they are code.
    static let knobNames = Set(allChapters.flatMap(\.scenarios).flatMap(\.knobs).map(\.name))

    /// The English words of a chapter's line: the shared rules, with the knobs' names as code.
    static func chapterWords(in line: String) -> [String] { words(in: line, alsoAllowed: knobNames) }

    /// The lines of a chapter's output with English words in them.
    static func chapterOffendingLines(_ text: String) -> [(line: String, words: [String])] {
        offendingLines(text, alsoAllowed: knobNames)
    }
}

/// Runs the REPL of `chapter` in process on `commands`, in `language`, and returns everything it
/// wrote: what `ch0N --lang ja` shows a learner, timelines included.
func replTranscript(_ chapter: Chapter, _ commands: [String], language: Language, width: Int = 80) async -> String {
    let lines = Locked<[String]>([])
    let input = Locked(commands[...])
    var options = ChapterOptions()
    options.language = language
    let session = Session(chapter: chapter, options: options, terminal: Terminal(usesColor: false, usesUnicode: true, width: width),
                          environment: [:], interactive: false,
                          readLine: { input.withLock { $0.popFirst() } }, write: { line in lines.withLock { $0.append(line) } })
    _ = await withScenarioSlot { await onDedicatedThread { session.perform(.repl) } }
    return lines.current.joined(separator: "\n")
}

@Suite("Japanese output", .workbookSelfTest)
struct JapaneseOutputTests {
    @Test("the rule finds English words and lets code names through")
    func theRule() {
        #expect(EnglishWords.chapterWords(in: "  結果: final=1 (lost update)") == ["lost", "update"])
        #expect(EnglishWords.chapterWords(in: "  T3: C runs") == ["runs"])
        #expect(EnglishWords.chapterWords(in: "T1  ●serial queue····●concurrent queue") == ["serial", "queue", "concurrent", "queue"])
        #expect(EnglishWords.chapterWords(in: "  T2: main() の中: isReady=true isExecuting=true") == [])
        #expect(EnglishWords.chapterWords(in: "`DispatchQueue.main` と \"downloader\" と GCD、ABC、T1、op3") == [])
        #expect(EnglishWords.chapterWords(in: "Thread.current.name = oot.default-qos、ch01-gcd --child same-queue-sync") == [])
        #expect(EnglishWords.chapterWords(in: "    │ *** Program crashed: Illegal instruction") == [])
        #expect(EnglishWords.chapterWords(in: "Racy: 2 つのブロック") == ["Racy"])
    }

    @Test("every scenario's run in --lang ja, timeline included, has no English words outside code names", arguments: allScenarios)
    func scenarioRun(_ name: ScenarioName) async throws {
        let chapter = allChapters[name.chapter - 1]
        let number = try #require(chapter.scenarios.firstIndex { $0.slug == name.slug }) + 1
        let transcript = await replTranscript(chapter, ["run \(number)"], language: .ja)
        let offending = EnglishWords.chapterOffendingLines(transcript)
        #expect(offending.isEmpty, "\(name.testDescription) (run \(number)) prints English in ja:\n\(EnglishWords.report(offending))")
    }

    @Test("the REPL's own messages in ja: help, list, explain, predict, errors", arguments: allChapters.map(\.number))
    func replMessages(_ chapterNumber: Int) async {
        let chapter = allChapters[chapterNumber - 1]
        let explains = chapter.scenarios.indices.map { "explain \($0 + 1)" }
        let commands = ["help", "list"] + explains + [
            "run", "run 999", "run 1 no-such-knob=1", "run 1 knob", "predict x", "explain",
            "frobnicate", "timeline", "timeline off", "timeline on", "lang", "lang xx",
            "play", "play x", "play 99", "replay", "replay 1 not-a-token", "svg", "svg x", "svg 999 t.svg",
        ] + (chapter.games.isEmpty ? [] : ["play 1", "1", "9", "undo", "auto"])
        let transcript = await replTranscript(chapter, commands, language: .ja)
        var offending = EnglishWords.chapterOffendingLines(transcript)
        // The one-shot flags' help (`--help`), and the end of a prediction (answered wrongly on purpose).
        var options = ChapterOptions()
        options.language = .ja
        let flagHelp = Locked<[String]>([])
        let session = Session(chapter: chapter, options: options, terminal: .plain, environment: [:], interactive: false,
                              readLine: { nil }, write: { line in flagHelp.withLock { $0.append(line) } })
        _ = session.perform(.help)
        offending += EnglishWords.chapterOffendingLines(flagHelp.current.joined(separator: "\n"))
        if let predicted = chapter.scenarios.firstIndex(where: { $0.prediction != nil }) {
            let prediction = await replTranscript(chapter, ["timeline off", "predict \(predicted + 1)", "ZZZ"], language: .ja)
            offending += EnglishWords.chapterOffendingLines(prediction)
        }
        #expect(offending.isEmpty, "\(chapter.executable) REPL prints English in ja:\n\(EnglishWords.report(offending))")
    }
}
