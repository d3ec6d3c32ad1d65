import ExplorerDispatchInterposer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which schedule run, if any, the calling thread runs jobs of (a C thread-local), and which run
/// is active in the process (at most one at a time).
enum DriverThread {
    private static let active = ActiveRun()

    static var current: ScheduleRun? {
        guard let pointer = workbook_explorer_current_run() else { return nil }
        return Unmanaged<ScheduleRun>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func isCurrent(_ run: ScheduleRun) -> Bool {
        workbook_explorer_current_run() == UnsafeRawPointer(Unmanaged.passUnretained(run).toOpaque())
    }

    /// Makes the calling thread the driver of `run` (or of nothing).
    static func drive(_ run: ScheduleRun?) {
        assist(run)
        active.set(run)
    }

    /// A job libdispatch was handed on a thread that runs jobs of a run: it goes to that run.
    private static let takeJob: workbook_explorer_job_taker = { job, delay in
        guard let run = DriverThread.current, let job else { return false }
        let unowned = unsafeBitCast(job, to: UnownedJob.self)
        if delay < 0 { run.add(unowned) } else { run.addTimer(unowned, afterRealDelay: .nanoseconds(delay)) }
        return true
    }

    /// Makes the calling thread (a lane of `TaskLanes`) run jobs of `run` like its driver does,
    /// without being the run the process reports as active.
    static func assist(_ run: ScheduleRun?) {
        workbook_explorer_set_current_run(run.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
        workbook_explorer_drive_jobs(run == nil ? nil : takeJob)
    }

    static var activeRun: ScheduleRun? { active.get() }
}

/// The run in progress, readable from any thread (the global enqueue hook runs everywhere).
///
/// A plain lock, seen by ThreadSanitizer: the watchdog (`blockedReport`) reads the run's state
/// after `get`, and that needs the driver's `set` ordered before it. Lanes never ask (they know
/// their run); a foreign thread that asks takes the driver's history, which holds none of the
/// tasks' when they run on lanes.
private final class ActiveRun: @unchecked Sendable {
    private let lock = NSLock()
    private var run: ScheduleRun?
    func set(_ run: ScheduleRun?) { lock.lock(); self.run = run; lock.unlock() }
    func get() -> ScheduleRun? { lock.lock(); defer { lock.unlock() }; return run }
}
