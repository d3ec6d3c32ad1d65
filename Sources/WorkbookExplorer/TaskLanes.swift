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

    /// The address main-actor jobs are ordered on for ThreadSanitizer (`Lane.mainActorOrder`).
    static var mainActorOrder: UnsafeRawPointer { Lane.mainActorOrder }

    init() {
        workbook_explorer_filter_runtime_releases(false)  // installs the filter, on the driver thread
    }

    /// Runs `job` on the lane of `task` (a lane of its own when `task` is 0: an actor's drain)
    /// and returns when it has run. The lane thread takes `name`, what the task is called in
    /// reports (if it has a name yet), so ThreadSanitizer's report says which task touched what.
    func run(_ job: UnownedJob, task: UInt64, named name: String?, on executor: UnownedTaskExecutor,
             isolatedToMain: Bool, for run: ScheduleRun) {
        let lane: Lane
        if task != 0, let known = lanes[task] {
            lane = known
        } else {
            lane = fresh()
            if task != 0 { lanes[task] = lane }
        }
        lane.run(.job(job, executor: executor, isolatedToMain: isolatedToMain, name: name ?? "explorer-lane"), driving: run)
    }

    /// Resumes a timer's sleeper, or those waiting for quiet, on a lane of its own, as a timer
    /// thread would, and returns when it has. Never on the driver: the runtime's resume takes in
    /// the sleeper's history, and the driver would pass it on to the next job it hands over.
    func wake(_ work: LaneWork, for run: ScheduleRun) {
        fresh().run(work, driving: run)
    }

    /// Names the calling lane thread after a task (English, at most 15 bytes: the system's limit).
    static func nameThisThread(_ label: String) {
        RaceDetector.quietly {
            let english = BilingualLabel.english(label)
            var name = ""
            for character in english where character.isASCII && name.utf8.count < 15 { name.append(character) }
            workbook_explorer_name_thread(name)
        }
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

/// What a lane does: values, not a closure — a closure's captures are memory the driver wrote,
/// and a lane reads nothing the driver wrote outside `quietly` (in a fully instrumented build
/// TSan would see the explorer's own hand-off as a race).
enum LaneWork: @unchecked Sendable {  // handed over under the lane's lock
    case job(UnownedJob, executor: UnownedTaskExecutor, isolatedToMain: Bool, name: String)
    case wake(CheckedContinuation<Void, any Error>)
    case wakeAll([UnsafeContinuation<Void, Never>])
    func perform() {
        switch self {
        case let .job(job, executor, isolatedToMain, _):
            if isolatedToMain {
                job.runSynchronously(isolatedTo: MainActor.sharedUnownedExecutor, taskExecutor: executor)
            } else {
                job.runSynchronously(on: executor)
            }
        case let .wake(continuation): continuation.resume(returning: ())
        case let .wakeAll(continuations): for continuation in continuations { continuation.resume() }
        }
    }
}

/// A thread that runs one piece of work at a time when the driver hands it one, and waits for the next.
private final class Lane: @unchecked Sendable {  // `pending` and `done` under `condition`
    private let condition = NSCondition()
    private var pending: (work: LaneWork, run: ScheduleRun)?
    private var done = false

    private static let pool = QuietLocked<[Lane]>([])
    /// What orders the main actor's jobs one after another for ThreadSanitizer.
    /// The address main-actor jobs are ordered on for ThreadSanitizer (main-queue drains too, Linux).
    static var mainActorOrder: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(ExplorerMainActor.shared).toOpaque()) }

    static func take() -> Lane {
        if let lane = pool.withLock({ $0.popLast() }) { return lane }
        return make()
    }

    private static func make() -> Lane {
        let lane = Lane()
        let thread = Thread { lane.loop() }
        thread.stackSize = 8 << 20  // as the driver's: a debug build's async frames run deep
        thread.start()
        return lane
    }

    static func give(_ lane: Lane) { pool.withLock { $0.append(lane) } }

    /// Does `work` on this lane and returns when it is done.
    func run(_ work: LaneWork, driving run: ScheduleRun) {
        RaceDetector.quietly {
            condition.lock()
            pending = (work, run)
            done = false
            condition.broadcast()
            while !done { condition.wait() }
            condition.unlock()
        }
    }

    private func loop() {
        while true {
            let work = RaceDetector.quietly {
                condition.lock()
                defer { condition.unlock() }
                while pending == nil { condition.wait() }
                DriverThread.assist(pending!.run)
                return pending!.work
            }
            var onMainActor = false
            if case let .job(job, _, isolatedToMain, name) = work {
                TaskLanes.nameThisThread(name)  // never a name left from another task
                // The executor's edge: what was done before the job was enqueued happens before it runs.
                RaceDetector.happensAfter(address: unsafeBitCast(job, to: UnsafeRawPointer.self))
                // The main actor is one serial executor: each of its jobs happens after the one
                // it ran before, whichever tasks' lanes they run on.
                if isolatedToMain { RaceDetector.happensAfter(address: Lane.mainActorOrder) }
                onMainActor = isolatedToMain
            }
            workbook_explorer_set_main_actor_job(onMainActor)
            workbook_explorer_filter_runtime_releases(true)
            work.perform()
            workbook_explorer_filter_runtime_releases(false)
            workbook_explorer_set_main_actor_job(false)
            if onMainActor { RaceDetector.happensBefore(address: Lane.mainActorOrder) }
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
