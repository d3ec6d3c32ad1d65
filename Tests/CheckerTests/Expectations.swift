import Testing
import WorkbookChecks
import WorkbookCore

/// Expects `result` to be a failure of exactly `property`; on a mismatch the learner-facing
/// report is attached, so a wrong reason is easy to read.
func expect(_ result: CheckResult, toBreak property: Property, sourceLocation: SourceLocation = #_sourceLocation) {
    switch result {
    case .passed:
        Issue.record("expected the check to fail with '\(property.id)', but it passed", sourceLocation: sourceLocation)
    case let .failed(failure):
        #expect(failure.property.id == property.id,
                "failed for the wrong reason:\n\(Report.failed("variant", failure, terminal: .plain, language: .en))",
                sourceLocation: sourceLocation)
        #expect(!failure.observed.en.isEmpty && !failure.observed.ja.isEmpty, sourceLocation: sourceLocation)
    }
}

/// Answers known to deadlock fail sooner with this.
let shortDeadline = CheckOptions(deadlockSeconds: 1)
