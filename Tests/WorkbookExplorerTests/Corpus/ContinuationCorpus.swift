import Synchronization
import WorkbookExplorer

let continuationCorpus: [CorpusCase] = [
    CorpusCase(name: "continuation.twoAnswersRace", shape: "continuation wrapping a callback API", items: [1, 6],
               expectation: .fails("trap: both answers pass a two-step 'already resumed?' flag and the continuation is resumed twice"),
               traps: true, body: twoAnswersRace),
    CorpusCase(name: "continuation.twoAnswersClaimOnce", shape: "continuation wrapping a callback API", items: [1, 6],
               expectation: .passes, traps: false, body: twoAnswersClaimOnce),
    CorpusCase(name: "continuation.progressAndCompletion", shape: "continuation wrapping a callback API", items: [1],
               expectation: .fails("trap: resumed at 100 % progress and again on completion"),
               traps: true, body: progressAndCompletion),
    CorpusCase(name: "continuation.completionOnly", shape: "continuation wrapping a callback API", items: [1],
               expectation: .passes, traps: false, body: completionOnly),
    CorpusCase(name: "continuation.errorPathLeaks", shape: "continuation wrapping a callback API", items: [],
               expectation: .fails("deadlock: the error callback never resumes the continuation"), traps: false, body: errorPathLeaks),
    CorpusCase(name: "continuation.everyPathResumes", shape: "continuation wrapping a callback API", items: [],
               expectation: .passes, traps: false, body: everyPathResumes),
]

/// A legacy locator that answers twice, from its cache and from the network, each from a task
/// of its own; `finished()` lets a test wait for both answers to be delivered.
private final class TwoAnswerLocator: Sendable {
    private let deliveries = Mutex<[Task<Void, Never>]>([])

    func locate(_ handler: @escaping @Sendable (String) async -> Void) {
        let tasks = ["cached", "network"].map { source in Task { nameTask(source); await handler(source) } }
        deliveries.withLock { $0 += tasks }
    }

    func finished() async {
        for task in deliveries.withLock({ $0 }) { await task.value }
    }
}

private actor ResumeFlag {
    private(set) var resumed = false
    func markResumed() { resumed = true }
    /// Returns true to exactly one caller.
    func claim() -> Bool {
        if resumed { return false }
        resumed = true
        return true
    }
}

/// cached reads "not resumed", network reads "not resumed" before cached marks it: both resume.
@Sendable private func twoAnswersRace() async throws -> String {
    let locator = TwoAnswerLocator()
    let flag = ResumeFlag()
    let place: String = await withCheckedContinuation { continuation in
        locator.locate { answer in
            guard !(await flag.resumed) else { return }
            await flag.markResumed()
            continuation.resume(returning: answer)
        }
    }
    await locator.finished()
    return "located from \(place)"
}

/// Correct: test-and-set in one actor call, so exactly one answer resumes.
@Sendable private func twoAnswersClaimOnce() async throws -> String {
    let locator = TwoAnswerLocator()
    let flag = ResumeFlag()
    let place: String = await withCheckedContinuation { continuation in
        locator.locate { answer in
            if await flag.claim() { continuation.resume(returning: answer) }
        }
    }
    await locator.finished()
    return "located from \(place)"
}

/// A legacy downloader reporting progress and then completion, from one task of its own.
private final class LegacyDownloader: Sendable {
    private let running = Mutex<Task<Void, Never>?>(nil)

    func download(progress: @escaping @Sendable (Double) -> Void, completion: @escaping @Sendable (Result<[UInt8], Error>) -> Void) {
        let task = Task {
            for fraction in [0.5, 1.0] {
                progress(fraction)
                await Task.yield()
            }
            completion(.success([1, 2, 3]))
        }
        running.withLock { $0 = task }
    }

    func finished() async { await running.withLock({ $0 })?.value }
}

/// Resumes when progress reaches 100 % and again in the completion: the second resume traps.
@Sendable private func progressAndCompletion() async throws -> String {
    let downloader = LegacyDownloader()
    let data: [UInt8] = try await withCheckedThrowingContinuation { continuation in
        downloader.download(progress: { fraction in
            if fraction == 1.0 { continuation.resume(returning: []) }  // "done" — but completion follows
        }, completion: { result in
            continuation.resume(with: result)
        })
    }
    await downloader.finished()
    return "\(data.count) bytes"
}

/// Correct: progress is only reported; the completion alone resumes.
@Sendable private func completionOnly() async throws -> String {
    let downloader = LegacyDownloader()
    let seen = Mutex<[Double]>([])
    let data: [UInt8] = try await withCheckedThrowingContinuation { continuation in
        downloader.download(progress: { fraction in
            seen.withLock { $0.append(fraction) }
        }, completion: { result in
            continuation.resume(with: result)
        })
    }
    await downloader.finished()
    let fractions = seen.withLock { $0 }
    guard data == [1, 2, 3], fractions == [0.5, 1.0] else { throw InvariantViolation("got \(data) after progress \(fractions)") }
    return "\(data.count) bytes"
}

private struct ServerBusy: Error {}

/// A legacy server handling one request at a time: a second request while one is open fails at once.
private final class OneAtATimeServer: Sendable {
    private let busy = Mutex(false)

    func fetch(_ id: Int, completion: @escaping @Sendable (String?, Error?) -> Void) {
        let accepted = busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
        guard accepted else { return completion(nil, ServerBusy()) }
        Task {
            await Task.yield()
            busy.withLock { $0 = false }
            completion("item \(id)", nil)
        }
    }
}

/// Request 2 is sent while request 1 is open: the busy error is ignored and request 2 waits for ever.
@Sendable private func errorPathLeaks() async throws -> String {
    let server = OneAtATimeServer()
    async let first = fetchIgnoringErrors(server, 1)
    async let second = fetchIgnoringErrors(server, 2)
    let items = await [first, second]
    return items.joined(separator: ", ")
}

private func fetchIgnoringErrors(_ server: OneAtATimeServer, _ id: Int) async -> String {
    nameTask("request \(id)")
    return await withCheckedContinuation { continuation in
        server.fetch(id) { item, _ in
            if let item { continuation.resume(returning: item) }
        }
    }
}

/// Correct: the error path resumes too, and the caller reports it.
@Sendable private func everyPathResumes() async throws -> String {
    let server = OneAtATimeServer()
    async let first = fetchOrError(server, 1)
    async let second = fetchOrError(server, 2)
    let items = await [first, second]
    guard items.contains("item 1") || items.contains("item 2") else { throw InvariantViolation("both requests failed: \(items)") }
    return items.joined(separator: ", ")
}

private func fetchOrError(_ server: OneAtATimeServer, _ id: Int) async -> String {
    nameTask("request \(id)")
    do {
        return try await withCheckedThrowingContinuation { continuation in
            server.fetch(id) { item, error in
                if let item { continuation.resume(returning: item) } else { continuation.resume(throwing: error ?? ServerBusy()) }
            }
        }
    } catch {
        return "request \(id) busy"
    }
}
