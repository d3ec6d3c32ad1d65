import Foundation

/// A chapter executable: a numbered list of scenarios handed to the shared REPL.
public struct Chapter: Sendable {
    public let number: Int
    public let executable: String
    public let title: Localized
    public let scenarios: [Scenario]
    /// Scheduling games for `play N`, numbered separately from the scenarios.
    public let games: [Game]
    /// Helper subprocesses a scenario may start with `--child NAME` (e.g. to show a crash safely).
    public let children: [String: @Sendable () -> Never]

    public init(number: Int, executable: String, title: Localized, scenarios: [Scenario], games: [Game] = [],
                children: [String: @Sendable () -> Never] = [:]) {
        self.number = number
        self.executable = executable
        self.title = title
        self.scenarios = scenarios
        self.games = games
        self.children = children
        let slugs = scenarios.map(\.slug)
        precondition(Set(slugs).count == slugs.count, "two scenarios share a slug")
    }

    /// The entry point of a chapter executable: parses flags, then runs the REPL or one action.
    ///
    /// The main thread keeps a run loop turning, so `DispatchQueue.main` and `@MainActor` work
    /// in scenarios runs on the real main thread; the REPL itself runs on a background thread.
    public func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let options: ChapterOptions
        do {
            options = try ChapterOptions.parse(arguments)
        } catch {
            // `--lang` may come after the mistake: read it from the arguments as they are.
            let asked = arguments.firstIndex(of: "--lang").flatMap { arguments.indices.contains($0 + 1) ? Language(rawValue: arguments[$0 + 1]) : nil }
            let language = asked ?? Language.fromEnvironment()
            let hint = Localized("`swift run \(executable) --help` lists the options.", ja: "オプションの一覧は `swift run \(executable) --help` で確認できます。")
            writeError("\(executable): \(error.message.text(language))\n\(hint.text(language))")
            exit(2)
        }
        if case let .child(name) = options.action {
            guard let child = children[name] else {
                writeError("\(executable): no child '\(name)'")
                exit(2)
            }
            child()
        }
        let chapter = self
        Thread.detachNewThread {
            let session = Session(chapter: chapter, options: options, terminal: Terminal.detect(), write: Console.line)
            let code = session.perform(options.action)
            exit(code)
        }
        RunLoop.main.add(Timer(timeInterval: 86_400, repeats: true) { _ in }, forMode: .default)
        while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
    }
}

func writeError(_ message: String) { Console.error(message) }
