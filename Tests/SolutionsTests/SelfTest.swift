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
