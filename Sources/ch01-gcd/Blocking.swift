import Dispatch
import WorkbookCore

/// Runs a scenario's blocking body (semaphore and group waits, `sync`) on a thread of its own.
///
/// Scenario bodies are `async`; waiting on a semaphore there would park one of the few Swift
/// concurrency threads, which other work (and other tests) may need. A dedicated thread can
/// wait as long as it likes. It shows up on the timeline as the first lane, `T1`: the caller.
func blocking(_ body: @escaping @Sendable () throws -> Void) async throws {
    let outcome: Result<Void, any Error> = await onDedicatedThread { Result { try body() } }
    try outcome.get()
}

/// A wait that should have ended long ago: the scenario stops instead of hanging the REPL.
struct ScenarioStuck: Error, CustomStringConvertible {
    let what: Localized
    var description: String { "\(what.en) / \(what.ja)" }
}

/// Waits for `semaphore`, giving up after `seconds` with `ScenarioStuck`.
func wait(for semaphore: DispatchSemaphore, seconds: Double = 5, _ what: Localized) throws {
    guard semaphore.wait(timeout: .now() + seconds) == .success else { throw ScenarioStuck(what: what) }
}

/// Waits for `group`, giving up after `seconds` with `ScenarioStuck`.
func wait(for group: DispatchGroup, seconds: Double = 5, _ what: Localized) throws {
    guard group.wait(timeout: .now() + seconds) == .success else { throw ScenarioStuck(what: what) }
}
