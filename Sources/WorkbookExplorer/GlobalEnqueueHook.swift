import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Routes the runtime's global enqueues (`Task {}`, `Task.detached`, tasks without an executor
/// preference) made on the driver thread into the schedule run, so unstructured tasks are
/// explored too. Everything else goes where it always goes — other tests keep running.
///
/// This is the runtime hook `swift_task_enqueueGlobal_hook` (the mechanism behind
/// swift-concurrency-extras' `withMainSerialExecutor`); it is installed once and forwards to
/// the original when no run is active.
enum GlobalEnqueueHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    private static let installation: Bool = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
        symbol.assumingMemoryBound(to: Hook?.self).pointee = { job, original in
            if let run = DriverThread.current {
                run.add(job)
            } else if let run = DriverThread.activeRun, run.owns(job) {
                run.add(job)  // one of the run's tasks, resumed from another thread: uncontrolled
            } else {
                original(job)
            }
        }
        return true
    }()

    /// Installs the hook; false if the runtime does not offer it.
    static func install() -> Bool { installation }
}
