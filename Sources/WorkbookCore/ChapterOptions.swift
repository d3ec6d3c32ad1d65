/// The flags every chapter executable accepts.
public struct ChapterOptions: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case repl
        case list
        case help
        case run(number: Int, knobs: [String: Int])
        case all
        /// Internal: a helper subprocess a scenario starts (e.g. to show a crash safely).
        case child(name: String)
    }

    public var action: Action = .repl
    public var language: Language?
    public var noColor = false
    public var seed: UInt64 = 1
    /// With `--run`: where to write the run's timeline as an SVG picture.
    public var svgPath: String?

    public init() {}

    public struct ParseError: Error, Equatable {
        public let message: Localized
    }

    /// Parses `arguments` (without the program name).
    public static func parse(_ arguments: [String]) throws(ParseError) -> ChapterOptions {
        var options = ChapterOptions()
        var rest = arguments[...]
        func value(for flag: String) throws(ParseError) -> String {
            guard let value = rest.popFirst(), !value.hasPrefix("--") else {
                throw ParseError(message: Localized("\(flag) needs a value", ja: "\(flag) には値が必要です"))
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--list": options.action = .list
            case "--all": options.action = .all
            case "--help", "-h": options.action = .help
            case "--no-color": options.noColor = true
            case "--lang":
                let text = try value(for: argument)
                guard let language = Language(rawValue: text) else {
                    throw ParseError(message: Localized("--lang takes en or ja, not '\(text)'", ja: "--lang には en か ja を指定します（'\(text)' は不可）"))
                }
                options.language = language
            case "--seed":
                let text = try value(for: argument)
                guard let seed = UInt64(text) else {
                    throw ParseError(message: Localized("--seed takes a whole number ≥ 0, not '\(text)'", ja: "--seed には 0 以上の整数を指定します（'\(text)' は不可）"))
                }
                options.seed = seed
            case "--run":
                let text = try value(for: argument)
                guard let number = Int(text), number > 0 else {
                    throw ParseError(message: Localized("--run takes a scenario number, not '\(text)'", ja: "--run にはシナリオ番号を指定します（'\(text)' は不可）"))
                }
                var knobs: [String: Int] = [:]
                while let next = rest.first, !next.hasPrefix("--") {
                    rest.removeFirst()
                    do throws(KnobError) {
                        let (name, value) = try parseKnob(next)
                        knobs[name] = value
                    } catch {
                        throw ParseError(message: error.message)
                    }
                }
                options.action = .run(number: number, knobs: knobs)
            case "--child":
                options.action = .child(name: try value(for: argument))
            case "--svg":
                options.svgPath = try value(for: argument)
            default:
                throw ParseError(message: Localized("unknown option '\(argument)'", ja: "不明なオプション '\(argument)'"))
            }
        }
        if options.svgPath != nil {
            guard case .run = options.action else {
                throw ParseError(message: Localized("--svg needs --run N: it writes the timeline of that run",
                                                    ja: "--svg は --run N と一緒に指定します（その実行のタイムラインを書き出します）"))
            }
        }
        return options
    }
}

/// `iterations=500` → ("iterations", 500).
func parseKnob(_ text: String) throws(KnobError) -> (String, Int) {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]) else { throw .malformed(text) }
    return (parts[0], value)
}
