import ExplorerDispatchInterposer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which schedule run, if any, the calling thread is driving (thread-local), and which run is
/// active in the process (at most one at a time).
enum DriverThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let active = ActiveRun()

    static var current: ScheduleRun? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<ScheduleRun>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func isCurrent(_ run: ScheduleRun) -> Bool {
        pthread_getspecific(key) == Unmanaged.passUnretained(run).toOpaque()
    }

    /// Makes the calling thread the driver of `run` (or of nothing).
    static func drive(_ run: ScheduleRun?) {
        pthread_setspecific(key, run.map { Unmanaged.passUnretained($0).toOpaque() })
        workbook_explorer_drive_jobs(run == nil ? nil : { job, delay in
            guard let run = DriverThread.current, let job else { return false }
            let unowned = unsafeBitCast(job, to: UnownedJob.self)
            if delay < 0 { run.add(unowned) } else { run.addTimer(unowned, afterRealDelay: .nanoseconds(delay)) }
            return true
        })
        active.set(run)
    }

    static var activeRun: ScheduleRun? { active.get() }
}

/// The run in progress, readable from any thread (the global enqueue hook runs everywhere).
private final class ActiveRun: @unchecked Sendable {
    private let lock = NSLock()
    private var run: ScheduleRun?
    func set(_ run: ScheduleRun?) { lock.lock(); self.run = run; lock.unlock() }
    func get() -> ScheduleRun? { lock.lock(); defer { lock.unlock() }; return run }
}
