import Dispatch
import Foundation
import WorkbookCore
import WorkbookExplorer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What scenarios 1–4 share: a fake legacy photo service that calls back later, a way to name
// the thread that runs a line, and the plumbing for child processes that trap or leak.

// MARK: The fake legacy service

/// A photo as the legacy service hands it over.
struct LegacyPhoto: Sendable, Equatable, CustomStringConvertible {
    let id: String
    /// `cached` for a reply from the service's cache, `network` for a fresh one.
    var source = "network"

    var description: String { source == "network" ? "Photo(\(id))" : "Photo(\(id), \(source))" }
}

/// The errors of the legacy service, and of the bridges built on it.
enum LegacyPhotoError: Error, Equatable, CustomStringConvertible {
    case notFound
    /// The service answered with no data and no error.
    case noData

    var description: String { self == .notFound ? ".notFound" : ".noData" }
}

/// A photo service written before async/await: every call returns at once and calls its
/// completion handler later, on the service's own Dispatch queue (`legacy.callbacks`) — or,
/// under the explorer, from a new task, so that the explorer controls when it runs.
///
/// With `holdsReplies` the replies wait until `releaseReplies()`: a scenario decides when the
/// "network" answers, so its output is the same in every run (no sleeps).
final class LegacyPhotoService: Sendable {
    enum Reply: Sendable {
        /// The photo.
        case photo
        /// An error: `LegacyPhotoError.notFound`.
        case notFound
        /// Neither data nor an error: `completion(nil, nil)`, which the types allow.
        case nothing
    }

    /// Where the completion handler runs.
    enum Delivery: Sendable {
        /// On the service's serial Dispatch queue, `legacy.callbacks`.
        case callbackQueue
        /// In a new `Task {}` (for code under the explorer, which controls tasks, not queues).
        case task
    }

    static let callbackQueueLabel = "legacy.callbacks"

    private let queue = DispatchQueue(label: LegacyPhotoService.callbackQueueLabel)
    private let replies: [String: Reply]
    private let delivery: Delivery
    private let holdsReplies: Bool
    private let held = Locked<[@Sendable () -> Void]>([])
    /// For "cache, then network": the fresh reply waits until this is signalled (at most 5 s).
    let network = DispatchSemaphore(value: 0)
    /// For "cache, then network": signalled when the handler's second call has returned.
    let freshReplyDelivered = DispatchSemaphore(value: 0)

    init(replies: [String: Reply], delivery: Delivery = .callbackQueue, holdsReplies: Bool = false) {
        self.replies = replies
        self.delivery = delivery
        self.holdsReplies = holdsReplies
    }

    /// The oldest shape: an optional photo, `nil` for any failure.
    func loadPhoto(id: String, completion: @escaping @Sendable (LegacyPhoto?) -> Void) {
        let reply = request(id)
        send { completion(reply == .photo ? LegacyPhoto(id: id) : nil) }
    }

    /// A `Result`: a photo or an error, exactly one.
    func fetchPhoto(id: String, completion: @escaping @Sendable (Result<LegacyPhoto, any Error>) -> Void) {
        let reply = request(id)
        send { completion(reply == .photo ? .success(LegacyPhoto(id: id)) : .failure(LegacyPhotoError.notFound)) }
    }

    /// Two optionals, as many Objective-C APIs have it: the types also allow `(nil, nil)`.
    func fetchPhotoData(id: String, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let reply = request(id)
        send {
            // Checkpoints name the call in the explorer's steps (outside it they do nothing).
            switch reply {
            case .photo:
                checkpoint("completion(<\(id.utf8.count) bytes>, nil)")
                completion(Data(id.utf8), nil)
            case .notFound:
                checkpoint("completion(nil, .notFound)")
                completion(nil, LegacyPhotoError.notFound)
            case .nothing:
                checkpoint("completion(nil, nil)")
                completion(nil, nil)
            }
        }
    }

