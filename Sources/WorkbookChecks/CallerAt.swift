import WorkbookCore
import WorkbookExplorer

/// A caller of a check that comes at a set moment: `at` milliseconds of virtual time into the
/// schedule (at once for 0), so the explorer can put it before, inside or after what the others
/// are waiting for.
func arrive(at milliseconds: Int) async {
    if milliseconds > 0 { try? await ExplorerClock().sleep(for: .milliseconds(milliseconds)) }
}

/// What `call` gave: its value, or the error it threw — both are answers a check judges.
func outcome<Value>(of call: () async throws -> Value) async -> Result<Value, any Error> {
    do { return .success(try await call()) } catch { return .failure(error) }
}
