import Foundation
import WorkbookCore

/// What a fake request's callback receives; `.cancelled` is the request's own error, like
/// `URLError(.cancelled)`.
enum FakeRequestError: Error, Equatable { case cancelled }

/// A request behind a callback API, with a handle like `URLSessionTask`: `cancel()` makes the
/// request call back with its own `.cancelled` error; `answer` is the server replying. Whichever
/// comes first wins, and the callback runs exactly once, on the thread that ended the request
/// (so the scenarios decide that thread and that moment; nothing runs late on its own).
final class FakeRequest: Sendable {
    enum State: String, Sendable { case running, answered, cancelled }

    private struct Inside {
        var state = State.running
        var completion: (@Sendable (Result<String, FakeRequestError>) -> Void)?
        var callbacks = 0
        var ignoredCancels = 0
    }

    let path: String
    private let inside: Locked<Inside>
    private let log: FakeRequestService.Log

    init(path: String, completion: @escaping @Sendable (Result<String, FakeRequestError>) -> Void, log: @escaping FakeRequestService.Log) {
        self.path = path
        self.inside = Locked(Inside(completion: completion))
        self.log = log
    }

    var state: State { inside.withLock { $0.state } }
    /// How many times the request called back (1 when it ended, 0 while it runs).
    var callbacks: Int { inside.withLock { $0.callbacks } }
    /// `cancel()` calls that came after the request had ended.
    var ignoredCancels: Int { inside.withLock { $0.ignoredCancels } }

    /// Stops the request if it is still running: it calls back with `.cancelled`, here, on this thread.
    func cancel() {
        log(.verbatim("request.cancel()"), nil, .point)
        end(.cancelled, .failure(.cancelled))
    }

    /// The server's reply: the request calls back with `value`, here, on this thread.
    func answer(_ value: String) {
        log(Localized("server answers", ja: "サーバーが応答"), nil, .point)
        end(.answered, .success(value))
    }

    private func end(_ state: State, _ result: Result<String, FakeRequestError>) {
        let completion = inside.withLock { inside -> (@Sendable (Result<String, FakeRequestError>) -> Void)? in
            guard inside.state == .running else {
                inside.ignoredCancels += state == .cancelled ? 1 : 0
                return nil
            }
            inside.state = state
            inside.callbacks += 1
            defer { inside.completion = nil }
            return inside.completion
        }
        guard let completion else {
            log(Localized("ignored: already \(self.state.rawValue)", ja: "無視: すでに\(self.state == .answered ? "応答済み" : "キャンセル済み")"), nil, .point)
            return
        }
        log(.verbatim(path), FakeRequestService.requestLane, .end)
        log(.verbatim(state == .answered ? "callback(.success)" : "callback(.cancelled)"), nil, .point)
        completion(result)
    }
}

/// Starts fake requests and keeps them, so a scenario can answer or inspect the last one.
final class FakeRequestService: Sendable {
    /// Where the fakes and the bridges record what they do: a label, a lane (nil: the calling
    /// thread's) and a kind. Children record nothing.
    typealias Log = @Sendable (_ label: Localized, _ lane: Localized?, _ kind: Trace.Kind) -> Void
    static let requestLane = Localized("request", ja: "リクエスト")

    let log: Log
    /// Fired inside `start`, once the request exists and before its handle is returned.
    let started = OneShotSignal()
    private let requests = Locked<[FakeRequest]>([])
    private let onStart = Locked<(@Sendable () -> Void)?>(nil)

    init(log: @escaping Log = { _, _, _ in }) { self.log = log }

    var last: FakeRequest? { requests.withLock { $0.last } }
    var count: Int { requests.withLock { $0.count } }

    /// Runs `hook` inside the next `start`, on the caller's thread, after the request exists
    /// and before `start` returns it: the moment the bridge does not hold the handle yet.
    func whenStarting(_ hook: @escaping @Sendable () -> Void) { onStart.withLock { $0 = hook } }

