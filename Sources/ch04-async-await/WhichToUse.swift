import ExerciseKit
import Foundation
import WorkbookCore

/// What a callback-style way of the job hands its caller: the thumbnails in id order, or the
/// first failure in id order.
private typealias Completion = @Sendable (Result<[Thumbnail], any Error>) -> Void

/// The results of a callback-style way, one per id, guarded by a lock because the callbacks
/// arrive on several threads at once.
private final class Collected: Sendable {
    private let results = Locked<[String: Result<Thumbnail, any Error>]>([:])

    func set(_ id: String, _ result: Result<Thumbnail, any Error>) { results.withLock { $0[id] = result } }

    func set(_ id: String, _ thumbnail: Thumbnail?) { set(id, thumbnail.map { .success($0) } ?? .failure(ThumbnailError.badImage)) }

    /// All thumbnails in id order, or the first failure in id order (a missing one: cancelled).
    func outcome(for ids: [String]) -> Result<[Thumbnail], any Error> {
        let results = results.current
        return Result { try ids.map { try (results[$0] ?? .failure(CancellationError())).get() } }
    }
}

/// The OperationQueue way's operation: fetches and shrinks one picture with the callback API.
///
/// The short way, a `BlockOperation` whose block waits on a semaphore for the callbacks, blocks
/// a pool thread per picture. On Linux the server's tasks run on those same pool threads: seen
/// here, with both of the machine's two threads blocked, the first run took 3 s, until libdispatch
/// had added a thread a second. So the operation is asynchronous (chapter 02): `start()` returns
/// at once, and the last callback marks it finished, telling the queue with key-value
/// notifications (without them, on Linux, its dependants never start).
private final class ThumbnailOperation: Operation, @unchecked Sendable {  // lets only; state behind Locked
    private let id: String, server: ThumbnailServer, collected: Collected
    private let state = Locked((executing: false, finished: false))

    init(id: String, server: ThumbnailServer, collected: Collected) {
        (self.id, self.server, self.collected) = (id, server, collected)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.current.executing }
    override var isFinished: Bool { state.current.finished }

    override func start() {
        guard !isCancelled else { return finish() }
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        server.fetchData(for: id) { [self] data, _, error in
            guard let data, let picture = Picture(data: data) else {
                collected.set(id, .failure(error ?? ThumbnailError.badImage))
                return finish()
            }
            picture.prepareThumbnail { [self] thumbnail in
                collected.set(id, thumbnail)
                finish()
            }
        }
    }

    private func finish() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        state.withLock { $0 = (executing: false, finished: true) }
        didChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
    }
}

