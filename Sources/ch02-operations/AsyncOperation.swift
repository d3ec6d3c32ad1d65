import Foundation
import WorkbookCore

extension Chapter02 {
    /// Wrapping callback-based work in an Operation: the queue thinks an operation is done when
    /// `main()` returns, unless the operation takes over `start()` and reports `isFinished` itself.
    static let asyncOperation = Scenario(
        slug: "async-operation",
        title: Localized("An asynchronous operation", ja: "非同期オペレーション"),
        narration: Localized(
            """
            A download operation calls a callback API: it sends a request, and the reply comes later on another thread. \
            A second operation depends on the download and uses its result. The fake server holds its reply until the queue has shown what it will do, \
            so each run tells the same story. \
            1) The wrong way: `main()` sends the request and returns. For the queue, returning from `main()` means finished, \
            so the dependant starts while the request is still in flight (the `server` lane) and reads nil. \
            2) The right way: override `start()` (not `main()`), set `isExecuting`, and return with the work still running; \
            when the reply arrives, set `isFinished` and announce both changes with `willChangeValue`/`didChangeValue(forKey:)`. \
            The state sits behind a lock because the queue reads it from its threads while the reply sets it from another. \
            Now the dependant starts after the reply and sees the result. (`isAsynchronous = true` matters only when you call `start()` yourself; queues ignore it.) \
            3) Right, but silent: the same state changes without the notifications. The queue is never told, so the dependant never starts, \
            and nothing reports it; the scenario gives up after 300 ms, then sends the missing notification and the dependant starts at once.
            """,
            ja: """
            ダウンロード用のオペレーションはコールバック式の API を呼びます。リクエストを送ると、応答は後で別のスレッドに届きます。\
            2 つ目のオペレーションはダウンロードに依存し、その結果を使います。フェイクのサーバーは、キューがどう動くかがはっきりするまで応答を保留するので、毎回同じ筋書きになります。\
            1) 間違ったやり方: `main()` はリクエストを送って戻ります。キューにとって `main()` から戻ることは終わったことを意味するので、\
            リクエストがまだ進行中のうちに（`server` レーン）依存するオペレーションが始まり、nil を読みます。\
            2) 正しいやり方: `main()` ではなく `start()` をオーバーライドし、`isExecuting` を立てて、処理が続いている状態のまま戻ります。\
            応答が届いたら `isFinished` を立て、両方の変化を `willChangeValue`/`didChangeValue(forKey:)` で知らせます。\
            キューは自分のスレッドから状態を読み、応答は別のスレッドから書くので、状態はロックで守ります。\
            これで依存するオペレーションは応答の後に始まり、結果を受け取れます。（`isAsynchronous = true` が意味を持つのは自分で `start()` を呼ぶときだけで、キューはこの値を無視します。）\
            3) 正しいけれど通知しないやり方: 同じ状態変化を、通知なしで行います。キューには知らされないので依存するオペレーションは永遠に始まらず、しかも何も報告されません。\
            シナリオは 300 ms で見切りをつけ、足りなかった通知を遅れて送ります。すると依存するオペレーションはすぐに始まります。
            """)
    ) { context in
        try await blocking { try runAsyncOperation(context) }
    }

    private enum DownloadStyle: Equatable {
        /// `main()` starts the request and returns.
        case mainReturns
        /// `start()` starts the request; the reply finishes the operation, with or without KVO.
        case asynchronous(notifies: Bool)
    }

    private static func runAsyncOperation(_ context: ScenarioContext) throws {
        context.say(Localized("1) main() sends the request and returns:", ja: "1) main() がリクエストを送って戻る:"))
        try runDownload(.mainReturns, part: 1, context)
        context.say(Localized("2) start() sends the request; the reply sets isFinished, with KVO notifications:",
                              ja: "2) start() がリクエストを送り、応答で isFinished を立てて KVO で通知する:"))
        try runDownload(.asynchronous(notifies: true), part: 2, context)
        context.say(Localized("3) The same, but without willChangeValue/didChangeValue (not drawn on the timeline):",
                              ja: "3) 同じだが willChangeValue/didChangeValue を呼ばない（タイムラインには描きません）:"))
        try runDownload(.asynchronous(notifies: false), part: 3, context)
    }

