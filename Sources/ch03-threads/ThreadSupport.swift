import Foundation
import WorkbookCore

// Helpers the chapter's scenarios share: starting a thread that can be waited for, and asking
// the OS what it calls the current thread.

/// A thread started with a block, and a way to wait for its end: `Thread` itself has no `join`.
struct StartedThread {
    let thread: Thread
    private let ended: DispatchSemaphore

    /// Creates a thread that runs `body`, optionally names it from outside (as most code does),
    /// and starts it.
    init(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        let ended = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            ended.signal()
        }
        if let name { thread.name = name }
        thread.start()
        self.thread = thread
        self.ended = ended
    }

    /// Waits at most `seconds` for the thread's body to return; false if it did not. Joining a
    /// thread that has ended returns true at once, however often.
    func join(seconds: Double = 5) -> Bool {
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()  // for the next join
        return true
    }

    /// Waits for the end, or throws `ScenarioStuck`.
    func join(seconds: Double = 5, _ what: Localized) throws {
        guard join(seconds: seconds) else { throw ScenarioStuck(what: what) }
    }
}

/// The name the OS gives the calling thread: on Linux the kernel's (`/proc/thread-self/comm`, at
/// most 15 characters); elsewhere Foundation's `Thread.current.name`.
func osThreadName() -> String {
    #if canImport(Glibc)
    if let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) {
        return name.trimmingCharacters(in: .newlines)
    }
    #endif
    return Thread.current.name ?? ""
}
