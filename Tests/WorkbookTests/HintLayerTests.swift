import Foundation
import Testing
import WorkbookChecks
@testable import workbook

@Suite("workbook hint's layers")
struct HintLayerTests {
    static let catalog = try! ExerciseCatalog.load(packageRoot: URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())

    func hints(_ id: String, after property: String?) -> [ExerciseCatalog.Hint] {
        Self.catalog.entry(id)!.hints(after: property)
    }

    @Test("after a failure, the first hint asked for is the one after the report's")
    func afterFailure() {
        let ordered = hints("FanOut", after: "completion-count")
        #expect(ordered[0].properties == ["completion-count"])
        #expect(HintCommand.firstUnseenLayer(ordered, failed: "completion-count") == 1)
    }

    @Test("with no failure, or a property no hint is about, hints start at the first")
    func fromTheStart() {
        #expect(HintCommand.firstUnseenLayer(hints("FanOut", after: nil), failed: nil) == 0)
        #expect(HintCommand.firstUnseenLayer(hints("FanOut", after: "crash"), failed: "crash") == 0)
    }
}