    private static func runDownload(_ style: DownloadStyle, part: Int, _ context: ScenarioContext) throws {
        // Part three waits 300 ms for nothing; on the shared trace it would squeeze parts one and two.
        let trace = style == .asynchronous(notifies: false) ? Trace() : context.trace
        let from = trace.nextSequence
        let server = FakeServer(trace: trace, context: context)
        let download: DownloadOperation = switch style {
        case .mainReturns: ReturnsTooEarlyDownload(server: server, trace: trace, context: context)
        case let .asynchronous(notifies): AsynchronousDownload(notifies: notifies, server: server, trace: trace, context: context)
        }
        let dependantStarted = DispatchSemaphore(value: 0)
        let used = Locked<String?>(nil)
        let dependant = BlockOperation {
            let lane = context.trace.currentThreadLane()  // lanes named as on the chapter's trace
            let result = download.result ?? "nil"
            used.withLock { $0 = result }
            let label = Localized("dependant", ja: "依存する側")
            trace.begin(label, lane: lane)
            dependantStarted.signal()  // only now, having read: the scenario may release the reply
            spin(microseconds: 500)
            trace.end(label, lane: lane)
            context.printLine(Localized("dependant runs, result = \(result)", ja: "依存する側が動く、結果 = \(result)"), lane: lane)
        }
        dependant.addDependency(download)
        let queue = OperationQueue()
        let operations: [Operation] = [download, dependant]
        trace.record(Localized("add", ja: "追加"), lane: context.trace.currentThreadLane())
        queue.addOperations(operations, waitUntilFinished: false)
        defer { server.release.signal() }  // never leave the reply held

        try wait(for: server.requested, Localized("the request was never sent", ja: "リクエストが送られませんでした"))
        try wait(for: download.startReturned, Localized("start() did not return", ja: "start() が戻りませんでした"))
        // Hold the reply until the queue has shown its hand, so the order is the same every run.
        // When main() has returned, the queue counts the download as finished (Foundation may
        // mark it a moment after start() returns), so the dependant is on its way: wait for it.
        // The asynchronous downloads cannot finish before the reply, so nothing is on its way.
        if style == .mainReturns {
            try wait(for: dependantStarted, Localized("the dependant did not start", ja: "依存するオペレーションが始まりませんでした"))
        }
        server.release.signal()

        switch style {
        case .mainReturns, .asynchronous(notifies: true):
            try waitForAll(in: queue, Localized("the operations did not finish", ja: "オペレーションが終わりませんでした"))
            // Part one's queue is done long before the reply: wait for it here, so that it is
            // shown as part one's and not in the middle of part two.
            try wait(for: server.replied, Localized("the reply never arrived", ja: "応答が届きませんでした"))
            let replied = trace.sequence(of: .end, "request", from: from) ?? Int.max
            let began = trace.sequence(of: .begin, "dependant", from: from) ?? -1
            let afterReply = began > replied
            context.note("part \(part) dependant after reply", String(afterReply))
            context.note("part \(part) result", used.current ?? "")
            context.say(afterReply
                ? Localized("  The dependant began after the reply arrived and used the result.",
                            ja: "  依存するオペレーションは応答が届いてから始まり、結果を使いました。")
                : Localized("  The dependant began BEFORE the reply arrived: the queue counted the download as finished when main() returned.",
                            ja: "  依存するオペレーションは応答が届く前に始まりました。キューは main() から戻った時点でダウンロードを終わったとみなしたのです。"))
        case .asynchronous(notifies: false):
            try wait(for: server.replied, Localized("the reply never arrived", ja: "応答が届きませんでした"))
            try runSilentDownload(queue: queue, download: download, dependant: dependant, context)
        }
        withExtendedLifetime(operations) {}
    }

    /// Part three: the reply flips the state without telling anyone. Give up after 300 ms, then
    /// send the notification the operation forgot.
    private static func runSilentDownload(queue: OperationQueue, download: DownloadOperation, dependant: Operation, _ context: ScenarioContext) throws {
        let drained = returnsWithin(seconds: 0.3) { queue.waitUntilAllOperationsAreFinished() }
        context.note("part 3 dependant ran without notification", String(drained))
        if drained {
            context.say(Localized("  The dependant ran anyway: this Foundation noticed without the notification.",
                                  ja: "  それでも依存するオペレーションは動きました。この Foundation は通知なしで気づいたのです。"))
            return
        }
        context.say(Localized(
            """
              After 300 ms the dependant has not started. download.isFinished = \(download.isFinished), \
            but dependant.isReady = \(dependant.isReady) and the queue still holds \(queue.operationCount) operation(s): it was never told.
            """,
            ja: """
              300 ms 経っても依存するオペレーションは始まっていません。download.isFinished = \(download.isFinished) なのに、\
            dependant.isReady = \(dependant.isReady) で、キューにはまだ \(queue.operationCount) 個のオペレーションがあります。キューには一度も知らされていないのです。
            """))
        context.say(Localized("  Sending willChangeValue/didChangeValue(forKey: \"isFinished\") now:",
                              ja: "  ここで willChangeValue/didChangeValue(forKey: \"isFinished\") を送ると:"))
        (download as? AsynchronousDownload)?.announceFinished()
        let rescued = returnsWithin(seconds: 2) { queue.waitUntilAllOperationsAreFinished() }
        context.note("part 3 rescued by the notification", String(rescued))
        context.say(rescued
            ? Localized("  the dependant ran at once, and the queue emptied.", ja: "  依存するオペレーションはすぐに動き、キューは空になりました。")
            : Localized("  the dependant still did not start; the queue is left behind.", ja: "  それでも依存するオペレーションは始まりませんでした。キューは置き去りにします。"))
    }
}

