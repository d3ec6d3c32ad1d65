import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the output device can show: colour, Unicode box drawing, width.
public struct Terminal: Sendable {
    public var usesColor: Bool
    public var usesUnicode: Bool
    public var width: Int

    public init(usesColor: Bool, usesUnicode: Bool, width: Int) {
        self.usesColor = usesColor
        self.usesUnicode = usesUnicode
        self.width = width
    }

    /// Plain text: no colour, ASCII only, 80 columns. Used by tests and pipes.
    public static let plain = Terminal(usesColor: false, usesUnicode: false, width: 80)

    /// Detects standard output: colour only on a TTY without `NO_COLOR` and with a `TERM` other
    /// than `dumb`; Unicode unless the locale says otherwise; width from the TTY, else `COLUMNS`,
    /// else 80.
    public static func detect(environment: [String: String] = ProcessInfo.processInfo.environment,
                              fileDescriptor: Int32 = STDOUT_FILENO) -> Terminal {
        let isTTY = isatty(fileDescriptor) == 1
        let term = environment["TERM"] ?? ""
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let locale = environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] ?? ""
        let asciiLocale = locale == "C" || locale == "POSIX" || (!locale.isEmpty && !locale.uppercased().contains("UTF"))
        return Terminal(
            usesColor: isTTY && !noColor && term != "dumb",
            usesUnicode: !asciiLocale && term != "dumb",
            width: max(40, min(terminalColumns(isTTY: isTTY, fileDescriptor: fileDescriptor, environment: environment), 200))
        )
    }

    private static func terminalColumns(isTTY: Bool, fileDescriptor: Int32, environment: [String: String]) -> Int {
        if isTTY, let columns = ttyColumns(fileDescriptor) { return columns }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// The width of the terminal on `fileDescriptor` now; nil when it is not a terminal.
    public static func ttyColumns(_ fileDescriptor: Int32 = STDOUT_FILENO) -> Int? {
        var size = winsize()
        guard isatty(fileDescriptor) == 1, ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Follows a terminal resized since the last line (the REPL asks before each prompt).
    public mutating func followResize(_ fileDescriptor: Int32 = STDOUT_FILENO) {
        if let columns = Self.ttyColumns(fileDescriptor) { width = max(40, min(columns, 200)) }
    }

    public enum Style: String, Sendable {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    }

    /// `text` in `style` when colour is on, else unchanged.
    public func paint(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// Display width of a string in terminal cells: East Asian wide characters take two.
public func displayWidth(_ s: String) -> Int {
    s.unicodeScalars.reduce(0) { width, scalar in
        let v = scalar.value
        if v < 0x20 || (0x300...0x36F).contains(v) { return width }
        let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v)
        return width + (wide ? 2 : 1)
    }
}

/// Pads `s` with spaces to `width` display cells.
public func padded(_ s: String, to width: Int) -> String {
    s + String(repeating: " ", count: max(0, width - displayWidth(s)))
}

/// A row of a table, indented two spaces: each cell padded to its column's width (display cells,
/// so Japanese lines up); the last cell as it is.
public func tableRow(_ cells: [String], widths: [Int]) -> String {
    "  " + zip(cells, widths + [0]).map { padded($0, to: $1) }.joined()
}

/// `text` after `prefix`, broken so no line is wider than `width`; the lines after the first are
/// indented as far as the prefix.
///
/// English breaks at spaces; Japanese between any two characters, except that closing
/// punctuation (、。）」…) never starts a line and opening brackets never end one. A run of ASCII
/// (a word, a number, `code in backticks`) is kept whole unless it is longer than a line; then it
/// is cut, or with `keepsLongTokens` left whole on a line of its own (a command or a replay token
/// to copy: a terminal's own wrapping keeps it one line when copied, a cut would not).
public func wrap(_ text: String, prefix: String = "", width: Int, keepsLongTokens: Bool = false) -> [String] {
    let indent = displayWidth(prefix)
    let room = width - indent
    guard displayWidth(prefix + text) > width, room >= 10 else { return [prefix + text] }

    // Tokens that must stay together, each with whether a space came before it.
    var tokens: [(text: String, spaceBefore: Bool)] = []
    var current = "", spaceBefore = false, inCode = false
    func finish() {
        if !current.isEmpty { tokens.append((current, spaceBefore)) }
        current = ""
        spaceBefore = false
    }
    // Small kana (ッ, ょ …) never start a line either: `デ` / `ッドロック` reads as two words.
    let closing: Set<Character> = Set(["、", "。", "，", "．", "）", "」", "』", "】", "！", "？", "：", "；", "ー", "…", ")", ",", ".", ":", ";", "!", "?"]
        + Array("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"))
    let opening: Set<Character> = ["（", "「", "『", "【"]
    let characters = Array(text)
    /// A space that does not break: inside a short ASCII group such as `(a, x)` (its `)` at most
    /// eight characters on), or between a number and its unit (`20 ms`).
    func holdsTogether(_ index: Int) -> Bool {
        let after = characters[(index + 1)...]
        if current.filter({ $0 == "(" }).count > current.filter({ $0 == ")" }).count,
           let close = after.prefix(8).firstIndex(of: ")"), !after[..<close].contains("(") {
            return true
        }
        let units: Set<String> = ["ns", "µs", "μs", "ms", "s", "%"]
        if !current.isEmpty, current.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), current.first!.isNumber {
            let word = String(after.prefix { $0.isLetter || $0 == "%" })
            return units.contains(word)
        }
        return false
    }
    for (index, character) in characters.enumerated() {
        if inCode {
            current.append(character)
            if character == "`" { inCode = false }
            continue
        }
        if character == " " && !current.isEmpty && holdsTogether(index) {
            current.append(character)
        } else if character == " " {
            finish()
            spaceBefore = true
        } else if character == "`" {
            if !current.isEmpty && !(current.last.map { $0.isASCII } ?? false) && !opening.contains(current.last!) { finish() }
            current.append(character)
            inCode = true
        } else if character.isASCII {
            if let last = current.last, !last.isASCII, !opening.contains(last) { finish() }
            current.append(character)
        } else if closing.contains(character) {
            if current.isEmpty, let last = tokens.popLast() {  // never at the start of a line
                current = last.text
                spaceBefore = last.spaceBefore
            }
            current.append(character)
        } else {
            if let last = current.last, !opening.contains(last) { finish() }
            current.append(character)
        }
    }
    finish()

    /// The tokens in lines of at most `room` cells after the indent.
    func fill(_ room: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        func flush() {
            lines.append((lines.isEmpty ? prefix : String(repeating: " ", count: indent)) + line)
            line = ""
        }
        for token in tokens {
            let candidate = line.isEmpty ? token.text : line + (token.spaceBefore ? " " : "") + token.text
            if displayWidth(candidate) <= room {
                line = candidate
                continue
            }
            if !line.isEmpty { flush() }
            var rest = token.text
            while !keepsLongTokens && displayWidth(rest) > room {  // a token longer than a line: cut it
                var head = ""
                for character in rest {
                    if displayWidth(head + String(character)) > room { break }
                    head.append(character)
                }
                // Code is cut at a space inside it, each piece in backticks of its own.
                if rest.hasPrefix("`"), let space = head.dropLast().lastIndex(of: " "), space > head.startIndex {
                    let kept = String(head[..<space])
                    line = kept + "`"
                    flush()
                    rest = "`" + rest.dropFirst(kept.count + 1)
                    continue
                }
                line = head
                flush()
                rest = String(rest.dropFirst(head.count))
            }
            line = rest
        }
        if !line.isEmpty || lines.isEmpty { flush() }
        return lines
    }
    var lines = fill(room)
    // Japanese does not end on a line of a character or two (`…1 ジョブず` / `つ:`): where it
    // would, the lines give up a little room so the last one takes more.
    func isOrphan(_ line: String) -> Bool {
        let content = String(line.dropFirst(indent))
        return displayWidth(content) <= 4 && content.contains { !$0.isASCII }
    }
    if lines.count >= 2, isOrphan(lines.last!) {
        for narrower in stride(from: room - 2, through: max(10, room - 10), by: -2) {
            let candidate = fill(narrower)
            if candidate.count == lines.count && !isOrphan(candidate.last!) {
                lines = candidate
                break
            }
        }
    }
    return lines
}

/// `text` as `wrap` breaks it, paragraph by paragraph (at its newlines): the first line after
/// `prefix`, every other line indented as far as the prefix (a hanging indent).
public func wrapParagraphs(_ text: String, prefix: String = "", width: Int, keepsLongTokens: Bool = false) -> [String] {
    let indent = String(repeating: " ", count: displayWidth(prefix))
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().flatMap { index, paragraph in
        wrap(String(paragraph), prefix: index == 0 ? prefix : indent, width: width, keepsLongTokens: keepsLongTokens)
    }
}

/// Japanese prose with the spaces a sentence built from pieces can leave where Japanese
/// typesetting has none: after a full-width closing bracket and before a full-width opening
/// one, next to Japanese text (`SIGILL（…トラップ） で終了` → `SIGILL（…トラップ）で終了`,
/// `のは 「…」` → `のは「…」`). Spaces beside ASCII (`子プロセスは SIGILL`) and runs of
/// spaces (alignment) stay.
public func tidyJapaneseSpacing(_ text: String) -> String {
    let characters = Array(text)
    guard characters.count >= 3 else { return text }
    let closing: Set<Character> = ["）", "」", "』", "】"]
    let opening: Set<Character> = ["（", "「", "『", "【"]
    func isJapanese(_ character: Character) -> Bool { !character.isASCII && !character.isWhitespace }
    var result = ""
    for (index, character) in characters.enumerated() {
        if character == " ", index > 0, index + 1 < characters.count {
            let before = characters[index - 1], after = characters[index + 1]
            let single = before != " " && after != " "
            if single && isJapanese(before) && isJapanese(after) && (closing.contains(before) || opening.contains(after)) { continue }
        }
        result.append(character)
    }
    return result
}