    func start(_ path: String, completion: @escaping @Sendable (Result<String, FakeRequestError>) -> Void) -> FakeRequest {
        let request = FakeRequest(path: path, completion: completion, log: log)
        requests.withLock { $0.append(request) }
        log(.verbatim("start(\(path))"), nil, .point)
        log(.verbatim(path), Self.requestLane, .begin)
        started.fire()
        if let hook = onStart.withLock({ hook -> (@Sendable () -> Void)? in defer { hook = nil }; return hook }) { hook() }
        return request
    }
}

/// The handle a cancellable bridge shares with its cancellation handler. Three states, under one
/// lock, because `onCancel` runs on the canceller's thread at any moment: before the request
/// exists, while `start` is still returning it, or after it ended.
final class RequestSlot: Sendable {
    private enum State { case waiting, started(FakeRequest), cancelled }
    private let state = Locked(State.waiting)

    var isCancelled: Bool { state.withLock { if case .cancelled = $0 { true } else { false } } }

    /// Keeps the request; if `cancel()` came first, cancels it at once (returns false).
    @discardableResult
    func attach(_ request: FakeRequest) -> Bool {
        let cancelledFirst = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .started(request)
            return false
        }
        if cancelledFirst { request.cancel() }
        return !cancelledFirst
    }

    /// Cancels the request if there is one, and remembers the cancel for `attach` if not.
    /// Returns whether there was a request to cancel.
    @discardableResult
    func cancel() -> Bool {
        let request = state.withLock { state -> FakeRequest? in
            defer { state = .cancelled }
            if case let .started(request) = state { return request }
            return nil
        }
        request?.cancel()
        return request != nil
    }
}

/// A screen's model that loads a profile through the fake request. On the main actor, as a view
/// model is: the continuation resumes onto the main actor, so nothing of the task runs until
/// the main actor is free — which is what lets scenario 6 cancel "after the callback" on purpose.
@MainActor
final class ProfileLoader {
    let service: FakeRequestService
    /// What the handler saw, for the scenario: whether it found a request, and on which thread.
    let handlerFoundRequest = Locked<Bool?>(nil)
    let handlerThread = Locked<UInt?>(nil)
    let operationThread = Locked<UInt?>(nil)

    init(service: FakeRequestService) { self.service = service }

    /// The careful bridge: the callback alone resumes; `onCancel` only cancels the request
    /// (whose callback then resumes with `.cancelled`, mapped to `CancellationError`), or, if
    /// there is no request yet, leaves a note that stops it the moment it exists.
    func loadProfile() async throws -> String {
        let slot = RequestSlot()
        let log = service.log, operationLabel = Localized("operation", ja: "`operation`")
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                operationThread.withLock { $0 = ThreadIdentity.current }
                log(operationLabel, nil, .begin)
                defer { log(operationLabel, nil, .end) }
                if slot.isCancelled {                       // cancelled before it got here: do not start
                    log(Localized("already cancelled: resume(throwing:)", ja: "キャンセル済み: resume(throwing:)"), nil, .point)
                    return continuation.resume(throwing: CancellationError())
                }
                let request = service.start("/profile") { result in
                    switch result {
                    case let .success(profile): continuation.resume(returning: profile)
                    case .failure(.cancelled): continuation.resume(throwing: CancellationError())
                    }
                }
                if !slot.attach(request) {                  // onCancel ran while start() was returning
                    log(Localized("attach: cancelled meanwhile", ja: "attach(request): その間にキャンセル済み"), nil, .point)
                }
            }
        } onCancel: { [handlerFoundRequest, handlerThread] in
            handlerThread.withLock { $0 = ThreadIdentity.current }
            log(.verbatim("onCancel"), nil, .point)
            let found = slot.cancel()
            handlerFoundRequest.withLock { $0 = found }
        }
    }

    /// The hasty bridge: `onCancel` cancels the handle if there is one, and that is all. Before
    /// the request exists there is none, and the request then runs to its end.
    func loadProfileCancellingHandleOnly() async throws -> String {
        let handle = Locked<FakeRequest?>(nil)
        let log = service.log
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let request = service.start("/profile") { result in
                    continuation.resume(with: result.mapError { _ in CancellationError() })
                }
                handle.withLock { $0 = request }
            }
        } onCancel: {
            log(Localized("onCancel: handle?.cancel()", ja: "onCancel: `handle?.cancel()`"), nil, .point)
            handle.current?.cancel()                        // nil if the request has not started
        }
    }
}

