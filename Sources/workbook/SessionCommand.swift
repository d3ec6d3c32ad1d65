import Foundation
import WorkbookCore

/// `workbook session NN`: the facilitator's plan for chapter NN — the very file of the
/// facilitator guide (`docs/sessions/NN-….md`, Japanese under `docs/ja/sessions/`), so the two
/// never drift.
enum SessionCommand {
    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        let operand = context.options.operands[0]
        guard let number = Int(operand), (1...99).contains(number) else {
            throw UsageError(message: Localized("'\(operand)' is not a chapter number (e.g. 05)", ja: "'\(operand)' は章の番号ではありません（例: 05）"))
        }
        let folder = context.language == .ja ? "docs/ja/sessions" : "docs/sessions"
        let prefix = String(format: "%02d-", number)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: context.workspace.url(folder).path)) ?? []
        guard let file = files.sorted().first(where: { $0.hasPrefix(prefix) && $0.hasSuffix(".md") }),
              let text = context.workspace.contents(of: "\(folder)/\(file)") else {
            let have = files.filter { $0.first?.isNumber == true }.sorted().joined(separator: ", ")
            throw UsageError(message: Localized("no session plan for chapter \(String(format: "%02d", number)) (there are: \(have))",
                                                ja: "第 \(String(format: "%02d", number)) 章の進行台本はありません（あるもの: \(have)）"))
        }
        Console.line(text)
        return 0
    }
}
