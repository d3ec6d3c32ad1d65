import WorkbookCore

/// What `workbook` was asked to do: a command, its operands and the global flags.
struct WorkbookOptions: Equatable {
    enum Command: String, CaseIterable {
        case status, check, watch, hint, reset, solution, progress, session, help
    }

    enum ProgressFormat: Equatable { case text, json, markdown }

    var command: Command = .status
    var operands: [String] = []
    var language: Language? = nil
    var force = false
    var progressFormat: ProgressFormat = .text
    var noColor = false
    var wantsHelp = false

    struct ParseError: Error, Equatable {
        let message: Localized
    }

    static func parse(_ arguments: [String]) throws(ParseError) -> WorkbookOptions {
        var options = WorkbookOptions()
        var sawCommand = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--help", "-h": options.wantsHelp = true
            case "--force": options.force = true
            case "--json", "--markdown":
                let format: ProgressFormat = argument == "--json" ? .json : .markdown
                guard options.progressFormat == .text || options.progressFormat == format else {
                    throw ParseError(message: Localized("--json and --markdown: choose one", ja: "--json と --markdown はどちらか一方だけを指定してください"))
                }
                options.progressFormat = format
            case "--no-color": options.noColor = true
            case "--lang":
                guard let value = rest.popFirst() else {
                    throw ParseError(message: Localized("--lang needs en or ja", ja: "--lang には en か ja を指定してください"))
                }
                guard let language = Language(rawValue: value) else {
                    throw ParseError(message: Localized("--lang \(value): use en or ja", ja: "--lang \(value): en か ja を指定してください"))
                }
                options.language = language
            case let flag where flag.hasPrefix("-"):
                throw ParseError(message: Localized("unknown option '\(flag)'", ja: "不明なオプション '\(flag)'"))
            case let word where !sawCommand:
                guard let command = Command(rawValue: word) else {
                    let near = closest(to: word, in: Command.allCases.map(\.rawValue))
                    throw ParseError(message: Localized(
                        "unknown command '\(word)'" + (near.map { " (did you mean '\($0)'?)" } ?? ""),
                        ja: "不明なコマンド '\(word)'" + (near.map { "（'\($0)' のことですか？）" } ?? "")))
                }
                options.command = command
                sawCommand = true
            case let word:
                options.operands.append(word)
            }
        }
        if options.command == .help { options.wantsHelp = true }
        try options.validate()
        return options
    }

    private func validate() throws(ParseError) {
        let maxOperands: Int = switch command {
        case .status, .watch, .progress, .help: 0
        case .check, .hint, .reset, .solution, .session: 1
        }
        if operands.count > maxOperands {
            throw ParseError(message: Localized("too many arguments for '\(command.rawValue)': \(operands.joined(separator: " "))",
                                                ja: "'\(command.rawValue)' の引数が多すぎます: \(operands.joined(separator: " "))"))
        }
        if [.hint, .reset, .solution, .session].contains(command) && operands.isEmpty && !wantsHelp {
            let what = command == .session ? Localized("a chapter number, e.g. 05", ja: "章の番号（例: 05）") : Localized("an exercise, e.g. SafeCounter", ja: "演習（例: SafeCounter）")
            throw ParseError(message: Localized("'\(command.rawValue)' needs \(what.en)", ja: "'\(command.rawValue)' には\(what.ja)を指定してください"))
        }
        if force && command != .solution {
            throw ParseError(message: Localized("--force is for 'solution' only", ja: "--force は 'solution' だけに使えます"))
        }
        if progressFormat != .text && command != .progress {
            throw ParseError(message: Localized("--json and --markdown are for 'progress' only", ja: "--json と --markdown は 'progress' だけに使えます"))
        }
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a typo.
func closest(to word: String, in candidates: [String]) -> String? {
    let lowered = word.lowercased()
    let scored = candidates.map { ($0, editDistance(lowered, $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, lowered.count / 3) ? best.0 : nil
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