extension Chapter04 {
    /// One job, four tools: GCD, OperationQueue, Thread and a task group each fetch the same
    /// thumbnails at once; what each makes you write, how it cancels, how errors come back.
    static let whichToUse = Scenario(
        slug: "which-to-use",
        title: Localized("Which should I use? One job with GCD, OperationQueue, Thread and a task group", ja: "どれを使うべきか？ 同じ処理を GCD、OperationQueue、Thread、タスクグループで"),
        narration: Localized(
            """
            The job: fetch `thumbnails` thumbnails from the chapter's `ThumbnailServer` at once (20 ms per request, then 5 ms to shrink each picture) \
            and hand the caller all of them in order, or an error. Four ways, each a function in this file: \
            GCD (`DispatchGroup` around the callback API), OperationQueue (an asynchronous operation per picture and a collecting operation that depends on them all), \
            `Thread` (a thread per picture), and Swift Concurrency (`withThrowingTaskGroup` around the async API). \
            The three callback ways also need a lock around the results and a `Result` they build by hand; the threads block while they wait for their callbacks. \
            (A `BlockOperation` that waited for its callbacks the same way took 3 s here instead of 25 ms: on Linux the server's tasks run on the same GCD pool threads \
            those blocks held while they waited, and libdispatch added about one thread a second. That is pool starvation; this way's operations are asynchronous instead.) \
            Part 1 times each way. Part 2 makes the second request fail (`ServerError.offline`): the callback ways pass the error inside the `Result` they built, \
            after every other callback has come in; the task group throws it from `try await` and cancels the requests still running. \
            Part 3 cancels right after starting: GCD has no way to cancel this work; `cancelAllOperations()` skips operations that had not started, the collecting one included, \
            so the caller is never called back; `Thread.cancel()` only sets a flag nobody reads here; cancelling the task reaches every child and the server's `Task.sleep`, \
            and the caller gets `CancellationError` at once. A table of when to use which closes the chapter.
            """,
            ja: """
            処理の内容: 本章の `ThumbnailServer` から `thumbnails` 枚のサムネイルを同時に取得し（1 リクエスト 20 ms、縮小に 1 枚 5 ms）、\
            すべてを順番どおりに、またはエラーを、呼び出し元に渡します。やり方は 4 通りで、それぞれこのファイルの 1 つの関数です。\
            GCD（コールバック式 API を `DispatchGroup` で囲む）、OperationQueue（1 枚ごとの非同期オペレーションと、それらすべてに依存する集計オペレーション）、\
            `Thread`（1 枚ごとにスレッド 1 本）、Swift の並行処理（async の API を `withThrowingTaskGroup` で囲む）です。\
            コールバック式の 3 つは、結果を守るロックと、手で組み立てる `Result` も必要です。スレッドは、コールバックを待つ間ブロックします。\
            （同じようにコールバックを待つ `BlockOperation` では、ここでは 25 ms ではなく 3 秒かかりました。Linux ではサーバーのタスクも GCD のプールのスレッドで動くのに、\
            それらのスレッドはブロックが待つ間ふさいでいて、libdispatch はおよそ 1 秒に 1 本しかスレッドを足さなかったからです。これがプールの枯渇です。ここでのオペレーションは、代わりに非同期オペレーションにしています。）\
            パート 1 はそれぞれの所要時間を測ります。パート 2 では 2 つ目のリクエストが失敗します（`ServerError.offline`）。コールバック式は、ほかのコールバックがすべて届いた後で、\
            自分で組み立てた `Result` に入れてエラーを渡します。タスクグループは `try await` からエラーをスローし、まだ動いているリクエストをキャンセルします。\
            パート 3 は開始直後にキャンセルします。GCD にはこの処理をキャンセルする手段がありません。`cancelAllOperations()` はまだ始まっていないオペレーションを集計用も含めて飛ばすので、\
            呼び出し元にはコールバックが来ません。`Thread.cancel()` はフラグを立てるだけで、ここでは誰も読みません。タスクのキャンセルはすべての子タスクとサーバーの `Task.sleep` に届き、\
            呼び出し元はすぐに `CancellationError` を受け取ります。最後に、どれをいつ使うかの表で本章を締めくくります。
            """),
        knobs: [
            .init("thumbnails", default: 4, range: 2...16, help: Localized("thumbnails the job fetches", ja: "取得するサムネイルの枚数")),
        ]
    ) { context in
        try await runWhichToUse(context)
    }

    /// The four ways, in the order the scenario shows them.
    enum FetchWay: String, CaseIterable, Sendable {
        case gcd = "GCD", operations = "OperationQueue", threads = "Thread", taskGroup = "task group"

        /// The lines of the way's function in this file, from `private static func` to its
        /// closing brace, and of the type it needs of its own (`ThumbnailOperation`); a chapter
        /// test counts them again.
        var linesOfCode: Int {
            switch self {
            case .gcd: 20
            case .operations: 46
            case .threads: 24
            case .taskGroup: 14
            }
        }

        /// The name of the way's function in this file.
        var function: String {
            switch self {
            case .gcd: "thumbnailsWithGCD"
            case .operations: "thumbnailsWithOperations"
            case .threads: "thumbnailsWithThreads"
            case .taskGroup: "thumbnailsWithTaskGroup"
            }
        }

        var lane: Localized { self == .taskGroup ? Localized("task group", ja: "タスクグループ") : .verbatim(rawValue) }
    }

