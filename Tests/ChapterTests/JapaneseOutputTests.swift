import Foundation
import Testing
import WorkbookCore

/// Finds English words in text meant to be Japanese.
///
/// What counts as code, and so may stay in English:
/// - anything in backticks or quotes (`isFinished`, "downloader", 'list': what the learner typed);
/// - a word that is glued to code punctuation (`main()`, `Thread.current`, `isReady=true`,
///   `@MainActor`, `ch01-gcd`, `T1:` is not: a trailing colon or comma is just punctuation);
/// - a word with a capital letter after its first letter: camelCase and PascalCase identifiers
///   (`waitUntilFinished`, `DispatchQueue`), acronyms (GCD, KVO, SIGILL) and the letter sequences
///   the lessons print (ABC, HNL);
/// - a word with a digit in it (T1, op3, R2, 0x12);
/// - a line of program output quoted by a scenario (`ScenarioContext.quote`), which starts with
///   the quote bar;
/// - the names of the scenarios' knobs, which the learner types (`run 2 window=200`);
/// - the words in `allowed`: code names that appear bare in the Japanese text.
///
/// Everything else made of three or more ASCII letters is an English word.
enum EnglishWords {
    /// Code names that the Japanese text uses bare. Keep it short: a word belongs here only if a
    /// Japanese reader sees it in the lesson's code or types it.
    static let allowed: Set<String> = [
        // Lane names, and Swift or Foundation names a sentence uses as they are.
        "main", "sync", "async", "wait", "notify", "nice", "true", "false", "nil",
        "Thread", "Operation", "Task", "Foundation", "Linux", "Apple", "Swift", "swift", "libdispatch", "Instruments",
        // The operations of chapter 2's start() lesson, by their names in its code.
        "upload", "compress",
        // Names of the steps the lessons' code prints (chapter 2's pipelines).
        "fetch", "parse", "thumbnail", "save", "download", "decode", "resize", "show",
        // The REPL's commands, which the learner types.
        "list", "run", "predict", "explain", "play", "replay", "timeline", "lang", "help", "quit", "auto", "undo",
    ]

    /// Every knob's name: the learner types them, so they are code.
    static let knobNames = Set(allChapters.flatMap(\.scenarios).flatMap(\.knobs).map(\.name))

    /// Where a scenario's quoted program output starts (see `ScenarioContext.quote`).
    static let quoteBars = ["│ ", "| "]

    /// The English words of `line`, in order.
    static func words(in line: String) -> [String] {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if quoteBars.contains(where: { trimmed.hasPrefix($0) }) { return [] }
        var text = line
        for pattern in ["`[^`]*`", "\"[^\"]*\"", "'[^']*'"] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        // Japanese text, arrows and other non-ASCII characters separate words.
        let ascii = String(text.unicodeScalars.map { $0.isASCII ? Character($0) : " " })
        var found: [String] = []
        for token in ascii.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            // A call, `cancel()` or `wait(5 ms)`: a name glued to an opening parenthesis.
            if token.range(of: "[A-Za-z_]\\(", options: .regularExpression) != nil { continue }
            var core = token.trimmingCharacters(in: CharacterSet(charactersIn: ",;:!?'\"()[]{}<>…"))
            while core.hasSuffix(".") { core.removeLast() }  // a full stop, not `.member`
            guard core.count >= 3, !isCode(core) else { continue }
            let letters = core.filter(\.isLetter)
            if letters.count >= 3 && !allowed.contains(core) && !knobNames.contains(core) { found.append(core) }
        }
        return found
    }

    static func isCode(_ word: String) -> Bool {
        if word.contains(where: { "._()=@/\\<>[]{}|$#+*&%~^-'".contains($0) }) { return true }
        if word.contains(where: \.isNumber) { return true }
        if word.dropFirst().contains(where: \.isUppercase) { return true }
        return false
    }

    /// The lines of `text` with English words in them, each with its words.
    static func offendingLines(_ text: String) -> [(line: String, words: [String])] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let words = words(in: String(line))
            return words.isEmpty ? nil : (String(line), words)
        }
    }

    static func report(_ offending: [(line: String, words: [String])]) -> String {
        offending.map { "  [\($0.words.joined(separator: ", "))]  \($0.line)" }.joined(separator: "\n")
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
    _ = await onDedicatedThread { session.perform(.repl) }
    return lines.current.joined(separator: "\n")
}