    /// "Cache, then network": the cached photo at once, on the caller's thread, and the fresh one
    /// later, on the callback queue — two calls of one handler. The fresh reply waits for
    /// `network` to be signalled (at most 5 s), so a scenario decides when it comes.
    func fetchPhotoCacheThenNetwork(id: String, completion: @escaping @Sendable (LegacyPhoto) -> Void) {
        completion(LegacyPhoto(id: id, source: "cached"))
        let network = self.network, delivered = freshReplyDelivered
        queue.async {
            _ = network.wait(timeout: .now() + 5)
            completion(LegacyPhoto(id: id))
            delivered.signal()
        }
    }

    /// Sends the replies held so far (with `holdsReplies`).
    func releaseReplies() {
        for reply in held.withLock({ held in defer { held = [] }; return held }) { deliver(reply) }
    }

    private func request(_ id: String) -> Reply { replies[id] ?? .notFound }

    private func send(_ reply: @escaping @Sendable () -> Void) {
        if holdsReplies {
            held.withLock { $0.append(reply) }
        } else {
            deliver(reply)
        }
    }

    private func deliver(_ reply: @escaping @Sendable () -> Void) {
        switch delivery {
        case .callbackQueue: queue.async(execute: reply)
        case .task: Task { reply() }
        }
    }
}

// MARK: Threads

/// The OS thread that runs a line, as the kernel names it: `4711 legacy.callbac`.
///
/// A synchronous function, so async code may call it too: what a task may not do is assume the
/// thread stays the same across an `await`.
enum CallingThread {
    /// `OSThread.current()`, marked `[main]` on the main thread.
    static func describe() -> String {
        let described = OSThread.current().description
        return Thread.isMainThread ? described + " [main]" : described
    }

    /// The id part of `describe()`.
    static func id(of description: String) -> String { String(description.prefix { $0 != " " }) }
}

// MARK: Child processes

/// The timeline lane of the chapter's child processes.
let childProcessLane = Localized("child process", ja: "子プロセス")

/// One step of a schedule, in both languages: from this process's explorer, or read back from
/// a child's standard output.
struct BridgeStep: Sendable, Equatable {
    let number: Int
    let who: Localized
    let checkpoints: [Localized]

    init(number: Int, who: Localized, checkpoints: [Localized]) {
        self.number = number
        self.who = who
        self.checkpoints = checkpoints
    }

    init(_ step: ScheduleStep) {
        self.init(number: step.number, who: step.who.localized, checkpoints: step.checkpoints.map(Self.label))
    }

    private static func label(_ raw: String) -> Localized {
        Localized(bilingual: raw)
    }

    /// The line a child prints for its parent (tabs between fields; `\u{1E}` between checkpoints).
    var encoded: String {
        let checkpoints = self.checkpoints.map { BilingualLabel.join($0.en, $0.ja) }.joined(separator: "\u{1E}")
        return ["WORKBOOK-STEP", String(number), BilingualLabel.join(who.en, who.ja), checkpoints].joined(separator: "\t")
    }

    /// The steps in a child's standard output.
    static func decode(_ output: String) -> [BridgeStep] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, fields[0] == "WORKBOOK-STEP", let number = Int(fields[1]) else { return nil }
            let checkpoints = fields[3].isEmpty ? [] : fields[3].split(separator: "\u{1E}").map { label(String($0)) }
            return BridgeStep(number: number, who: label(fields[2]), checkpoints: checkpoints)
        }
    }

    /// `  step 3: request → the reply arrived`, as `play` shows a step.
    func line(in language: Language) -> String {
        Localized("    step \(number): ", ja: "    ステップ \(number): ").text(language)
            + stepText(who: who.text(language), passed: checkpoints.map { $0.text(language) })
    }
}

/// What a child that ran a schedule prints for its parent: its steps and how it ended — for a
/// deadlock, the body's task and where it waits. (The explorer's own list of who waited also
/// names every task that passed a checkpoint, finished or not.)
func printForParent(_ report: ScheduleReport) {
    for step in report.steps { Console.line(BridgeStep(step).encoded) }
    if case .deadlock = report.outcome, let root = report.waiting.first {
        Console.line(["WORKBOOK-DEADLOCK", BilingualLabel.join(root.who.localized.en, root.who.localized.ja), root.after ?? ""].joined(separator: "\t"))
    } else {
        Console.line("WORKBOOK-OUTCOME\t\(report.outcomeText(.en))\t\(report.outcomeText(.ja))")
    }
}

