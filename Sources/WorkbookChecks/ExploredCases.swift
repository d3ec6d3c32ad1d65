import Foundation
import WorkbookCore
import WorkbookExplorer

/// The explored cases of one check run, numbered as they run (1, 2, …), and the one case a run
/// replays: `exercise-runner OrderedThumbnails --replay 3:w1d:0x9` runs case 3 on that schedule
/// alone — after an edit, the schedule that failed runs again, without the search.
public enum ExploredCases {
    /// What a replay came to.
    public struct Replayed: Sendable {
        public let number: Int
        public let token: ReplayToken
        /// The outcome the schedule ended with, in both languages.
        public let outcome: String
        public let failure: CheckFailure?
    }

    /// How far the search of one case went (a case replayed alone has none).
    public struct Searched: Sendable {
        public let schedules: Int
        public let depth: Explorer.Depth
    }

    private struct State {
        var started = 0
        var searched: [Searched] = []
        var request: (number: Int, token: ReplayToken)?
        var replayed: Replayed?
    }
    private static let state = Locked(State())

    /// Asks the next check run to replay case `number` on `token`, and to skip the others.
    public static func replay(case number: Int, token: ReplayToken) {
        state.withLock { $0.request = (number, token) }
    }

    /// The replayed case, once it ran.
    public static var replayed: Replayed? { state.withLock { $0.replayed } }

    /// How many explored cases the run reached.
    public static var count: Int { state.withLock { $0.started } }

    /// A case begins: its number, and the token to replay it with, if this is the one.
    static func begin(title: Localized?) -> (number: Int, replay: ReplayToken?, skip: Bool) {
        state.withLock { state in
            state.started += 1
            ScheduleJournal.noteCase(state.started, title: title.map { BilingualLabel.join($0.en, $0.ja) } ?? "")
            guard let request = state.request else { return (state.started, nil, false) }
            return (state.started, request.number == state.started ? request.token : nil, request.number != state.started)
        }
    }

    static func record(_ replayed: Replayed) {
        state.withLock { $0.replayed = replayed }
    }

    static func record(_ searched: Searched) {
        state.withLock { $0.searched.append(searched) }
    }

    /// How far the searches of this run went, as a "done" verdict says it; nil if nothing was explored.
    public static var searchSummary: Localized? {
        let searched = state.withLock { $0.searched }
        guard !searched.isEmpty else { return nil }
        let schedules = searched.reduce(0) { $0 + $1.schedules }
        let whole = searched.filter { $0.depth.everySchedule }
        let single = whole.filter { $0.schedules == 1 }.count
        let partial = searched.filter { !$0.depth.everySchedule }
        var en = "Explored \(searched.count) \(searched.count == 1 ? "case" : "cases") in \(schedules) schedules"
        var ja = "\(searched.count) ケースを \(schedules) 個のスケジュールで探索しました"
        if !whole.isEmpty {
            en += ": every schedule there is in \(whole.count)"
            ja += "。\(whole.count) ケースはありうるスケジュールをすべて実行"
            if single > 0 {
                en += " (\(single) had just one: no two of its tasks were ever ready at once)"
                ja += "（うち \(single) ケースはスケジュールが 1 つだけ: 2 つのタスクが同時に実行可能になることがありませんでした）"
            }
        }
        if let shallowest = partial.min(by: { ($0.depth.completeBound ?? -1) < ($1.depth.completeBound ?? -1) }) {
            let bound = shallowest.depth.completeBound.map { Localized("every schedule with at most \($0) preemption(s)", ja: "プリエンプション \($0) 回以下のすべてのスケジュール") }
                ?? Localized("not even every schedule without preemption", ja: "プリエンプションなしのスケジュールすら網羅できず")
            let sampled = Localized("then \(shallowest.depth.randomSchedules) random and \(shallowest.depth.pctSchedules) PCT schedules",
                                    ja: "その後ランダム \(shallowest.depth.randomSchedules) 個と PCT \(shallowest.depth.pctSchedules) 個")
            if whole.isEmpty {
                en += ": the least searched of them: \(bound.en), \(sampled.en)"
                ja += "。最も浅いケース: \(bound.ja)、\(sampled.ja)"
            } else {
                en += "; the least searched of the other \(partial.count): \(bound.en), \(sampled.en)"
                ja += "。残り \(partial.count) ケースで最も浅いもの: \(bound.ja)、\(sampled.ja)"
            }
        }
        return Localized(en + ".", ja: ja + "。")
    }
}
