/// A line typed at a prompt, without what a terminal sends for keys that are not text.
///
/// The REPL reads whole lines with no line editing, so an arrow key arrives as an escape
/// sequence (`ESC [ A`), Ctrl-L as a form feed: `clean` strips them before the line is parsed,
/// and says whether there were any, so a line of nothing but arrow keys gets a word about it
/// rather than "unknown command".
public struct InputLine: Equatable, Sendable {
    /// The line without escape sequences and control characters (a tab is a space).
    public let text: String
    /// It held an escape sequence: an arrow, Home/End, a function key, Alt with a key.
    public let hadEscapeSequence: Bool

    public init(_ raw: String) {
        var text = ""
        var hadEscape = false
        let scalars = Array(raw.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let value = scalars[index].value
            if value == 0x1B || value == 0x9B {  // ESC, or the 8-bit CSI
                hadEscape = true
                index += 1
                // ESC [ … final (CSI: arrows, Home, Delete, F5…), ESC O x (SS3: arrows, F1–F4
                // in application mode), ESC ] … BEL or ESC \ (OSC), else ESC and one character (Alt).
                let introducer = value == 0x9B ? UInt32(0x5B) : (index < scalars.count ? scalars[index].value : 0)
                if value == 0x1B && index < scalars.count && introducer != 0x1B { index += 1 }  // ESC ESC: Alt with an arrow
                switch introducer {
                case 0x5B:  // CSI: parameter and intermediate bytes, then one final byte 0x40–0x7E
                    while index < scalars.count, (0x20...0x3F).contains(scalars[index].value) { index += 1 }
                    if index < scalars.count, (0x40...0x7E).contains(scalars[index].value) { index += 1 }
                case 0x4F:  // SS3
                    if index < scalars.count { index += 1 }
                case 0x5D:  // OSC
                    while index < scalars.count, scalars[index].value != 0x07, scalars[index].value != 0x1B { index += 1 }
                    if index < scalars.count, scalars[index].value == 0x07 { index += 1 }
                default:
                    break
                }
                continue
            }
            if value == 0x09 {
                text.unicodeScalars.append(" ")
            } else if value >= 0x20 && value != 0x7F && !(0x80...0x9F).contains(value) {
                text.unicodeScalars.append(scalars[index])
            }
            index += 1
        }
        self.text = text
        self.hadEscapeSequence = hadEscape
    }

    /// Nothing left but spaces.
    public var isBlank: Bool { text.allSatisfy { $0 == " " } }
}
