import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// The workbook's own tests (chapters, checks, references) run only with
    /// `WORKBOOK_SELF_TEST=1 swift test` (CI sets it), so a learner's `swift test` stays quick
    /// and shows only their exercises.
    static var workbookSelfTest: Self {
        .enabled(if: ["1", "full"].contains(ProcessInfo.processInfo.environment["WORKBOOK_SELF_TEST"] ?? ""),
                 "the workbook's own test: run with WORKBOOK_SELF_TEST=1")
    }
}

enum SelfTest {
    /// `WORKBOOK_SELF_TEST=full`: every variant as on Apple platforms and every corpus body
    /// through both runners. CI's `WORKBOOK_SELF_TEST=1` runs a sample of those two (one variant
    /// per exercise and property; the buggy bodies without TSan), to stay within its time.
    static let isFull = ProcessInfo.processInfo.environment["WORKBOOK_SELF_TEST"] == "full"
}