/// The fake server: takes a request and replies on another thread when the scenario lets it.
/// The request in flight is drawn as a span on the lane `server`.
private final class FakeServer: Sendable {
    let requested = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let replied = DispatchSemaphore(value: 0)
    private let trace: Trace
    private let context: ScenarioContext

    init(trace: Trace, context: ScenarioContext) {
        self.trace = trace
        self.context = context
    }

    func fetch(reply: @escaping @Sendable (String) -> Void) {
        let lane = context.text(Localized("server", ja: "サーバー")), request = Localized("request", ja: "リクエスト")
        trace.begin(request, lane: lane)
        requested.signal()
        DispatchQueue.global().async { [self] in
            _ = release.wait(timeout: .now() + 5)
            spin(microseconds: 800)  // the reply on its way, so the span is visible
            trace.end(request, lane: lane)
            context.printLine(Localized("reply arrives", ja: "応答が届く"), lane: lane)
            reply("photo.jpg")
            replied.signal()
        }
    }
}

/// What the scenario needs from either download: the result, and a signal that `start()` has returned.
private class DownloadOperation: Operation, @unchecked Sendable {  // immutable references; the result behind Locked
    let server: FakeServer
    let trace: Trace
    let context: ScenarioContext
    /// Instrumentation: signalled when the queue's call to `start()` has returned.
    let startReturned = DispatchSemaphore(value: 0)
    private let stored = Locked<String?>(nil)

    init(server: FakeServer, trace: Trace, context: ScenarioContext) {
        self.server = server
        self.trace = trace
        self.context = context
    }

    /// The downloaded data; nil until the reply has arrived.
    var result: String? {
        get { stored.current }
        set { stored.withLock { $0 = newValue } }
    }
}

/// The wrong way: `main()` starts the callback work and returns. The queue calls the operation
/// finished as soon as `main()` returns, long before the reply.
private final class ReturnsTooEarlyDownload: DownloadOperation, @unchecked Sendable {  // no state of its own
    override func main() {
        let lane = context.trace.currentThreadLane()  // lanes named as on the chapter's trace
        trace.span("main()", lane: lane) {
            server.fetch { [self] data in result = data }
        }
        context.printLine(Localized("main() returns; the request is still in flight", ja: "main() が戻る。リクエストはまだ進行中"), lane: lane)
    }

    /// Instrumentation only: lets the scenario know that `start()` (which ran `main()`) returned.
    override func start() {
        super.start()
        startReturned.signal()
    }
}

/// The right way: `start()` starts the work and returns; the reply marks the operation finished
/// and tells the queue through key-value notifications.
///
/// The queue reads `isExecuting` and `isFinished` from its threads while the reply sets them from
/// another, so the state is behind a lock. Without `willChangeValue`/`didChangeValue(forKey:)`
/// (`notifies: false`) the queue never learns that the operation finished.
private final class AsynchronousDownload: DownloadOperation, @unchecked Sendable {  // state behind Locked
    private enum State { case waiting, executing, finished }
    private let state = Locked(State.waiting)
    private let notifies: Bool

    init(notifies: Bool, server: FakeServer, trace: Trace, context: ScenarioContext) {
        self.notifies = notifies
        super.init(server: server, trace: trace, context: context)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.current == .executing }
    override var isFinished: Bool { state.current == .finished }

    override func start() {
        defer { startReturned.signal() }
        guard !isCancelled else {
            move(to: .finished)
            return
        }
        move(to: .executing)
        let lane = context.trace.currentThreadLane()  // lanes named as on the chapter's trace
        trace.span("start()", lane: lane) {
            server.fetch { [self] data in
                result = data
                move(to: .finished)
            }
        }
        context.printLine(Localized("start() returns; isExecuting = \(isExecuting)", ja: "start() が戻る。isExecuting = \(isExecuting)"), lane: lane)
    }

    /// The notification part three forgot, sent late.
    func announceFinished() {
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
    }

    private func move(to new: State) {
        if notifies {
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
        }
        state.withLock { $0 = new }
        if notifies {
            didChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isExecuting")
        }
    }
}