    // MARK: The four ways

    /// GCD: a group counts the requests in flight; `notify` runs when the last one leaves.
    private static func thumbnailsWithGCD(_ ids: [String], server: ThumbnailServer, completion: @escaping Completion) {
        let group = DispatchGroup()
        let collected = Collected()
        for id in ids {
            group.enter()
            server.fetchData(for: id) { data, _, error in
                guard let data, let picture = Picture(data: data) else {
                    collected.set(id, .failure(error ?? ThumbnailError.badImage))
                    return group.leave()
                }
                picture.prepareThumbnail { thumbnail in
                    collected.set(id, thumbnail)
                    group.leave()
                }
            }
        }
        group.notify(queue: .global()) {
            completion(collected.outcome(for: ids))
        }
    }

    /// OperationQueue: an asynchronous operation per picture (`ThumbnailOperation`, above), and one
    /// that collects after all of them. Returns the operations: keep them until the queue is done.
    private static func thumbnailsWithOperations(_ ids: [String], server: ThumbnailServer, queue: OperationQueue,
                                                 completion: @escaping Completion) -> [Operation] {
        let collected = Collected()
        let fetches = ids.map { ThumbnailOperation(id: $0, server: server, collected: collected) }
        let collect = BlockOperation { completion(collected.outcome(for: ids)) }
        for fetch in fetches { collect.addDependency(fetch) }
        queue.addOperations(fetches + [collect], waitUntilFinished: false)
        return fetches + [collect]
    }

    /// Thread: a thread per picture, each blocked until its callbacks come; the last one to
    /// finish calls the completion (`Thread` has no join). Returns the threads, to cancel.
    private static func thumbnailsWithThreads(_ ids: [String], server: ThumbnailServer, completion: @escaping Completion) -> [Thread] {
        let collected = Collected()
        let remaining = Locked(ids.count)
        return ids.map { id in
            let thread = Thread {
                let done = DispatchSemaphore(value: 0)
                server.fetchData(for: id) { data, _, error in
                    guard let data, let picture = Picture(data: data) else {
                        collected.set(id, .failure(error ?? ThumbnailError.badImage))
                        done.signal()
                        return
                    }
                    picture.prepareThumbnail { thumbnail in
                        collected.set(id, thumbnail)
                        done.signal()
                    }
                }
                done.wait()
                if remaining.withLock({ $0 -= 1; return $0 }) == 0 { completion(collected.outcome(for: ids)) }
            }
            thread.start()
            return thread
        }
    }

    /// Swift Concurrency: a child task per picture. The first error thrown leaves the group,
    /// which cancels the children still running; a cancel of the caller's task reaches them all.
    private static func thumbnailsWithTaskGroup(_ ids: [String], server: ThumbnailServer) async throws -> [Thumbnail] {
        try await withThrowingTaskGroup(of: (String, Thumbnail).self) { group in
            for id in ids {
                group.addTask {
                    let (data, _) = try await server.data(for: id)
                    guard let thumbnail = await Picture(data: data)?.thumbnail else { throw ThumbnailError.badImage }
                    return (id, thumbnail)
                }
            }
            var thumbnails: [String: Thumbnail] = [:]
            for try await (id, thumbnail) in group { thumbnails[id] = thumbnail }
            return ids.compactMap { thumbnails[$0] }
        }
    }

    // MARK: Running them

    /// Operations whose queue did not empty in time: kept alive (see `run`).
    private static let leftOperations = Locked<[Operation]>([])

    /// What one run of one way gave.
    private struct Run {
        /// nil: the caller was never called back.
        let outcome: Result<[Thumbnail], any Error>?
        let took: UInt64
        let requests: Int
    }

