import ExplorerDispatchInterposer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Swift runtime's enqueue hooks, routed into the schedule run the calling thread drives:
///
/// - `swift_task_enqueueGlobal_hook`: `Task {}`, `Task.detached`, tasks without a preference;
/// - `swift_task_enqueueGlobalWithDelay_hook` and `…WithDeadline_hook`: `Task.sleep` (all its
///   forms), `ContinuousClock`/`SuspendingClock` sleeps and `ExplorerClock` — they become timers
///   in virtual time, so a sleep costs nothing, a cancelled sleep ends at once (the runtime's
///   own cancellation handler resumes the task), and timers due together are alternatives the
///   search explores;
/// - `swift_task_getMainExecutor_hook`: on the driver thread the main actor's executor is the
///   explorer's (`ExplorerMainActor`), so a hop to `@MainActor` code, `MainActor.run` and
///   `Task { @MainActor in }` enqueue their jobs on the run: they are scheduling choices like
///   any other, run one at a time in the order they arrived, on the driver thread, isolated to
///   the main actor (`MainActor.assertIsolated()` holds inside them; `Thread.isMainThread`
///   does not). Elsewhere the runtime's main executor is untouched;
/// - `swift_task_enqueueMainExecutor_hook`: jobs for the main actor on a runtime that routes them
///   through it, taken the same way. Whether any does is not established: the runtime sources read
///   here enqueue a main-actor hop through the main queue's executor, and swiftlang/swift#63104
///   reports this hook never called — so where `getMainExecutor` has no hook (the 6.0 runtime,
///   macOS 15), main-actor jobs most likely stay outside the run (docs/platforms.md).
///
/// Each exploration installs the hooks and restores what was there before (another hook is
/// chained: jobs that are not the run's go to it, else to the runtime's own function). A job
/// enqueued from another thread is the run's only if it belongs to one of the run's tasks.
enum RuntimeHooks {
    typealias GlobalOriginal = @convention(thin) (UnownedJob) -> Void
    typealias GlobalHook = @convention(thin) (UnownedJob, GlobalOriginal) -> Void
    typealias DelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
    typealias DelayHook = @convention(thin) (UInt64, UnownedJob, DelayOriginal) -> Void
    typealias DeadlineOriginal = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
    typealias DeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, DeadlineOriginal) -> Void
    typealias GetMainOriginal = @convention(thin) () -> UnownedSerialExecutor
    typealias GetMainHook = @convention(thin) (GetMainOriginal) -> UnownedSerialExecutor

    private static func slot<Hook>(_ name: String, _: Hook.Type) -> UnsafeMutablePointer<Hook?>? {
        dlsym(dlopen(nil, RTLD_NOW), name)?.assumingMemoryBound(to: Hook?.self)
    }
    nonisolated(unsafe) private static let globalSlot = slot("swift_task_enqueueGlobal_hook", GlobalHook.self)
    nonisolated(unsafe) private static let delaySlot = slot("swift_task_enqueueGlobalWithDelay_hook", DelayHook.self)
    nonisolated(unsafe) private static let deadlineSlot = slot("swift_task_enqueueGlobalWithDeadline_hook", DeadlineHook.self)
    nonisolated(unsafe) private static let mainSlot = slot("swift_task_enqueueMainExecutor_hook", GlobalHook.self)
    nonisolated(unsafe) private static let getMainSlot = slot("swift_task_getMainExecutor_hook", GetMainHook.self)

    // The hooks found installed before ours; used, and put back, by `uninstall`. Written only by
    // the exploring thread, under `Explorer.oneRunAtATime`.
    nonisolated(unsafe) private static var previousGlobal: GlobalHook?
    nonisolated(unsafe) private static var previousDelay: DelayHook?
    nonisolated(unsafe) private static var previousDeadline: DeadlineHook?
    nonisolated(unsafe) private static var previousMain: GlobalHook?
    nonisolated(unsafe) private static var previousGetMain: GetMainHook?

    /// True when the runtime offers the global hook (the explorer needs it); the others are used
    /// where present.
    static var available: Bool { globalSlot != nil }

    /// The run a job belongs to, if any: the one the calling thread drives, or the active run
    /// when the job is one of its tasks resumed from elsewhere.
    static func run(for job: UnownedJob) -> ScheduleRun? {
        if let run = DriverThread.current { return run }
        if let run = DriverThread.activeRun, run.owns(job) { return run }
        return nil
    }

    static func install() {
        ExplorerTaskExecutor.steer(true)
        // Where main-actor jobs are ordered for ThreadSanitizer; main-queue drains use it too (Linux).
        workbook_explorer_set_main_actor_order(TaskLanes.mainActorOrder)
        if let globalSlot {
            previousGlobal = globalSlot.pointee
            globalSlot.pointee = { job, original in
                if let run = RuntimeHooks.run(for: job) { run.add(job) }
                else if let previous = RuntimeHooks.previousGlobal { previous(job, original) }
                else { original(job) }
            }
        }
        if let mainSlot {
            previousMain = mainSlot.pointee
            mainSlot.pointee = { job, original in
                if let run = RuntimeHooks.run(for: job) { run.add(job, isolatedToMain: true) }
                else if let previous = RuntimeHooks.previousMain { previous(job, original) }
                else { original(job) }
            }
        }
        if let getMainSlot {
            previousGetMain = getMainSlot.pointee
            getMainSlot.pointee = { original in
                if DriverThread.current != nil { return ExplorerMainActor.shared.asUnownedSerialExecutor() }
                if let previous = RuntimeHooks.previousGetMain { return previous(original) }
                return original()
            }
        }
        if let delaySlot, let deadlineSlot {
            previousDelay = delaySlot.pointee
            delaySlot.pointee = { nanoseconds, job, original in
                if let run = DriverThread.current { run.addTimer(job, after: .nanoseconds(Int64(clamping: nanoseconds))) }
                else if let previous = RuntimeHooks.previousDelay { previous(nanoseconds, job, original) }
                else { original(nanoseconds, job) }
            }
            previousDeadline = deadlineSlot.pointee
            deadlineSlot.pointee = { seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clock, job, original in
                if let run = DriverThread.current {
                    run.addTimer(job, deadline: .seconds(seconds) + .nanoseconds(nanoseconds), clock: clock)
                } else if let previous = RuntimeHooks.previousDeadline {
                    previous(seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clock, job, original)
                } else {
                    original(seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clock, job)
                }
            }
        }
    }

    static func uninstall() {
        ExplorerTaskExecutor.steer(false)
        globalSlot?.pointee = previousGlobal
        mainSlot?.pointee = previousMain
        getMainSlot?.pointee = previousGetMain
        delaySlot?.pointee = previousDelay
        deadlineSlot?.pointee = previousDeadline
        previousGlobal = nil
        previousMain = nil
        previousGetMain = nil
        previousDelay = nil
        previousDeadline = nil
    }

    /// Now, on the runtime's clock `clock` (1 continuous, 2 suspending), as the runtime reads it.
    static func now(clock: Int32) -> Duration {
        var time = timespec()
        #if os(Linux)
        clock_gettime(clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &time)
        #elseif canImport(Darwin)
        clock_gettime(clock == 1 ? CLOCK_MONOTONIC_RAW : CLOCK_UPTIME_RAW, &time)
        #endif
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }
}