extension Chapter05 {
    /// Cancellation through a continuation: `withTaskCancellationHandler` around
    /// `withCheckedThrowingContinuation`, with a request that has a handle to cancel.
    ///
    /// The hasty way keeps the handle in an optional and cancels it in `onCancel`:
    ///
    ///     onCancel: { handle?.cancel() }   // before the request starts there is no handle: it runs on
    ///
    /// The careful way shares a three-state slot (waiting, started, cancelled) between the two:
    /// `onCancel` cancels the request or leaves a note; the operation reads the note before
    /// starting and again when it stores the handle. Only the callback resumes.
    static let cancellationBridge = Scenario(
        slug: "cancellation-bridge",
        title: Localized("Cancellation through a continuation: before, during, after", ja: "継続を通したキャンセル: 前、最中、後"),
        narration: Localized(
            """
            A continuation knows nothing of cancellation: a cancelled task stays suspended until someone resumes it. \
            `withTaskCancellationHandler` adds a handler, `onCancel`, that runs when the task is cancelled, and the handler must reach two things: \
            the caller, who should get `CancellationError` soon, and the work, which should stop rather than run on. \
            A profile screen's model (on the main actor, as a view model is) loads `/profile` through a fake request with a handle, like `URLSessionTask`: \
            `cancel()` on the handle makes the request call back with its own `.cancelled` error, which the bridge turns into `CancellationError`. \
            Only the request's callback resumes the continuation; `onCancel` only cancels the request. \
            Each moment is made to happen on purpose, with signals and the main actor, never by sleeping. \
            1) Cancelled before the call: `onCancel` runs at once, on the task's own thread, before the operation — before there is any handle. \
            The careful bridge leaves a note, and the operation does not start the request. A bridge that only calls `handle?.cancel()` finds nil, and its request runs to the end. \
            2) During, while the task waits: `onCancel` runs inside `cancel()`, on the caller's thread, finds the handle and cancels the request; the request's callback resumes the task. \
            3) During, while the operation is still inside `start()`: a plain thread cancels the task at the moment the request exists but its handle has not been returned. \
            `onCancel` runs on that thread, concurrently with the operation on the main thread, and finds no handle; the operation finds the note when it stores the handle, and cancels it. \
            4) After the callback: the server has answered and the callback has resumed the continuation, but the task has not run on. \
            `onCancel` still runs, and finds nothing to cancel; the task gets the answer, and the continuation was resumed exactly once. \
            5) In a child process (`ch05-continuations --child \(cancelResumesTwiceChildName)`), a bridge whose `onCancel` resumes the continuation itself and also cancels the request: \
            the request's callback resumes a second time, and the runtime stops the program.
            """,
            ja: """
            継続はキャンセルについて何も知りません。キャンセルされたタスクも、誰かが再開するまでサスペンドしたままです。\
            `withTaskCancellationHandler` はタスクがキャンセルされたときに動くハンドラ `onCancel` を加えます。ハンドラは 2 つのものに届かなければなりません。\
            すぐに `CancellationError` を受け取るべき呼び出し元と、結果を受け取る人もいないまま動き続けるのではなく、止まるべき処理本体です。\
            プロフィール画面のモデル（ビューモデルと同じくメインアクター上）が `/profile` を、`URLSessionTask` のようなハンドルを持つフェイクのリクエストで読み込みます。\
            ハンドルの `cancel()` を呼ぶと、リクエストは自分の `.cancelled` エラーでコールバックし、ブリッジがそれを `CancellationError` に変えます。\
            継続を再開するのはリクエストのコールバックだけで、`onCancel` はリクエストをキャンセルするだけです。\
            どの瞬間も、スリープではなく合図とメインアクターで意図して起こします。\
            1) 呼び出しの前にキャンセル: `onCancel` はタスク自身のスレッドで、`operation` より前に、ただちに動きます。ハンドルはまだどこにもありません。\
            注意深いブリッジはキャンセル済みの印を残し、`operation` はリクエストを始めません。`handle?.cancel()` を呼ぶだけのブリッジは nil を見つけ、リクエストは最後まで動きます。\
            2) 最中、タスクが待っている間: `onCancel` は `cancel()` の中で、`cancel()` を呼んだスレッドで動き、ハンドルを見つけてリクエストをキャンセルします。リクエストのコールバックがタスクを再開します。\
            3) 最中、`operation` がまだ `start()` の中にいる間: リクエストはできたがハンドルはまだ返っていない瞬間に、ふつうのスレッドがタスクをキャンセルします。\
            `onCancel` はそのスレッドで、メインスレッド上の `operation` と並行して動き、ハンドルを見つけられません。`operation` はハンドルを保存するときにキャンセル済みの印に気づき、リクエストをキャンセルします。\
            4) コールバックの後: サーバーが応答し、コールバックが継続を再開しましたが、タスクはまだ先へ進んでいません。\
            それでも `onCancel` は動き、キャンセルするものが何もないと知ります。タスクは応答を受け取り、継続の再開はちょうど 1 回です。\
            5) 子プロセス（`ch05-continuations --child \(cancelResumesTwiceChildName)`）で、`onCancel` が自分で継続を再開し、さらにリクエストもキャンセルするブリッジを動かします。\
            リクエストのコールバックが 2 回目の再開をし、ランタイムがプログラムを止めます。
            """),
        prediction: .init(
            question: Localized(
                "Part 4: the server's answer has resumed the continuation, and then, before the task runs on, the task is cancelled; `onCancel` calls `request.cancel()`. How many times is the continuation resumed in all? (1 or 2)",
                ja: "パート 4: サーバーの応答が継続を再開し、その後タスクが先へ進む前にタスクがキャンセルされます。`onCancel` は `request.cancel()` を呼びます。継続は全部で何回再開されますか？（1 か 2）"),
            explanation: Localized(
                "Once. The request had already ended with the server's answer, so `cancel()` on it did nothing and its callback did not run again; `onCancel` itself never resumes. Had the handler resumed the continuation too, the second resume would trap (part 5).",
                ja: "1 回です。リクエストはサーバーの応答ですでに終わっていたので、`cancel()` は何もせず、コールバックも 2 度目は呼ばれません。`onCancel` 自身は再開しません。ハンドラも継続を再開していたら、2 回目の再開でトラップします（パート 5）。"),
            observe: { $0.noted("after: callbacks") ?? "" },
            isPossible: { $0 == "1" })
    ) { context in
        let log: FakeRequestService.Log = { label, lane, kind in
            switch kind {
            case .begin: context.trace.begin(label, lane: lane ?? .verbatim(context.trace.currentThreadLane()))
            case .end: context.trace.end(label, lane: lane ?? .verbatim(context.trace.currentThreadLane()))
            default: context.trace.record(label, lane: lane ?? .verbatim(context.trace.currentThreadLane()))
            }
        }
        try await cancelBeforeTheCall(context, log: log)
        try await cancelWhileWaiting(context, log: log)
        try await cancelInsideStart(context, log: log)
        try await cancelAfterTheCallback(context, log: log)
        showResumeTwiceInChild(context)
    }