    /// Runs `way` on `ids` (cancelling right after the start if `cancels`) and waits for its
    /// outcome: at most 30 s for a completion, or until an operation queue is empty.
    private static func run(_ way: FetchWay, ids: [String], replies: [String: ThumbnailServer.Reply], cancels: Bool,
                            part: Int, _ context: ScenarioContext) async -> Run {
        let server = ThumbnailServer(replies: replies, latency: .milliseconds(20))
        let label = Localized.verbatim("\(part)")
        let delivered = Locked<Result<[Thumbnail], any Error>?>(nil)
        let done = OneShotSignal()
        let completion: Completion = { result in
            delivered.withLock { $0 = result }
            done.fire()
        }
        context.trace.begin(label, lane: way.lane)
        let started = MonotonicClock.now()
        switch way {
        case .gcd:
            thumbnailsWithGCD(ids, server: server, completion: completion)  // nothing to cancel it with
            try? await done.wait(Localized("the GCD way did not finish", ja: "GCD 版が終わりませんでした"))
        case .operations:
            let queue = OperationQueue()
            let operations = thumbnailsWithOperations(ids, server: server, queue: queue, completion: completion)
            if cancels { queue.cancelAllOperations() }
            let emptied = await onDedicatedThread { returnsWithin(seconds: 30) { queue.waitUntilAllOperationsAreFinished() } }
            // swift-corelibs-foundation keeps an operation's dependants unretained: the collecting
            // operation, cancelled and released by the queue before a running fetch finished,
            // crashed the process here when that fetch finished. So the operations are kept until
            // the queue is empty, and for good if it never empties.
            if emptied { withExtendedLifetime(operations) {} } else { leftOperations.withLock { $0 += operations } }
        case .threads:
            let threads = thumbnailsWithThreads(ids, server: server, completion: completion)
            if cancels { for thread in threads { thread.cancel() } }
            try? await done.wait(Localized("the threads did not finish", ja: "スレッドが終わりませんでした"))
        case .taskGroup:
            let job = Task { try await thumbnailsWithTaskGroup(ids, server: server) }
            if cancels { job.cancel() }
            completion(await job.result)
        }
        let took = MonotonicClock.now() - started
        context.trace.end(label, lane: way.lane)
        return Run(outcome: delivered.current, took: took, requests: server.requests.count)
    }

    private static func describe(_ outcome: Result<[Thumbnail], any Error>?, _ language: Language) -> String {
        switch outcome {
        case nil: Localized("never called back", ja: "コールバックなし").text(language)
        case .success(let thumbnails): Localized("\(thumbnails.count) thumbnails", ja: "サムネイル \(thumbnails.count) 枚").text(language)
        case .failure(let error): error is CancellationError ? "CancellationError" : "\(type(of: error)).\(error)"
        }
    }

