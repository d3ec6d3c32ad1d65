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