    private static let requestDidNotStart = Localized("the request did not start", ja: "リクエストが始まりませんでした")

    /// How a load ended, as the chapter's code spells it: `"profile"`, `CancellationError`.
    private static func ending(_ result: Result<String, any Error>) -> String {
        switch result {
        case let .success(value): "\"\(value)\""
        case let .failure(error): error is CancellationError ? "CancellationError" : "\(error)"
        }
    }

    // MARK: 1) Before the call

    private static func cancelBeforeTheCall(_ context: ScenarioContext, log: @escaping FakeRequestService.Log) async throws {
        context.say(Localized("1) Cancelled before it reaches the bridge:", ja: "1) ブリッジに着く前にキャンセル:"))
        let service = FakeRequestService(log: log)
        let loader = await ProfileLoader(service: service)
        // A task made on the main actor cannot start before this block returns: cancel() comes first.
        let task = await MainActor.run {
            let task = Task { @MainActor in try await loader.loadProfile() }
            context.trace.record(.verbatim("task.cancel()"))
            task.cancel()
            return task
        }
        let result = await task.result
        let sameThread = loader.handlerThread.current == loader.operationThread.current
        let events = context.trace.events
        let handlerFirst = (events.firstIndex { $0.label == "onCancel" } ?? .max) < (events.lastIndex { $0.label == "operation" && $0.kind == .begin } ?? -1)
        context.note("before: onCancel first", String(handlerFirst))
        context.note("before: handler on task's thread", String(sameThread))
        context.note("before: requests started", String(service.count))
        context.note("before: result", ending(result))
        context.say(Localized(
            "  careful bridge: onCancel ran before the operation: \(handlerFirst); on the task's own thread: \(sameThread). Requests started: \(service.count). The task ended with \(ending(result)).",
            ja: "  注意深いブリッジ: onCancel は `operation` より前に動いた: \(handlerFirst)。タスク自身のスレッドで: \(sameThread)。始まったリクエスト: \(service.count) 件。タスクの結果: \(ending(result))。"))

        // The hasty bridge: onCancel finds no handle, and the request runs on.
        let hastyService = FakeRequestService(log: log)
        let hasty = await ProfileLoader(service: hastyService)
        let hastyTask = await MainActor.run {
            let task = Task { @MainActor in try await hasty.loadProfileCancellingHandleOnly() }
            task.cancel()
            return task
        }
        try await hastyService.started.wait(requestDidNotStart)
        await MainActor.run {}                              // the operation has stored its handle
        let stateAfterCancel = hastyService.last?.state.rawValue ?? "none"
        hastyService.last?.answer("profile")                // only the server's answer ends the wait
        let hastyResult = await hastyTask.result
        context.note("before hasty: request state", stateAfterCancel)
        context.note("before hasty: result", ending(hastyResult))
        context.say(Localized(
            "  handle?.cancel() only: after cancel(), the request was \(stateAfterCancel); the task waited for the server and ended with \(ending(hastyResult)), though it was cancelled.",
            ja: "  `handle?.cancel()` だけのブリッジ: cancel() の後もリクエストは\(stateAfterCancel == "running" ? "動いていた" : "終わっていた")。タスクはサーバーの応答を待ち、キャンセルされていたのに \(ending(hastyResult)) で終わった。"))
    }

