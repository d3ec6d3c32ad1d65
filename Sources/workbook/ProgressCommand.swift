import Foundation
import WorkbookChecks
import WorkbookCore

/// `workbook progress [--json | --markdown]`: the statuses for a facilitator to collect.
///
/// The JSON's shape (schema 1) is stable; new keys may be added, none removed or renamed:
/// ```json
/// { "schema": 1, "generatedAt": "2026-11-24T16:00:00Z",
///   "counts": { "done": 1, "failing": 1, "notStarted": 13, "unknown": 0 },
///   "exercises": [ { "id": "SafeCounter", "chapter": "01-gcd", "status": "done",
///                    "failedProperty": null, "notRun": [], "checkedAt": "2026-11-24T15:58:02Z" } ] }
/// ```
/// `notRun` lists, for a done exercise, the check's probes that could not run on the learner's
/// platform (`PlatformProbe.id`, e.g. `increment-interrupted` on a Mac); empty otherwise.
/// `status` is `done`, `failing`, `not-started`, or `unknown` (the code did not build and the
/// exercise was never checked).
enum ProgressCommand {
    struct Report: Encodable {
        struct Counts: Encodable { var done = 0, failing = 0, notStarted = 0, unknown = 0 }
        struct Exercise: Encodable {
            let id: String
            let chapter: String
            let status: String
            let failedProperty: String?
            let notRun: [String]
            let checkedAt: Date?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(chapter, forKey: .chapter)
                try container.encode(status, forKey: .status)
                try container.encode(failedProperty, forKey: .failedProperty)  // null, not left out
                try container.encode(notRun, forKey: .notRun)
                try container.encode(checkedAt, forKey: .checkedAt)
            }
            enum CodingKeys: String, CodingKey { case id, chapter, status, failedProperty, notRun, checkedAt }
        }
        let schema = 1
        let generatedAt: Date
        var counts = Counts()
        var exercises: [Exercise] = []
    }

    static func run(_ context: CommandContext) throws(UsageError) -> Int32 {
        var state = WorkbookState.load(context.workspace)
        let (verdicts, buildFailure) = context.statuses(state: &state)
        state.save(context.workspace)
        switch context.options.progressFormat {
        case .text:
            Console.line(StatusCommand.block(context, verdicts: verdicts))
        case .json:
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(report(context, verdicts: verdicts, state: state))) ?? Data()
            Console.line(String(decoding: data, as: UTF8.self))
        case .markdown:
            Console.line(markdown(context, report(context, verdicts: verdicts, state: state)))
        }
        if let buildFailure {
            Console.error(StatusCommand.buildFailed(context, buildFailure))
            return 1
        }
        return 0
    }

    static func report(_ context: CommandContext, verdicts: [String: Verdict], state: WorkbookState) -> Report {
        var report = Report(generatedAt: Date())
        for entry in context.workspace.catalog.exercises {
            let verdict = verdicts[entry.id]
            let status = verdict?.status.rawValue ?? "unknown"
            switch verdict?.status {
            case .done: report.counts.done += 1
            case .failing: report.counts.failing += 1
            case .notStarted: report.counts.notStarted += 1
            case nil: report.counts.unknown += 1
            }
            report.exercises.append(.init(id: entry.id, chapter: entry.chapter, status: status,
                                          failedProperty: verdict?.status == .failing ? verdict?.failedProperty : nil,
                                          notRun: verdict?.status == .done ? verdict?.notRun ?? [] : [],
                                          checkedAt: state.verdicts[entry.id]?.checkedAt))
        }
        return report
    }

    static func markdown(_ context: CommandContext, _ report: Report) -> String {
        let header = context.t(Localized("| chapter | exercise | status | failed property |\n|---|---|---|---|",
                                         ja: "| 章 | 演習 | 状態 | 失敗した性質 |\n|---|---|---|---|"))
        let rows = report.exercises.map { "| \($0.chapter) | \($0.id) | \($0.status) | \($0.failedProperty ?? "") |" }
        let counts = context.t(Localized(
            "\(report.counts.done) done, \(report.counts.failing) failing, \(report.counts.notStarted) not started",
            ja: "完了 \(report.counts.done)、失敗 \(report.counts.failing)、未着手 \(report.counts.notStarted)"))
        return ([header] + rows + ["", counts]).joined(separator: "\n")
    }
}
