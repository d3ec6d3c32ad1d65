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

    private struct State {
        var started = 0
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
}
