import Foundation
import WorkbookCore
import WorkbookExplorer

/// Runs `body` on another thread, as a thread of the app would at that moment — a cancel that
/// lands while a task is inside a call — and waits at most `seconds` for it; true if it
/// returned in time (false: it is stuck, say on a lock the waiting task holds; it finishes
/// later, when that lock is released).
///
/// ThreadSanitizer is not shown the hand-over (it is done `quietly`, on threads started before
/// any schedule needed them), so what `body` touches is ordered with the waiting task only by
/// what the code itself orders — `returnsWithin`'s thread start and join would order them and
/// hide a race between a cancellation handler and the operation it interrupts.
public func runsOnAnotherThread(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    AnotherThread.idle().run(body, within: seconds)
}

/// A thread that runs one body at a time for `runsOnAnotherThread`; every hand-over is `quietly`.
final class AnotherThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var work: (@Sendable () -> Void)?
    private var finished = false
    /// Taken by a caller until its body has returned (a body stuck on a lock keeps it).
    private var busy = false

    private static let pool = QuietLocked<[AnotherThread]>([])

    /// A worker with nothing to do, taken for the caller; a new one if all are busy.
    static func idle() -> AnotherThread {
        pool.withLock { workers in
            if let free = workers.first(where: { $0.take() }) { return free }
            let worker = AnotherThread()
            _ = worker.take()
            let thread = Thread { worker.serve() }
            thread.name = "another thread"
            thread.start()
            workers.append(worker)
            return worker
        }
    }

    private func take() -> Bool {
        RaceDetector.quietly {
            condition.withLock {
                guard !busy else { return false }
                busy = true
                return true
            }
        }
    }

    func run(_ body: @escaping @Sendable () -> Void, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return RaceDetector.quietly {
            condition.withLock {
                work = body
                finished = false
                condition.broadcast()
                while !finished {
                    if !condition.wait(until: deadline) { return finished }
                }
                return true
            }
        }
    }

    private func serve() {
        while true {
            let body: @Sendable () -> Void = RaceDetector.quietly {
                condition.withLock {
                    while work == nil { condition.wait() }
                    defer { work = nil }
                    return work!
                }
            }
            body()
            RaceDetector.quietly {
                condition.withLock {
                    finished = true
                    busy = false
                    condition.broadcast()
                }
            }
        }
    }
}