@Suite("Japanese output", .workbookSelfTest)
struct JapaneseOutputTests {
    @Test("the rule finds English words and lets code names through")
    func theRule() {
        #expect(EnglishWords.words(in: "  結果: final=1 (lost update)") == ["lost", "update"])
        #expect(EnglishWords.words(in: "  T3: C runs") == ["runs"])
        #expect(EnglishWords.words(in: "T1  ●serial queue····●concurrent queue") == ["serial", "queue", "concurrent", "queue"])
        #expect(EnglishWords.words(in: "  T2: main() の中: isReady=true isExecuting=true") == [])
        #expect(EnglishWords.words(in: "`DispatchQueue.main` と \"downloader\" と GCD、ABC、T1、op3") == [])
        #expect(EnglishWords.words(in: "Thread.current.name = oot.default-qos、ch01-gcd --child same-queue-sync") == [])
        #expect(EnglishWords.words(in: "    │ *** Program crashed: Illegal instruction") == [])
        #expect(EnglishWords.words(in: "Racy: 2 つのブロック") == ["Racy"])
    }

    @Test("every scenario's run in --lang ja, timeline included, has no English words outside code names", arguments: allScenarios)
    func scenarioRun(_ name: ScenarioName) async throws {
        let chapter = allChapters[name.chapter - 1]
        let number = try #require(chapter.scenarios.firstIndex { $0.slug == name.slug }) + 1
        let transcript = await replTranscript(chapter, ["run \(number)"], language: .ja)
        let offending = EnglishWords.offendingLines(transcript)
        #expect(offending.isEmpty, "\(name.testDescription) (run \(number)) prints English in ja:\n\(EnglishWords.report(offending))")
    }

    @Test("the REPL's own messages in ja: help, list, explain, predict, errors", arguments: allChapters.map(\.number))
    func replMessages(_ chapterNumber: Int) async {
        let chapter = allChapters[chapterNumber - 1]
        let explains = chapter.scenarios.indices.map { "explain \($0 + 1)" }
        let commands = ["help", "list"] + explains + [
            "run", "run 999", "run 1 no-such-knob=1", "run 1 knob", "predict x", "explain",
            "frobnicate", "timeline", "timeline off", "timeline on", "lang", "lang xx",
            "play", "play x", "play 99", "replay", "replay 1 not-a-token",
        ] + (chapter.games.isEmpty ? [] : ["play 1", "1", "9", "undo", "auto"])
        let transcript = await replTranscript(chapter, commands, language: .ja)
        var offending = EnglishWords.offendingLines(transcript)
        // The one-shot flags' help (`--help`), and the end of a prediction (answered wrongly on purpose).
        var options = ChapterOptions()
        options.language = .ja
        let flagHelp = Locked<[String]>([])
        let session = Session(chapter: chapter, options: options, terminal: .plain, environment: [:], interactive: false,
                              readLine: { nil }, write: { line in flagHelp.withLock { $0.append(line) } })
        _ = session.perform(.help)
        offending += EnglishWords.offendingLines(flagHelp.current.joined(separator: "\n"))
        if let predicted = chapter.scenarios.firstIndex(where: { $0.prediction != nil }) {
            let prediction = await replTranscript(chapter, ["timeline off", "predict \(predicted + 1)", "ZZZ"], language: .ja)
            offending += EnglishWords.offendingLines(prediction)
        }
        #expect(offending.isEmpty, "\(chapter.executable) REPL prints English in ja:\n\(EnglishWords.report(offending))")
    }
}