    // MARK: 2) During: the task waits

    private static func cancelWhileWaiting(_ context: ScenarioContext, log: @escaping FakeRequestService.Log) async throws {
        context.say(Localized("2) Cancelled while the task waits for the request:", ja: "2) タスクがリクエストを待っている間にキャンセル:"))
        let service = FakeRequestService(log: log)
        let loader = await ProfileLoader(service: service)
        let task = await MainActor.run { Task { @MainActor in try await loader.loadProfile() } }
        try await service.started.wait(requestDidNotStart)
        await MainActor.run {}                              // the operation has attached the request
        let caller = ThreadIdentity.current
        context.trace.record(.verbatim("task.cancel()"))
        task.cancel()
        context.trace.record(Localized("cancel() returns", ja: "cancel() から戻る"))
        let result = await task.result
        let events = context.trace.events
        func index(_ label: String) -> Int { events.lastIndex { $0.label == label } ?? -1 }
        let insideCancel = index("task.cancel()") < index("onCancel") && index("onCancel") < index("cancel() returns")
        let request = service.last
        context.note("waiting: handler on caller's thread", String(loader.handlerThread.current == caller))
        context.note("waiting: handler inside cancel()", String(insideCancel))
        context.note("waiting: handler found request", String(loader.handlerFoundRequest.current ?? false))
        context.note("waiting: request", request?.state.rawValue ?? "none")
        context.note("waiting: callbacks", String(request?.callbacks ?? 0))
        context.note("waiting: result", ending(result))
        context.say(Localized(
            "  onCancel ran inside cancel(): \(insideCancel); on the caller's thread: \(loader.handlerThread.current == caller); it found the request: \(loader.handlerFoundRequest.current ?? false). The request was \(request?.state.rawValue ?? "none") and called back \(request?.callbacks ?? 0) time(s); the task ended with \(ending(result)).",
            ja: "  onCancel は cancel() の中で動いた: \(insideCancel)。cancel() を呼んだスレッドで: \(loader.handlerThread.current == caller)。リクエストを見つけた: \(loader.handlerFoundRequest.current ?? false)。リクエストは\(request?.state == .cancelled ? "キャンセルされ" : "終わり")、コールバックは \(request?.callbacks ?? 0) 回。タスクの結果: \(ending(result))。"))
    }

