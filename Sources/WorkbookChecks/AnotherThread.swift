import Foundation
import WorkbookCore
import WorkbookExplorer

/// Runs `body` on another thread, as a thread of the app would at that moment — a cancel that
/// lands while a task is inside a call — and waits at most `seconds` for it; true if it
/// returned in time (false: it is stuck, say on a lock the waiting task holds; it finishes
/// later, when that lock is released).
///
/// ThreadSanitizer is not shown the hand-over (it is done `quietly`, on a thread the runner
/// started before any schedule — `AnotherThread.start()`), so what `body` touches is ordered with
/// the waiting task only by what the code itself orders — `returnsWithin`'s thread start and
/// join would order them and hide a race between a cancellation handler and the operation it
/// interrupts.
@discardableResult
public func runsOnAnotherThread(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    AnotherThread.idle().run(body, within: seconds)
}

/// A cancel from another thread, landing inside a call of the code under test — a fake's hook
/// — where a task can be cancelled on real threads: run there, and waited for until it is done,
/// or, if the answer holds a lock its handler needs, until it is plainly stuck on it (it ends once
/// that lock is released, as it would on real threads).
public func cancelFromAnotherThread<Success, Failure>(_ task: Task<Success, Failure>, landing: CancelLanding) {
    checkpoint("task.cancel()")
    if !runsOnAnotherThread(within: CancelLanding.patienceSeconds, { task.cancel() }) { landing.blocked() }
}

/// Whether a cancel sent from another thread came back: `task.cancel()` runs the cancellation
/// handler inside it, so a handler that waits — for a lock the task holds across the very call
/// the cancel landed in — keeps the canceller (in an app, often the UI's thread) waiting too.
public final class CancelLanding: Sendable {
    /// Well under the explorer's blocked-step limit (2 s), far over what a handler that only
    /// takes a lock for a moment needs on a loaded machine.
    static let patienceSeconds = 1.0
    private let stuck = QuietLocked(false)

    public init() {}

    func blocked() { stuck.withLock { $0 = true } }

    /// The outcome to report if the cancel did not come back: `call`, the call of the code under
    /// test the cancel landed in, as the learner wrote it.
    public func blockedOutcome(inside call: String) -> String? {
        guard stuck.current else { return nil }
        return brokenOutcome(Property.finishes, Localized(
            "`task.cancel()`, sent from another thread while your code was inside `\(call)`, did not return within \(Int(Self.patienceSeconds)) s: your cancellation handler waited, most likely for a lock your code held across `\(call)`. `cancel()` runs the handler on the caller's thread — in an app often the UI's — and that thread waits with it. Hold a lock only around the state it guards, never across a call",
            ja: "コードが `\(call)` の中にいる間に別のスレッドから送った `task.cancel()` が、\(Int(Self.patienceSeconds)) 秒以内に戻らなかった。キャンセルハンドラが待っていた。おそらく、コードが `\(call)` をまたいで保持していたロックを待っている。`cancel()` はハンドラを呼び出し元のスレッド（アプリでは UI のスレッドのことが多い）で実行するので、そのスレッドも一緒に待つ。ロックは守る状態の周りだけで持ち、呼び出しをまたいで持たない"))
    }
}

extension Explorer.Budget {
    /// For a case with a cancel from another thread: it runs once per schedule, so one schedule
    /// (and its replay).
    public static let onceFromAnotherThread = Explorer.Budget(maxSchedules: 1, maxSeconds: 3, foreignWaitSeconds: 1)
}

/// A thread that runs one body at a time for `runsOnAnotherThread`; every hand-over is `quietly`.
public final class AnotherThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var work: (@Sendable () -> Void)?
    private var finished = false
    /// Taken by a caller until its body has returned (a body stuck on a lock keeps it).
    private var busy = false

    private static let pool = QuietLocked<[AnotherThread]>([])

    /// Starts the first worker, before any schedule (the runners call it at start-up): a thread
    /// started inside a schedule would order what the task did before with what `body` does.
    public static func start() {
        pool.withLock { $0.append(started()) }
    }

    /// A worker with nothing to do, taken for the caller; a new one if all are busy (one is
    /// enough unless a body is stuck).
    static func idle() -> AnotherThread {
        pool.withLock { workers in
            if let free = workers.first(where: { $0.take() }) { return free }
            let worker = started()
            _ = worker.take()
            workers.append(worker)
            return worker
        }
    }

    private static func started() -> AnotherThread {
        let worker = AnotherThread()
        let thread = Thread { worker.serve() }
        thread.name = "another thread"
        thread.start()
        return worker
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
