import Foundation
import WorkbookCore

/// `exercises/exercises.json`: the ordered list of exercises with their files, titles and
/// layered hints, in English and Japanese.
public struct ExerciseCatalog: Decodable, Sendable {
    public struct Text: Decodable, Sendable {
        public let en: String
        public let ja: String
        public var localized: Localized { Localized(en, ja: ja) }
    }

    /// One layer of hints; `properties` names the check properties it helps with, so a failing
    /// verdict shows the hint for the property that failed first.
    public struct Hint: Decodable, Sendable {
        public let en: String
        public let ja: String
        public let properties: [String]
        public var localized: Localized { Localized(en, ja: ja) }

        enum CodingKeys: String, CodingKey { case en, ja, properties }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            en = try container.decode(String.self, forKey: .en)
            ja = try container.decode(String.self, forKey: .ja)
            properties = try container.decodeIfPresent([String].self, forKey: .properties) ?? []
        }
    }

    public struct Entry: Decodable, Sendable {
        public let id: String
        public let chapter: String
        /// The learner's file, relative to the package root.
        public let file: String
        public let title: Text
        /// Spellings the answer may not use (e.g. `nonisolated(unsafe)`), outside comments.
        public let forbids: [String]
        /// From a nudge to nearly the answer.
        public let hints: [Hint]

        /// The reference solution's path: the same path under `Solutions`.
        public var solutionFile: String { file.replacingOccurrences(of: "exercises/Exercises/", with: "exercises/Solutions/") }
    }

    public let exercises: [Entry]

    public static func load(packageRoot: URL) throws -> ExerciseCatalog {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("exercises/exercises.json"))
        return try JSONDecoder().decode(ExerciseCatalog.self, from: data)
    }

    public func entry(_ id: String) -> Entry? { exercises.first { $0.id == id } }
}

extension ExerciseCatalog.Entry {
    /// The hints in the order to show them after `property` failed: the ones written for that
    /// property first — the most specific (naming the fewest properties) before the general
    /// ones, so a race in an answer that has its queue gets "move that access inside", not
    /// "add a queue" — then the rest in their layered order.
    public func hints(after property: String?) -> [ExerciseCatalog.Hint] {
        guard let property else { return hints }
        let matching = hints.enumerated().filter { $0.element.properties.contains(property) }
            .sorted { ($0.element.properties.count, $0.offset) < ($1.element.properties.count, $1.offset) }
            .map(\.element)
        return matching + hints.filter { !$0.properties.contains(property) }
    }
}

/// Why an exercise forbids a spelling: the race-check silencers, or the unchecked continuations
/// whose misuse is undefined behaviour (no check can judge it, so the exercise asks for the
/// checked ones).
public func forbiddenReason(_ spellings: [String]) -> Localized {
    let unchecked = spellings.filter { $0.hasPrefix("withUnsafe") && $0.hasSuffix("Continuation") }
    var english: [String] = [], japanese: [String] = []
    if unchecked.count < spellings.count {
        english.append("`@unchecked Sendable` and `nonisolated(unsafe)` silence the compiler's data-race checks; the exercise asks you to make the code safe instead.")
        japanese.append("`@unchecked Sendable` と `nonisolated(unsafe)` はコンパイラのデータ競合の検査を黙らせるものです。この演習ではコードを安全にすることが求められています。")
    }
    if !unchecked.isEmpty {
        english.append("An unsafe continuation resumed twice is undefined behaviour and one never resumed goes unreported, so no run can tell a right answer from a wrong one; use `withCheckedContinuation` or `withCheckedThrowingContinuation`, which trap or report instead.")
        japanese.append("チェックなしの継続は、2 回再開すると未定義動作になり、再開しなくても何も報告されません。そのため、実行しても正しい答えと誤った答えを見分けられません。代わりに、トラップや報告をしてくれる `withCheckedContinuation` か `withCheckedThrowingContinuation` を使いましょう。")
    }
    return Localized("uses what this exercise forbids. " + english.joined(separator: " "),
                     ja: "この演習で禁止されている書き方を使っています。" + japanese.joined())
}

/// Finds forbidden spellings in Swift source, ignoring comments and string literals.
public func forbiddenSpellings(_ forbidden: [String], in source: String) -> [(spelling: String, line: Int)] {
    var found: [(String, Int)] = []
    for (number, line) in codeLines(source).enumerated() {
        for spelling in forbidden where line.contains(spelling) { found.append((spelling, number + 1)) }
    }
    return found
}

/// The source's lines with comments and string literals blanked out (line numbers kept).
func codeLines(_ source: String) -> [String] {
    var lines: [String] = [], current = ""
    var inBlockComment = 0, inString = false
    var characters = Array(source)[...]
    while let c = characters.popFirst() {
        let next = characters.first
        if c == "\n" {
            lines.append(current)
            current = ""
            continue
        }
        if inBlockComment > 0 {
            if c == "*" && next == "/" { inBlockComment -= 1; characters.removeFirst() }
            else if c == "/" && next == "*" { inBlockComment += 1; characters.removeFirst() }
            continue
        }
        if inString {
            if c == "\\" { characters.popFirst().map { _ in } }
            else if c == "\"" { inString = false }
            continue
        }
        if c == "/" && next == "/" {
            while let n = characters.first, n != "\n" { characters.removeFirst() }
            continue
        }
        if c == "/" && next == "*" { inBlockComment = 1; characters.removeFirst(); continue }
        if c == "\"" { inString = true; continue }
        current.append(c)
    }
    lines.append(current)
    return lines
}
