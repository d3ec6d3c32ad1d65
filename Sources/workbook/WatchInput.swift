import Foundation
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the learner types while `workbook watch` runs.
///
/// On a terminal one key is enough (`q` quits at once, no Enter): the terminal is put in
/// non-canonical mode without echo, and put back however the watch ends — `q`, Ctrl-D, Ctrl-C or
/// a termination signal. Piped input is read line by line (`q`, `quit`); its end quits.
final class WatchInput: Sendable {
    enum Key: Equatable, Sendable {
        case quit
        case recheck
        case hint
        case other(String)
        /// End of input (Ctrl-D on a terminal, or the pipe closed).
        case end
    }

    let fromTerminal: Bool

    private init(fromTerminal: Bool) {
        self.fromTerminal = fromTerminal
    }

    /// Starts reading standard input on a thread of its own; `received` is called for each key.
    static func start(_ received: @escaping @Sendable (Key) -> Void) -> WatchInput {
        let fromTerminal = isatty(STDIN_FILENO) == 1 && TerminalMode.enterKeyByKey()
        let input = WatchInput(fromTerminal: fromTerminal)
        Thread.detachNewThread {
            if fromTerminal {
                var keys = KeyDecoder()
                var byte: UInt8 = 0
                while true {
                    let count = read(STDIN_FILENO, &byte, 1)
                    if count < 0 && errno == EINTR { continue }
                    guard count == 1, byte != 4 else {  // 4: Ctrl-D
                        received(.end)
                        return
                    }
                    if let typed = keys.add(byte) { received(key(typed)) }
                }
            } else {
                // Lines read with `read`, not C stdio's `readLine`: a thread blocked in
                // `readLine` holds stdin's lock, and `Console`'s `fflush(nil)` would wait for it.
                var pending: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4_096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    pending += buffer[..<count]
                    while let newline = pending.firstIndex(of: 10) {
                        received(key(String(decoding: pending[..<newline], as: UTF8.self)))
                        pending.removeSubrange(...newline)
                    }
                }
                if !pending.isEmpty { received(key(String(decoding: pending, as: UTF8.self))) }
                received(.end)
            }
        }
        return input
    }

    /// A key (a terminal) or a line (a pipe) as a command; Enter alone re-checks. Full-width
    /// letters (typed with a Japanese input method on) count as their ASCII selves.
    static func key(_ text: String) -> Key {
        if text == "\n" || text == "\r" { return .recheck }
        switch text.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces).lowercased() {
        case "q", "quit", "exit": return .quit
        case "r", "": return .recheck
        case "h", "hint": return .hint
        default: return .other(text)
        }
    }

    /// Turns a terminal's bytes into typed characters: a UTF-8 character once it is whole;
    /// escape sequences (arrow keys, function keys) and control characters other than Enter
    /// are dropped, as are spaces and tabs.
    struct KeyDecoder {
        private var pending: [UInt8] = []
        private var inEscape = false

        mutating func add(_ byte: UInt8) -> String? {
            if inEscape {
                // ESC [ … final byte (0x40–0x7E), or ESC and one more character.
                if pending.isEmpty && byte == UInt8(ascii: "[") || pending.isEmpty && byte == UInt8(ascii: "O") {
                    pending = [byte]
                } else if pending.isEmpty || (0x40...0x7E).contains(byte) {
                    inEscape = false
                    pending = []
                }
                return nil
            }
            if byte == 27 {
                inEscape = true
                pending = []
                return nil
            }
            if byte < 0x80 {
                pending = []
                if byte == 10 || byte == 13 { return "\n" }
                return byte < 32 || byte == 127 || byte == 32 ? nil : String(UnicodeScalar(byte))
            }
            pending.append(byte)
            let expected = pending[0] >= 0xF0 ? 4 : pending[0] >= 0xE0 ? 3 : pending[0] >= 0xC0 ? 2 : 1
            guard pending.count >= expected else { return nil }
            defer { pending = [] }
            return String(validating: pending, as: UTF8.self)
        }
    }

    /// Puts the terminal back as it was.
    func restore() {
        if fromTerminal { TerminalMode.restore() }
    }
}

/// The terminal's settings before the watch changed them, kept where a signal handler can reach.
enum TerminalMode {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var changed = false

    /// Non-canonical, no echo; signals (Ctrl-C) still work. False if the terminal refused.
    static func enterKeyByKey() -> Bool {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
        saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &settings) == 0 else { return false }
        changed = true
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber) { number in
                TerminalMode.restore()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        return true
    }

    static func restore() {
        guard changed else { return }
        var settings = saved
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        changed = false
    }
}
