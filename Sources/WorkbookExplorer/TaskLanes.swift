import ExplorerDispatchInterposer
import Foundation

/// Runs each task's jobs on a thread of its own, one job at a time as the driver chooses — so
/// ThreadSanitizer sees the explored code on as many threads as it has tasks, ordered only by
/// what the code itself orders (`Explorer.Budget.tasksOnOwnThreads`).
///
/// On the one driver thread every access follows the one before in program order, and TSan
/// can find no race. Here the hand-off between the driver and a lane is done `quietly`, and
/// the only edges the lanes add are an executor's: enqueueing a job happens before it runs
/// (`RaceDetector.happensBefore(address:)` in `ScheduleRun.add`). Two tasks that write the same
/// memory with nothing of their own between them are reported, in any schedule that runs both.
final class TaskLanes: @unchecked Sendable {  // driver thread only; lanes hand off under their own locks
    private var lanes: [UInt64: Lane] = [:]
    private var others: [Lane] = []

    init() {
        workbook_explorer_filter_runtime_releases(false)  // installs the filter, on the driver thread
    }

    /// Runs `job` on the lane of `task` (a lane of its own when `task` is 0: an actor's drain)
    /// and returns when it has run. The lane thread takes `name`, what the task is called in
    /// reports (if it has a name yet), so ThreadSanitizer's report says which task touched what.
    func run(_ job: UnownedJob, task: UInt64, named name: String?, for run: ScheduleRun,
             _ body: @escaping @Sendable (UnownedJob) -> Void) {
        let lane: Lane
        if task != 0, let known = lanes[task] {
            lane = known
        } else {
            lane = fresh()
            if task != 0 { lanes[task] = lane }
        }
        lane.run(after: unsafeBitCast(job, to: UnsafeRawPointer.self), driving: run) {
            TaskLanes.nameThisThread(name ?? "explorer-lane")  // never a name left from another task
            body(job)
        }
    }

    /// Names the calling lane thread after a task (English, at most 15 bytes: the system's limit).
    static func nameThisThread(_ label: String) {
        let english = BilingualLabel.english(label)
        var name = ""
        for character in english where character.isASCII && name.utf8.count < 15 { name.append(character) }
        RaceDetector.quietly { workbook_explorer_name_thread(name) }
    }

    /// Runs `work` — a timer's wake-up: resuming a sleeper — on a lane of its own, as a timer
    /// thread would, and returns when it has run. Never on the driver: the runtime's resume
    /// takes in the sleeper's history, and the driver would pass it on to the next job it hands
    /// over.
    func runElsewhere(for run: ScheduleRun, _ work: @escaping @Sendable () -> Void) {
        fresh().run(after: nil, driving: run, work)
    }

    private func fresh() -> Lane {
        let lane = Lane.take()
        others.append(lane)
        return lane
    }

    /// The schedule is over: the lanes go back to the pool for the next.
    func finish() {
        for lane in others { Lane.give(lane) }
        lanes = [:]
        others = []
    }
}

/// A thread that runs one piece of work at a time when the driver hands it one, and waits for the next.
private final class Lane: @unchecked Sendable {  // `pending` and `done` under `condition`
    private let condition = NSCondition()
    private var pending: (edge: UnsafeRawPointer?, run: ScheduleRun, work: @Sendable () -> Void)?
    private var done = false

    private static let pool = LockedBox<[Lane]>([])

    static func take() -> Lane {
        if let lane = pool.update({ $0.popLast() }) { return lane }
        return make()
    }

    private static func make() -> Lane {
        let lane = Lane()
        let thread = Thread { lane.loop() }
        thread.stackSize = 8 << 20  // as the driver's: a debug build's async frames run deep
        thread.start()
        return lane
    }

    static func give(_ lane: Lane) { pool.update { $0.append(lane) } }

    /// Runs `work` here, after what was done before `happensBefore(address: edge)`.
    func run(after edge: UnsafeRawPointer?, driving run: ScheduleRun, _ work: @escaping @Sendable () -> Void) {
        RaceDetector.quietly {
            condition.lock()
            pending = (edge, run, work)
            done = false
            condition.broadcast()
            while !done { condition.wait() }
            condition.unlock()
        }
    }

    private func loop() {
        while true {
            let (edge, work) = RaceDetector.quietly {
                condition.lock()
                defer { condition.unlock() }
                while pending == nil { condition.wait() }
                DriverThread.assist(pending!.run)
                return (pending!.edge, pending!.work)
            }
            if let edge { RaceDetector.happensAfter(address: edge) }
            workbook_explorer_filter_runtime_releases(true)
            work()
            workbook_explorer_filter_runtime_releases(false)
            RaceDetector.quietly {
                DriverThread.assist(nil)
                condition.lock()
                pending = nil
                done = true
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
