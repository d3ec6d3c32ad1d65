import Foundation

/// Finds English words in text meant to be Japanese. ChapterTests (the chapters' REPL output)
/// and CheckerTests (the exercise reports) share these rules.
///
/// What counts as code, and so may stay in English:
/// - anything in backticks or quotes (`isFinished`, "downloader", 'list': what the learner typed);
/// - a call with its arguments (`transfer(52, from: 1, to: 2)`, `wait(5 ms)`);
/// - a word that is glued to code punctuation (`main()`, `Thread.current`, `isReady=true`,
///   `@MainActor`, `ch01-gcd`, `T1:` is not: a trailing colon or comma is just punctuation);
/// - a word with a capital letter after its first letter: camelCase and PascalCase identifiers
///   (`waitUntilFinished`, `DispatchQueue`), acronyms (GCD, KVO, SIGILL) and the letter sequences
///   the lessons print (ABC, HNL);
/// - a word with a digit in it (T1, op3, R2, 0x12);
/// - a line of program output quoted by a scenario (`ScenarioContext.quote`), which starts with
///   the quote bar;
/// - the words in `allowed`, and those a caller adds (`alsoAllowed`: a chapter's knob names, an
///   exercise's code names): code names that appear bare in the Japanese text.
///
/// Everything else made of three or more ASCII letters is an English word.
public enum EnglishWords {
    /// Code names that the Japanese text uses bare. Keep it short: a word belongs here only if a
    /// Japanese reader sees it in the lesson's code or types it.
    public static let allowed: Set<String> = [
        // Lane names, and Swift or Foundation names a sentence uses as they are.
        "main", "sync", "async", "await", "wait", "notify", "nice", "true", "false", "nil",
        "Thread", "Operation", "Task", "Foundation", "Linux", "Apple", "Swift", "swift", "libdispatch", "Instruments", "Xcode",
        // The operations of chapter 2's start() lesson, by their names in its code.
        "upload", "compress",
        // Names of the steps the lessons' code prints (chapter 2's pipelines).
        "fetch", "parse", "thumbnail", "save", "download", "decode", "resize", "show",
        // The REPL's commands, which the learner types.
        "list", "run", "predict", "explain", "play", "replay", "timeline", "lang", "help", "quit", "auto", "undo", "svg",
    ]

    /// Where a scenario's quoted program output starts (see `ScenarioContext.quote`).
    public static let quoteBars = ["│ ", "| "]

    /// The English words of `line`, in order.
    public static func words(in line: String, alsoAllowed: Set<String> = []) -> [String] {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if quoteBars.contains(where: { trimmed.hasPrefix($0) }) { return [] }
        var text = line
        for pattern in ["`[^`]*`", "\"[^\"]*\"", "'[^']*'", "[A-Za-z_][A-Za-z0-9_.]*\\([^()]*\\)"] {
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
            if letters.count >= 3 && !allowed.contains(core) && !alsoAllowed.contains(core) { found.append(core) }
        }
        return found
    }

    public static func isCode(_ word: String) -> Bool {
        if word.contains(where: { "._()=@/\\<>[]{}|$#+*&%~^-'".contains($0) }) { return true }
        if word.contains(where: \.isNumber) { return true }
        if word.dropFirst().contains(where: \.isUppercase) { return true }
        return false
    }

    /// The lines of `text` with English words in them, each with its words. Lines for which
    /// `isQuoted` is true (another program's words, a line of source code) are skipped.
    public static func offendingLines(_ text: String, alsoAllowed: Set<String> = [],
                                      isQuoted: (String) -> Bool = { _ in false }) -> [(line: String, words: [String])] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let line = String(line)
            if isQuoted(line) { return nil }
            let words = words(in: line, alsoAllowed: alsoAllowed)
            return words.isEmpty ? nil : (line, words)
        }
    }

    public static func report(_ offending: [(line: String, words: [String])]) -> String {
        offending.map { "  [\($0.words.joined(separator: ", "))]  \($0.line)" }.joined(separator: "\n")
    }
}
