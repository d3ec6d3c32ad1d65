import Foundation
import ExerciseKit

// Exercise 02-operations/AsyncOperation — read chapters/en/02-operations.md (ja: chapters/ja/02-operations.md) first.
//
// Goal: a reusable base class for operations whose work ends in a callback. A plain
// `Operation` is finished when `main()` returns — too early for work that calls back later.
// `AsyncOperation` must:
//   - say it is asynchronous, and keep `isExecuting`/`isFinished` itself, thread-safely
//     (the queue reads them from its threads; `finish()` may run on any thread);
//   - announce every change of those two with `willChangeValue(forKey:)` and
//     `didChangeValue(forKey:)` — that is how the queue learns it may start the dependants;
//   - in `start()`, finish at once without running the work if it was cancelled before it
//     started; otherwise become executing and call `execute()`;
//   - finish only once: the work may call `done` twice, and the second call changes nothing.
// `CallbackOperation` below is done: it runs `work` and calls `finish()` from its callback.
//
// Check your answer:   swift test --filter ExercisesTests.AsyncOperation
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

/// `@unchecked Sendable`: you promise that `lock` guards the state; the check (and the
/// ThreadSanitizer lane) test it.
open class AsyncOperation: Operation, @unchecked Sendable {
    private let lock = NSLock()
    // TODO: the state: executing, finished.

    open override var isAsynchronous: Bool {
        // TODO: an asynchronous operation says so.
        todo()
    }

    open override var isExecuting: Bool {
        // TODO: return the executing flag, read under the lock.
        todo()
    }

    open override var isFinished: Bool {
        // TODO: return the finished flag, read under the lock.
        todo()
    }

    open override func start() {
        // TODO: if cancelled, finish() without running the work; otherwise announce and set
        // executing, then call execute().
        todo()
    }

    /// Subclasses start their work here and call `finish()` when it is done.
    open func execute() { finish() }

    /// Marks the operation finished: executing false, finished true, each change announced.
    /// Calling it again does nothing.
    public final func finish() {
        // TODO: announce (willChangeValue), change under the lock, announce (didChangeValue).
        todo()
    }
}

/// Runs callback-based work as an operation. (Already done: it relies on your base class.)
public final class CallbackOperation: AsyncOperation, CallbackOperationProtocol, @unchecked Sendable {
    private let work: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    public init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) {
        self.work = work
    }

    public override func execute() {
        work { [self] in finish() }
    }
}