    // MARK: 3) During: the operation is inside start()

    private static func cancelInsideStart(_ context: ScenarioContext, log: @escaping FakeRequestService.Log) async throws {
        context.say(Localized("3) Cancelled from another thread while the operation is inside start():", ja: "3) `operation` が start() の中にいる間に、別のスレッドからキャンセル:"))
        let service = FakeRequestService(log: log)
        let loader = await ProfileLoader(service: service)
        let taskBox = Locked<Task<String, any Error>?>(nil)
        let cancellerThread = Locked<UInt?>(nil)
        // Inside start(), on the operation's thread: the request exists, its handle is not yet
        // returned. A plain thread cancels the task now, and the operation's thread waits for it
        // (a wait of microseconds, on purpose, to hold the operation at exactly this point).
        service.whenStarting {
            let cancelled = OneShotSignal()
            Thread.detachNewThread {
                cancellerThread.withLock { $0 = ThreadIdentity.current }
                context.trace.record(.verbatim("task.cancel()"))
                taskBox.current?.cancel()
                context.trace.record(Localized("cancel() returns", ja: "cancel() から戻る"))
                cancelled.fire()
            }
            _ = cancelled.waitBlocking(seconds: 10)
        }
        let task = await MainActor.run {
            let task = Task { @MainActor in try await loader.loadProfile() }
            taskBox.withLock { $0 = task }                  // before the task can start: we hold the main actor
            return task
        }
        let result = await task.result
        let events = context.trace.events
        let handler = events.lastIndex { $0.label == "onCancel" } ?? -1
        let operationBegin = events.lastIndex { $0.label == "operation" && $0.kind == .begin } ?? .max
        let operationEnd = events.lastIndex { $0.label == "operation" && $0.kind == .end } ?? -1
        let duringOperation = operationBegin < handler && handler < operationEnd
        let otherThread = loader.handlerThread.current == cancellerThread.current && loader.handlerThread.current != loader.operationThread.current
        let request = service.last
        context.note("inside: handler during operation", String(duringOperation))
        context.note("inside: handler on another thread", String(otherThread))
        context.note("inside: handler found request", String(loader.handlerFoundRequest.current ?? true))
        context.note("inside: request", request?.state.rawValue ?? "none")
        context.note("inside: result", ending(result))
        context.say(Localized(
            "  onCancel ran while the operation was still running: \(duringOperation); on the canceller's thread, not the operation's: \(otherThread); it found a request: \(loader.handlerFoundRequest.current ?? true). The operation found the note when it stored the handle: the request was \(request?.state.rawValue ?? "none"), and the task ended with \(ending(result)).",
            ja: "  onCancel は `operation` がまだ動いている間に動いた: \(duringOperation)。`operation` のスレッドではなく、キャンセルしたスレッドで: \(otherThread)。リクエストを見つけた: \(loader.handlerFoundRequest.current ?? true)。`operation` はハンドルを保存するときにキャンセル済みの印に気づき、リクエストは\(request?.state == .cancelled ? "キャンセルされた" : "終わった")。タスクの結果: \(ending(result))。"))
    }

    // MARK: 4) After the callback

