import Foundation

/// Exercise 02-operations/AsyncOperation: an `Operation` for callback-based work. It starts the
/// work, and is finished — so its dependants may start — only when the work calls `done`.
public protocol CallbackOperationProtocol: Operation {
    /// `work` receives `done`; the operation finishes when `done` is first called, on any thread.
    /// A careless callback API may call `done` again: later calls change nothing.
    init(work: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void)
}