/// How a child's schedule ended, in both languages: its outcome, or, for a deadlock, the task
/// that still waits and the last checkpoint it passed.
func childVerdict(_ output: String) -> (deadlocked: Bool, said: Localized)? {
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 3, fields[0] == "WORKBOOK-OUTCOME" { return (false, Localized(fields[1], ja: fields[2])) }
        if fields.count == 3, fields[0] == "WORKBOOK-DEADLOCK" {
            let who = Localized(bilingual: fields[1])
            let after = Localized(bilingual: fields[2])
            return (true, Localized(
                "deadlock — nothing can run any more, and \(who.en) still waits (after \"\(after.en)\")",
                ja: "デッドロック — もう何も実行できないのに、\(who.ja)はまだ待っている（「\(after.ja)」の後）"))
        }
    }
    return nil
}

/// Runs one schedule — the default scheduler's — under the explorer on the calling thread's
/// behalf; nothing from outside the run is waited for, so a task nobody will resume is reported
/// as a deadlock at once.
func runDefaultSchedule(_ body: @escaping Explorer.Body) -> ScheduleReport {
    Explorer.play(budget: .init(maxSchedules: 1, maxSeconds: 10, foreignWaitSeconds: 0), choose: { $0.defaultChoice }, body)
}

extension ScenarioContext {
    /// Runs `ch05-continuations --child NAME` and draws it as a span on the child-process lane.
    /// With `journal`, the child keeps the schedule it is exploring in that file
    /// (`ScheduleJournal`), so a trap in it still tells which schedule trapped.
    func runBridgeChild(_ name: String, journal: String? = nil) -> ChildProcess.Outcome? {
        let label = Localized.verbatim("--child \(name)")
        trace.begin(label, lane: childProcessLane)
        defer { trace.end(label, lane: childProcessLane) }
        return runChapterChild(name, environment: journal.map { [ScheduleJournal.environmentKey: $0] } ?? [:])
    }

    /// Runs `ch05-continuations --child NAME` (20 s at most); nil, said why, if it cannot start.
    func runChapterChild(_ name: String, environment: [String: String] = [:]) -> ChildProcess.Outcome? {
        runChild(name, of: Chapter05.chapter.executable, environment: environment, timeoutSeconds: 20)
    }

    /// Says how a child ended, to follow "The child": `exited with status 0`, `was killed by
    /// SIGILL (…)`; in Japanese, to precede 「しました」.
    func describeEnd(of outcome: ChildProcess.Outcome) -> Localized {
        switch outcome.termination {
        case let .exited(status): Localized("exited with status \(status)", ja: "終了コード \(status) で終了")
        case let .signalled(signal):
            Localized("was killed by \(describeSignal(signal).en)", ja: " \(describeSignal(signal).ja) で終了")
        case let .timedOut(seconds): Localized("was still running after \(Int(seconds)) s and was killed", ja: "\(Int(seconds)) 秒たっても終わらず強制終了")
        }
    }

    /// Shows the steps worth reading: those that passed a checkpoint, and timers firing (a task
    /// takes several steps to start and to sleep in a debug build; they say nothing).
    func showSteps(_ steps: [BridgeStep]) {
        for step in steps where !step.checkpoints.isEmpty || step.who.en.hasPrefix("timer") {
            let line = step.line(in: language)
            say(Localized(line, ja: line))  // wrapped, each line indented as the first
        }
    }

    /// Quotes the runtime's lines about the continuation, word for word.
    func quoteMisuse(_ outcome: ChildProcess.Outcome) {
        let lines = continuationMisuseLines(outcome.standardError)
        if lines.isEmpty {
            say(Localized("  (The runtime printed nothing about the continuation.)", ja: "  （ランタイムは継続について何も出力しませんでした。）"))
        }
        for line in lines { quote(line) }
    }
}
