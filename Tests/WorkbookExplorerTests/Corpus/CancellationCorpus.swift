import Synchronization
import WorkbookExplorer

let cancellationCorpus: [CorpusCase] = [
    CorpusCase(name: "cancellation.cancelBeforeStart", shape: "withTaskCancellationHandler around a callback request", items: [],
               expectation: .fails("deadlock: the cancel handler runs before the request starts, so nothing ever resumes it"),
               traps: false, body: cancelBeforeStart),
    CorpusCase(name: "cancellation.requestRemembersCancel", shape: "withTaskCancellationHandler around a callback request", items: [],
               expectation: .passes, traps: false, body: requestRemembersCancel),
    CorpusCase(name: "cancellation.undoSendSwallowsCancel", shape: "cancelled sleep (undo send)", items: [2],
               expectation: .fails("the message is sent although the user pressed undo"), traps: false, body: undoSendSwallowsCancel),
    CorpusCase(name: "cancellation.undoSendStops", shape: "cancelled sleep (undo send)", items: [2],
               expectation: .passes, traps: false, body: undoSendStops),
    CorpusCase(name: "cancellation.typingIndicatorIgnoresCancel", shape: "cancelled plain Task.sleep", items: [2, 4],
               expectation: .fails("the cancelled indicator still hides itself after its 3 s sleep"), traps: false,
               body: typingIndicatorIgnoresCancel),
    CorpusCase(name: "cancellation.typingIndicatorCancelled", shape: "cancelled plain Task.sleep", items: [2, 4],
               expectation: .passes, traps: false, body: typingIndicatorCancelled),
    CorpusCase(name: "debounce.swallowsCancel", shape: "debounce cancelling the previous sleep", items: [2, 6],
               expectation: .fails("every value fires, not only the last one"), traps: false, body: debounceSwallowsCancel),
    CorpusCase(name: "debounce.lastValueOnly", shape: "debounce cancelling the previous sleep", items: [2, 6],
               expectation: .passes, traps: false, body: debounceLastValueOnly),
]

/// A legacy long-poll request: it only ends when cancelled.
private final class LongPoll: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<String, Error>?, cancelled: Bool)>((nil, false))
    let remembersCancel: Bool
    init(remembersCancel: Bool) { self.remembersCancel = remembersCancel }

    func start(_ waiter: CheckedContinuation<String, Error>) {
        let cancelledAlready = state.withLock { state in
            if remembersCancel && state.cancelled { return true }
            state.waiter = waiter
            return false
        }
        if cancelledAlready { waiter.resume(throwing: CancellationError()) }
    }

    func cancel() {
        let waiter = state.withLock { state in
            state.cancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: CancellationError())
    }
}

private func pollThenCancel(_ poll: LongPoll) async throws -> String {
    let task = Task {
        nameTask("poller")
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { poll.start($0) }
        } onCancel: {
            poll.cancel()
        }
    }
    task.cancel()
    switch await task.result {
    case .success(let value): throw InvariantViolation("a cancelled poll returned \(value)")
    case .failure(let error): return "poll ended with \(type(of: error))"
    }
}

/// The task is cancelled before it starts: onCancel runs first, then `start` stores a waiter nobody resumes.
@Sendable private func cancelBeforeStart() async throws -> String {
    try await pollThenCancel(LongPoll(remembersCancel: false))
}

/// Correct: `start` and `cancel` share a lock-protected flag, so either order ends the poll.
@Sendable private func requestRemembersCancel() async throws -> String {
    try await pollThenCancel(LongPoll(remembersCancel: true))
}

private actor Outbox {
    private(set) var sent: [String] = []
    func send(_ message: String) { sent.append(message) }
}

