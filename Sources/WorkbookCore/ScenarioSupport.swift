import Dispatch
import Foundation

// Helpers every chapter's scenarios use.

/// Keeps the calling thread busy for about `microseconds`, so a block's span is wide enough to
/// see on the timeline.
///
/// Busy work, not sleep: the scenarios never sleep to force an order (semaphores, groups and
/// barriers do that). Spinning only makes work take visible time, the way real work does.
public func spin(microseconds: Int) {
    guard microseconds > 0 else { return }
    let end = MonotonicClock.now() + UInt64(microseconds) * 1_000
    while MonotonicClock.now() < end {}
}

/// Runs a scenario's blocking body (semaphore and group waits, `sync`) on a thread of its own.
///
/// Scenario bodies are `async`; waiting on a semaphore there would park one of the few Swift
/// concurrency threads, which other work (and other tests) may need. A dedicated thread can
/// wait as long as it likes. It shows up on the timeline as the first lane, `T1`: the caller.
public func blocking(_ body: @escaping @Sendable () throws -> Void) async throws {
    let outcome: Result<Void, any Error> = await onDedicatedThread { Result { try body() } }
    try outcome.get()
}

/// A wait that should have ended long ago: the scenario stops instead of hanging the REPL.
public struct ScenarioStuck: Error, CustomStringConvertible {
    public let what: Localized
    public init(what: Localized) { self.what = what }
    public var description: String { "\(what.en) / \(what.ja)" }
}

/// Waits for `semaphore`, giving up after `seconds` with `ScenarioStuck`.
public func wait(for semaphore: DispatchSemaphore, seconds: Double = 5, _ what: Localized) throws {
    guard semaphore.wait(timeout: .now() + seconds) == .success else { throw ScenarioStuck(what: what) }
}

/// Waits for `group`, giving up after `seconds` with `ScenarioStuck`.
public func wait(for group: DispatchGroup, seconds: Double = 5, _ what: Localized) throws {
    guard group.wait(timeout: .now() + seconds) == .success else { throw ScenarioStuck(what: what) }
}

extension ScenarioContext {
    /// "Prints" a line the way the lesson's code would, prefixed with the lane, like `emit`, but
    /// without a point on the trace: for work already drawn as a span, whose end marks the moment
    /// (a point right behind a span would crowd the label of the next one).
    public func printLine(_ text: String, lane: String) { show("  \(lane): \(text)") }

    /// `printLine` for a line in words, in the learner's language.
    public func printLine(_ text: Localized, lane: String) { printLine(text.text(language), lane: lane) }
}

extension ScenarioContext {
    /// Runs one of the chapter's child bodies (`<executable> --child <name>`) in a process of its
    /// own, so that a trap or a hang in it becomes a report instead of the end of the REPL.
    /// Says why and returns nil when the program is not found or cannot start.
    public func runChild(_ name: String, of executable: String, backtrace: String = "enable=no",
                         environment extra: [String: String] = [:], timeoutSeconds: Double = 10) -> ChildProcess.Outcome? {
        let program: URL
        switch ChildProcess.locate(named: executable) {
        case .success(let found): program = found
        case .failure(let notFound):
            let message = notFound.message(then: Localized("This part is skipped.", ja: "この部分は省略します。"))
            // Indented like the lesson's other lines; the paths one level deeper.
            func indent(_ text: String) -> String { text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") }
            say(Localized(indent(message.en), ja: indent(message.ja)))
            return nil
        }
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["SWIFT_BACKTRACE"] = backtrace
        do {
            return try ChildProcess(executable: program, arguments: ["--child", name], environment: environment)
                .run(timeoutSeconds: timeoutSeconds)
        } catch {
            say(Localized("  The child could not start: \(error)", ja: "  子プロセスを起動できませんでした: \(error)"))
            return nil
        }
    }
}
