import Testing
@testable import WorkbookChecks

@Suite("The runner's deadline option")
struct RunnerDeadlineOption {
    @Test("--deadline sets the deadlock deadline a confirming run uses")
    func parses() throws {
        #expect(try RunnerOptions.parse(["SafeCounter", "--deadline", "2.0"]).deadlockSeconds == 2)
        #expect(try RunnerOptions.parse(["SafeCounter"]).deadlockSeconds == nil)
    }

    @Test("a deadline that is missing, not a number, zero, negative or infinite is a usage error",
          arguments: [[], ["x"], ["0"], ["-1"], ["inf"]])
    func rejects(value: [String]) {
        #expect(throws: RunnerOptions.UsageError.self) { try RunnerOptions.parse(["SafeCounter", "--deadline"] + value) }
    }
}