/// `try?` turns the cancelled sleep into a normal return, so the send goes ahead after undo.
@Sendable private func undoSendSwallowsCancel() async throws -> String {
    let outbox = Outbox()
    let clock = ExplorerClock()
    let sending = Task {
        nameTask("send")
        try? await clock.sleep(for: .seconds(5))
        await outbox.send("hello")
    }
    sending.cancel()  // the user pressed undo
    await sending.value
    let sent = await outbox.sent
    guard sent.isEmpty else { throw InvariantViolation("sent \(sent) after undo") }
    return "nothing sent"
}

/// Correct: the cancelled sleep throws CancellationError at once, before its 5 s deadline.
@Sendable private func undoSendStops() async throws -> String {
    let outbox = Outbox()
    let clock = ExplorerClock()
    let start = clock.now
    let sending = Task {
        nameTask("send")
        try await clock.sleep(for: .seconds(5))
        await outbox.send("hello")
    }
    sending.cancel()  // the user pressed undo
    let result = await sending.result
    let waited = start.duration(to: clock.now)
    let sent = await outbox.sent
    guard case .failure(let error) = result, error is CancellationError else { throw InvariantViolation("the send task ended with \(result)") }
    guard sent.isEmpty, waited < .seconds(5) else { throw InvariantViolation("sent \(sent), undo took \(waited)") }
    return "nothing sent"
}

private actor ChatScreen {
    private(set) var events: [String] = []
    func note(_ event: String) { events.append(event) }
}

/// The indicator's hide task swallows the cancellation with `try?` and hides anyway.
@Sendable private func typingIndicatorIgnoresCancel() async throws -> String {
    let screen = ChatScreen()
    let hide = Task {
        try? await Task.sleep(for: .seconds(3))
        await screen.note("hidden by timer")
    }
    hide.cancel()  // the user typed again
    await hide.value
    let events = await screen.events
    guard events.isEmpty else { throw InvariantViolation("cancelled indicator still ran: \(events)") }
    return "indicator stays"
}

/// Correct: the cancelled plain `Task.sleep` throws CancellationError and nothing runs after it.
@Sendable private func typingIndicatorCancelled() async throws -> String {
    let screen = ChatScreen()
    let hide = Task {
        try await Task.sleep(for: .seconds(3))
        await screen.note("hidden by timer")
    }
    hide.cancel()  // the user typed again
    let result = await hide.result
    let events = await screen.events
    guard case .failure(let error) = result, error is CancellationError, events.isEmpty else {
        throw InvariantViolation("cancelled indicator ended with \(result), events \(events)")
    }
    return "indicator stays"
}

/// Fires a value 300 ms after the last submit; each submit cancels the pending one.
private actor Debouncer {
    private let clock = ExplorerClock()
    private let ignoresCancel: Bool
    private var pending: Task<Void, Never>?
    private var all: [Task<Void, Never>] = []
    private(set) var fired: [Int] = []
    init(ignoresCancel: Bool) { self.ignoresCancel = ignoresCancel }

    func submit(_ value: Int) {
        pending?.cancel()
        let task = Task {
            if ignoresCancel {
                try? await clock.sleep(for: .milliseconds(300))
            } else {
                do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
            }
            fired.append(value)
        }
        pending = task
        all.append(task)
    }

    func settle() async {
        for task in all { await task.value }
    }
}

private func typeThreeLetters(_ debouncer: Debouncer) async throws -> String {
    for value in 1...3 { await debouncer.submit(value) }
    await debouncer.settle()
    let fired = await debouncer.fired
    guard fired == [3] else { throw InvariantViolation("fired \(fired.map(String.init).joined(separator: ", "))") }
    return "fired 3"
}

/// The earlier sleeps are cancelled, but `try?` lets them run on and fire 1 and 2 too.
@Sendable private func debounceSwallowsCancel() async throws -> String {
    try await typeThreeLetters(Debouncer(ignoresCancel: true))
}

/// Correct: submits 2 and 3 come before any 300 ms deadline, and a cancelled sleep ends the task.
@Sendable private func debounceLastValueOnly() async throws -> String {
    try await typeThreeLetters(Debouncer(ignoresCancel: false))
}