    private static func cancelAfterTheCallback(_ context: ScenarioContext, log: @escaping FakeRequestService.Log) async throws {
        context.say(Localized("4) Cancelled after the callback resumed the continuation, before the task ran on:",
                              ja: "4) コールバックが継続を再開した後、タスクが先へ進む前にキャンセル:"))
        let service = FakeRequestService(log: log)
        let loader = await ProfileLoader(service: service)
        let task = await MainActor.run { Task { @MainActor in try await loader.loadProfile() } }
        try await service.started.wait(requestDidNotStart)
        // One main-actor block: the answer resumes the continuation, but the task resumes onto the
        // main actor, which this block holds, so cancel() comes before the task runs on.
        await MainActor.run {
            service.last?.answer("profile")
            context.trace.record(.verbatim("task.cancel()"))
            task.cancel()
        }
        let result = await task.result
        let request = service.last
        context.note("after: handler ran", String(loader.handlerThread.current != nil))
        context.note("after: handler found request", String(loader.handlerFoundRequest.current ?? false))
        context.note("after: request", request?.state.rawValue ?? "none")
        context.note("after: callbacks", String(request?.callbacks ?? 0))
        context.note("after: ignored cancels", String(request?.ignoredCancels ?? 0))
        context.note("after: result", ending(result))
        context.say(Localized(
            "  onCancel ran: \(loader.handlerThread.current != nil). request.cancel() came after the answer and was ignored (\(request?.ignoredCancels ?? 0) time(s)). The request called back \(request?.callbacks ?? 0) time(s), so the continuation was resumed once; the task ended with \(ending(result)).",
            ja: "  onCancel は動いた: \(loader.handlerThread.current != nil)。request.cancel() は応答の後に来たので無視された（\(request?.ignoredCancels ?? 0) 回）。リクエストのコールバックは \(request?.callbacks ?? 0) 回なので、継続の再開は 1 回。タスクの結果: \(ending(result))。"))
    }

    // MARK: 5) Both resume: a child process

    static let cancelResumesTwiceChildName = "cancel-resumes-twice"

    /// The child: a bridge whose `onCancel` resumes the continuation and cancels the request,
    /// whose callback resumes it again. `cancel()` is called on the child's main thread, so the
    /// second resume, and the trap, happen there, before the child can exit. Exit status 3 if
    /// the process survives.
    static func cancelResumesTwiceChild() -> Never {
        let service = FakeRequestService()
        let stored = OneShotSignal()
        let box = Locked<Task<String, any Error>?>(nil)
        box.withLock { $0 = Task { try await loadResumingTwice(from: service, stored: stored) } }
        guard stored.waitBlocking() else { Console.line("the request did not start"); exit(4) }
        Console.line("task.cancel()")
        box.current?.cancel()
        Console.line("survived")
        exit(3)
    }

    /// The bridge that resumes twice: `onCancel` resumes with `CancellationError`, then cancels
    /// the request, and the request's callback resumes with `.cancelled`.
    private static func loadResumingTwice(from service: FakeRequestService, stored: OneShotSignal) async throws -> String {
        let shared = Locked<(request: FakeRequest?, continuation: CheckedContinuation<String, any Error>?)>((nil, nil))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                shared.withLock { $0.continuation = continuation }
                let request = service.start("/profile") { result in continuation.resume(with: result.mapError { $0 }) }
                shared.withLock { $0.request = request }
                stored.fire()
            }
        } onCancel: {
            let (request, continuation) = shared.current
            continuation?.resume(throwing: CancellationError())   // resume 1
            request?.cancel()                                     // its callback: resume 2
        }
    }

    private static func showResumeTwiceInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "5) onCancel resumes AND cancels the request, whose callback resumes too — in a child process (ch05-continuations --child \(cancelResumesTwiceChildName)):",
            ja: "5) onCancel が再開し、さらにリクエストもキャンセルし、そのコールバックも再開する — 子プロセスで実行（ch05-continuations --child \(cancelResumesTwiceChildName)）:"))
        guard let ending = context.runContinuationChild(cancelResumesTwiceChildName) else { return }
        context.note("resume twice: ending", ending.how)
        context.note("resume twice: message", ending.messages.first ?? "")
        context.report(ending, survived: Localized("  The child survived the second resume.", ja: "  子プロセスは 2 回目の再開の後も動き続けました。"))
    }
}