    private static func runWhichToUse(_ context: ScenarioContext) async throws {
        let count = context.knob("thumbnails")
        let ids = (1...count).map { "p\($0)" }
        let allFine = Dictionary(uniqueKeysWithValues: ids.map { ($0, ThumbnailServer.Reply.image) })
        var secondFails = allFine
        secondFails["p2"] = .offline
        func t(_ text: Localized) -> String { context.text(text) }
        func row(_ cells: [(String, Int)]) -> String {
            var line = "  "
            for (text, width) in cells { line += padded(text, to: width) }
            while line.last == " " { line.removeLast() }
            return line
        }

        // 1) Everything succeeds.
        context.say(Localized("1) Fetch \(count) thumbnails:", ja: "1) サムネイルを \(count) 枚取得:"))
        context.show(row([("", 17), (t(Localized("lines", ja: "行数")), 8), (t(Localized("time", ja: "所要時間")), 11), (t(Localized("result", ja: "結果")), 0)]))
        for way in FetchWay.allCases {
            let run = await run(way, ids: ids, replies: allFine, cancels: false, part: 1, context)
            let result = describe(run.outcome, context.language)
            context.note("\(way.rawValue) part 1", result)
            context.show(row([(t(way.lane), 17), ("\(way.linesOfCode)", 8), (formatDuration(nanoseconds: run.took), 11), (result, 0)]))
        }

        // 2) The second request fails.
        context.say(Localized("2) The same, with the server offline for p2:", ja: "2) 同じ処理で、p2 のときだけサーバーがオフライン:"))
        context.show(row([("", 17), (t(Localized("time", ja: "所要時間")), 11), (t(Localized("result", ja: "結果")), 0)]))
        var took: [FetchWay: UInt64] = [:]
        for way in FetchWay.allCases {
            let run = await run(way, ids: ids, replies: secondFails, cancels: false, part: 2, context)
            let result = describe(run.outcome, context.language)
            took[way] = run.took
            context.note("\(way.rawValue) part 2", result)
            context.show(row([(t(way.lane), 17), (formatDuration(nanoseconds: run.took), 11), (result, 0)]))
        }
        let slowest = took.filter { $0.key != .taskGroup }.values.min() ?? 0
        context.note("task group returned first on error", String((took[.taskGroup] ?? .max) < slowest))
        context.say(Localized(
            "  The callback ways pass the error in the `Result` they build, once every callback is in; the task group throws it from `try await` as it arrives and cancels the children still running.",
            ja: "  コールバック式は、すべてのコールバックが届いてから、自分で組み立てた `Result` に入れてエラーを渡します。タスクグループはエラーが届いた時点で `try await` からスローし、まだ動いている子タスクをキャンセルします。"))

        // 3) Cancel right after the start.
        context.say(Localized("3) Cancel right after the start:", ja: "3) 開始直後にキャンセル:"))
        let cancelCalls: [FetchWay: String] = [
            .gcd: t(Localized("(nothing to call)", ja: "（呼べるものがない）")), .operations: "cancelAllOperations()",
            .threads: "thread.cancel()", .taskGroup: "task.cancel()",
        ]
        context.show(row([("", 17), (t(Localized("cancel with", ja: "キャンセル方法")), 24), (t(Localized("time", ja: "所要時間")), 9),
                          (t(Localized("requests", ja: "リクエスト")), 11), (t(Localized("result", ja: "結果")), 0)]))
        for way in FetchWay.allCases {
            let run = await run(way, ids: ids, replies: allFine, cancels: true, part: 3, context)
            let result = describe(run.outcome, context.language)
            context.note("\(way.rawValue) part 3", result)
            context.show(row([(t(way.lane), 17), (cancelCalls[way]!, 24), (formatDuration(nanoseconds: run.took), 9),
                              ("\(run.requests)", 11), (result, 0)]))
        }

        // When to use which.
        context.say(Localized("When to use which:", ja: "どれをいつ使うか:"))
        let advice: [(Localized, Localized)] = [
            (.verbatim("GCD"), Localized(
                "small fire-and-forget blocks, a serial queue that guards state, a hop to the main queue, timers and sources; in code that predates async/await",
                ja: "投げっぱなしの小さなブロック、状態を守るシリアルキュー、メインキューへのホップ、タイマーやソース。async/await 以前からあるコードで")),
            (.verbatim("OperationQueue"), Localized(
                "work with dependencies, a limit on how many run at once, cancellation of queued work, state to observe; mostly in existing code",
                ja: "依存関係がある処理、同時実行数の上限、待っている処理のキャンセル、監視したい状態。主に既存のコードで")),
            (.verbatim("Thread"), Localized(
                "a long-lived loop that owns something (a run loop, a blocking read); hardly anything else",
                ja: "何かを所有する長寿命のループ（ランループ、ブロックする読み込み）。ほかにはほとんどない")),
            (Localized("Swift Concurrency", ja: "Swift の並行処理"), Localized(
                "new code: reads top to bottom, errors are thrown, cancellation reaches every child, actors guard state, and the compiler checks for data races",
                ja: "新しいコード。上から下へ順に読めて、エラーはスローされて呼び出し元に届き、キャンセルはすべての子タスクに届き、状態はアクターが守り、データ競合はコンパイラが検査する")),
        ]
        for (name, text) in advice {
            context.show(wrap(t(text), prefix: "  " + padded(t(name), to: 19), width: context.terminal.width).joined(separator: "\n"))
        }
    }
}
