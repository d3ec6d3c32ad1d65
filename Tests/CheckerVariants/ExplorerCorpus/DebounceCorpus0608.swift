import WorkbookExplorer

// Chapter 06: debouncing a search field with plain `Task.sleep`: each keystroke cancels the pending
// search task and starts a new one that sleeps 300 ms, then searches.

let debounceCorpus0608: [CorpusBody] = [
    CorpusBody("debounce0608.tryQuestionSwallowsCancel", shape: "debounce with plain Task.sleep",
               .fails("every keystroke is searched: `try?` turns the cancelled sleep into a normal return"),
               body: tryQuestionSwallowsCancel),
    CorpusBody("debounce0608.cancelledSleepEndsTask", shape: "debounce with plain Task.sleep",
               .passes, body: cancelledSleepEndsTask),
    CorpusBody("debounce0608.lastQueryDropped", shape: "debounce with plain Task.sleep",
               .fails("nothing is searched: the new task is stored, then `pending?.cancel()` cancels it instead of the old one"),
               body: lastQueryDropped),
    CorpusBody("debounce0608.pauseSearchesTwice", shape: "debounce with plain Task.sleep",
               .passes, body: pauseSearchesTwice),
]

private actor SearchBackend {
    private(set) var searched: [String] = []
    func search(_ query: String) { searched.append(query) }
}

private enum Debounce: Sendable {
    case correct
    case swallowsCancellation
    case cancelsTheNewTask
}

private actor SearchField {
    private let backend: SearchBackend
    private let debounce: Debounce
    private var pending: Task<Void, Error>?
    init(backend: SearchBackend, debounce: Debounce) {
        self.backend = backend
        self.debounce = debounce
    }

    /// The text field's change handler.
    func textChanged(_ query: String) {
        let backend = backend
        switch debounce {
        case .correct:
            pending?.cancel()
            pending = Task {
                try await Task.sleep(for: .milliseconds(300))
                await backend.search(query)
            }
        case .swallowsCancellation:
            pending?.cancel()
            pending = Task {
                try? await Task.sleep(for: .milliseconds(300))
                await backend.search(query)
            }
        case .cancelsTheNewTask:
            pending = Task {
                try await Task.sleep(for: .milliseconds(300))
                await backend.search(query)
            }
            pending?.cancel()  // meant for the previous task
        }
    }
}

/// Types the keystrokes at their moments (ms), waits a second, returns what was searched.
private func type(_ keystrokes: [(at: Int, text: String)], _ debounce: Debounce) async throws -> [String] {
    let backend = SearchBackend()
    let field = SearchField(backend: backend, debounce: debounce)
    var now = 0
    for keystroke in keystrokes {
        if keystroke.at > now {
            try await Task.sleep(for: .milliseconds(keystroke.at - now))
            now = keystroke.at
        }
        await field.textChanged(keystroke.text)
    }
    try await Task.sleep(for: .seconds(1))
    return await backend.searched
}

private let quickTyping: [(at: Int, text: String)] = [(0, "s"), (100, "sw"), (200, "swi")]
private let typingWithPause: [(at: Int, text: String)] = [(0, "s"), (100, "sw"), (500, "swi")]

private func expectSearches(_ searched: [String], _ expected: [String]) throws -> String {
    guard searched == expected else { throw InvariantViolation("searched \(searched), expected \(expected)") }
    return "searched \(searched)"
}

/// "s" is cancelled at 100 ms, its `try?` sleep returns and it searches "s"; "sw" likewise at 200 ms.
@Sendable private func tryQuestionSwallowsCancel() async throws -> String {
    try expectSearches(try await type(quickTyping, .swallowsCancellation), ["swi"])
}

/// Correct: the cancelled sleeps throw and end their tasks; only "swi" reaches 300 ms of quiet (500 ms).
@Sendable private func cancelledSleepEndsTask() async throws -> String {
    try expectSearches(try await type(quickTyping, .correct), ["swi"])
}

/// Every new task is cancelled right after it is stored, "swi" too: nothing is searched.
@Sendable private func lastQueryDropped() async throws -> String {
    try expectSearches(try await type(quickTyping, .cancelsTheNewTask), ["swi"])
}

/// Correct: "sw" gets 300 ms of quiet (400 ms) before "swi" at 500 ms; both are searched.
@Sendable private func pauseSearchesTwice() async throws -> String {
    try expectSearches(try await type(typingWithPause, .correct), ["sw", "swi"])
}
