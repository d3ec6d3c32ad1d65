import Foundation
import WorkbookCore
import WorkbookExplorer

/// Counts the requests a fake network was asked for.
final class RequestCounter: Sendable {
    private let count = Locked(0)
    var requests: Int { count.current }

    /// Starts a request: counted now, answered at once.
    func request() -> [String] {
        count.withLock { $0 += 1 }
        return ["a1"]
    }

    /// The same request as an `async` function.
    func articles() async throws -> [String] { request() }
}

extension Chapter06 {
    /// The name of the child process that force-unwraps a missing first value.
    static let forceUnwrapChildName = "force-unwrap-first"

    /// The child's body: the first value of a publisher that finishes empty, force-unwrapped, as
    /// the source talk's `first { _ in true }!` does. It traps; the parent reports how.
    static func forceUnwrapChild() -> Never {
        let done = DispatchSemaphore(value: 0)
        Task {
            let empty = FakePublisher<Int>.empty
            let first = try await empty.values.first { _ in true }!
            Console.line("first value: \(first)")
            done.signal()
        }
        done.wait()
        exit(0)
    }

    /// The safe spelling of the same: no value is an error the caller can catch.
    static func firstOfValues<Output: Sendable>(_ publisher: FakePublisher<Output>) async throws -> Output {
        guard let first = try await publisher.values.first(where: { _ in true }) else {
            throw FirstValueError.finishedWithoutValue
        }
        return first
    }

    private static func outcome(_ body: () async throws -> Int) async -> String {
        do { return String(try await body()) } catch { return errorName(error) }
    }

    /// A subject, a task awaiting its first value through `bridge`, a cancel, then `send(42)`.
    /// Returns what the task got and the subscriptions still live right after the cancel.
    static func cancelWhileWaiting(_ bridge: @escaping @Sendable (FakePublisher<Int>) async throws -> Int,
                                   trace: Trace, lane: Localized) async throws -> (answer: String, liveAfterCancel: Int) {
        let subject = FakeSubject<Int>()
        let subscribed = OneShotSignal()
        let publisher = FakePublisher<Int> { subscriber in
            let inner = subject.publisher.sink(receiveCompletion: { subscriber.complete($0) }, receiveValue: { subscriber.send($0) })
            subscribed.fire()
            return { inner.cancel() }
        }
        let task = Task { await outcome { try await bridge(publisher) } }
        try await subscribed.wait(Localized("the bridge did not subscribe", ja: "ブリッジが購読しませんでした"))
        trace.record(.verbatim("task.cancel()"), lane: lane)
        task.cancel()
        // The careful bridge answers the cancel at once; give it the chance before looking.
        if await waitUntil({ subject.liveSubscriptions == 0 }) {}
        let live = subject.liveSubscriptions
        trace.record(.verbatim("send(42)"), lane: lane)
        subject.send(42)
        let answer = await task.value
        trace.record(Localized("the task got \(answer)", ja: "タスクが \(answer) を受け取った"), lane: lane)
        return (answer, live)
    }

    /// Quotes a runtime message behind the quote bar, broken to fit the terminal: the location
    /// (`file:line:`) on a line of its own, then the message, wrapped if it is still too wide.
    static func quoteWrapped(_ message: String, in context: ScenarioContext) {
        let room = max(20, context.terminal.width - 6)           // "    │ "
        var parts = [message]
        if displayWidth(message) > room, let start = message.range(of: "Fatal error"), start.lowerBound > message.startIndex {
            parts = [String(message[..<start.lowerBound]).trimmingCharacters(in: .whitespaces), String(message[start.lowerBound...])]
        }
        for part in parts {
            for line in wrap(part, width: room) { context.quote(line) }
        }
    }

    /// Polls `condition` for up to 100 ms (the careful bridge cancels from another thread).
    private static func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    static let oneValue = Scenario(
        slug: "one-value",
        title: Localized("A publisher's one value as async throws; Future runs early", ja: "パブリッシャの 1 つの値を `async throws` で。`Future` は早く動く"),
        narration: Localized(
            """
            1) The naive bridge, as the source talk writes it: `withCheckedThrowingContinuation`, subscribe, resume with the first value, \
            or throw `.finishedWithoutValue` when the publisher finishes first, or rethrow its failure. Three publishers: `Just(1)`, `Empty`, a subject that fails with `.offline`. \
            2) Its gap: the task awaiting it is cancelled, then the publisher sends 42. The naive bridge never looks at cancellation; \
            the careful one (chapter 05, §8) adds `withTaskCancellationHandler`. \
            3) `values.first { _ in true }!` on a publisher that finishes without a value, in a child process (`ch06-streams --child force-unwrap-first`); then the safe spelling. \
            4) `Future` runs its closure when it is created; an `async` function runs when it is called and awaited. Count the requests.
            """,
            ja: """
            1) 講演と同じ形の素朴なブリッジ: `withCheckedThrowingContinuation` で購読し、最初の値で再開し、\
            先に完了したら `.finishedWithoutValue` をスローし、失敗ならそのエラーを再スローします。パブリッシャは 3 つ: `Just(1)`、`Empty`、`.offline` で失敗するサブジェクト。\
            2) その穴: 待っているタスクをキャンセルし、その後パブリッシャが 42 を送ります。素朴なブリッジはキャンセルを一切見ません。\
            注意深いブリッジ（第 05 章 §8）は `withTaskCancellationHandler` を加えます。\
            3) 値なしで完了するパブリッシャに `values.first { _ in true }!` を、子プロセス（`ch06-streams --child force-unwrap-first`）で実行します。続いて安全な書き方。\
            4) `Future` は作られた時点でクロージャを実行します。`async` 関数は呼び出して await した時に実行されます。リクエストの数を数えます。
            """),
        prediction: .init(
            question: Localized(
                "Part 2: the task awaiting the naive bridge is cancelled; afterwards the publisher sends 42. What does the task get?\n  A) CancellationError at once\n  B) 42\n  C) it waits for ever",
                ja: "パート 2: 素朴なブリッジを待つタスクをキャンセルし、その後パブリッシャが 42 を送ります。タスクが受け取るのは？\n  A) すぐに CancellationError\n  B) 42\n  C) 永遠に待つ"),
            explanation: Localized(
                "B. Cancelling a task only sets a flag; the naive bridge never checks it, so the task waits for the publisher and returns its value as if nothing happened, with the subscription live until then. Had the publisher never sent, the answer would have been C. The careful bridge cancels the subscription and throws CancellationError at once (A).",
                ja: "B です。タスクのキャンセルはフラグを立てるだけで、素朴なブリッジはそれを確かめません。だからタスクはパブリッシャを待ち、何もなかったかのように値を返します。それまで購読も生きたままです。パブリッシャが何も送らなければ C になっていました。注意深いブリッジは購読をキャンセルし、すぐに CancellationError をスローします（A）。"),
            observe: { $0.noted("naive cancel: answer letter") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        let lane = Localized("caller", ja: "呼び出し元")
        // 1) Three outcomes.
        let subject = FakeSubject<Int>()
        let failing = FakePublisher<Int> { subscriber in
            let inner = subject.publisher.sink(receiveCompletion: { subscriber.complete($0) }, receiveValue: { subscriber.send($0) })
            return { inner.cancel() }
        }
        let value = await outcome { try await FakePublisher.just(1).naiveFirstValue() }
        let empty = await outcome { try await FakePublisher<Int>.empty.naiveFirstValue() }
        let failed = await outcome {
            async let first = failing.naiveFirstValue()
            while subject.liveSubscriptions == 0 { await Task.yield() }
            subject.fail(StreamError.offline)
            return try await first
        }
        for (name, answer) in [("Just(1)", value), ("Empty()", empty), ("fail(.offline)", failed)] {
            context.trace.record(.verbatim("\(name): \(answer)"), lane: lane)
        }
        context.note("naive value", value)
        context.note("naive empty", empty)
        context.note("naive failure", failed)
        context.say(Localized("1) naiveFirstValue(): Just(1) → \(value); Empty() → \(empty); a failure → \(failed).",
                              ja: "1) naiveFirstValue(): Just(1) → \(value)、Empty() → \(empty)、失敗 → \(failed)。"))

        // 2) Cancelled while waiting.
        let naive = try await cancelWhileWaiting({ try await $0.naiveFirstValue() }, trace: context.trace, lane: Localized("naive", ja: "素朴"))
        let careful = try await cancelWhileWaiting({ try await $0.firstValue() }, trace: context.trace, lane: Localized("careful", ja: "注意深い"))
        context.note("naive cancel: answer", naive.answer)
        context.note("naive cancel: answer letter", naive.answer == "42" ? "B" : naive.answer == "CancellationError" ? "A" : "C")
        context.note("naive cancel: live after cancel", String(naive.liveAfterCancel))
        context.note("careful cancel: answer", careful.answer)
        context.note("careful cancel: live after cancel", String(careful.liveAfterCancel))
        context.say(Localized(
            """
            2) Cancelled while waiting, then send(42):
               naive:   subscriptions live after the cancel: \(naive.liveAfterCancel); the task got \(naive.answer).
               careful: subscriptions live after the cancel: \(careful.liveAfterCancel); the task got \(careful.answer).
            """,
            ja: """
            2) 待っている間にキャンセルし、その後 send(42):
               素朴: キャンセル後も生きている購読 \(naive.liveAfterCancel) 個。タスクが受け取ったのは \(naive.answer)。
               注意深い: キャンセル後も生きている購読 \(careful.liveAfterCancel) 個。タスクが受け取ったのは \(careful.answer)。
            """))

        // 3) A force-unwrapped first value, in a child process.
        context.say(Localized("3) `try await empty.values.first { _ in true }!`, in a child process:",
                              ja: "3) `try await empty.values.first { _ in true }!` を子プロセスで:"))
        let childLane = Localized("child process", ja: "子プロセス")
        context.trace.begin(.verbatim("--child \(forceUnwrapChildName)"), lane: childLane)
        let child = context.runChild(forceUnwrapChildName, of: "ch06-streams", timeoutSeconds: 20)
        context.trace.end(.verbatim("--child \(forceUnwrapChildName)"), lane: childLane)
        if let child {
            let fatal = child.standardError.split(separator: "\n").first { $0.contains("Fatal error") }.map(String.init) ?? ""
            context.note("force unwrap: termination", "\(child.termination)")
            context.note("force unwrap: message", fatal)
            switch child.termination {
            case let .signalled(signal):
                context.say(Localized("  The child was killed by \(describeSignal(signal).en). Its standard error:",
                                      ja: "  子プロセスは \(describeSignal(signal).ja) で終了しました。標準エラー出力:"))
            case let .exited(status):
                context.say(Localized("  The child exited with status \(status). Its standard error:", ja: "  子プロセスは終了コード \(status) で終了しました。標準エラー出力:"))
            case .timedOut:
                context.say(Localized("  The child did not finish.", ja: "  子プロセスが終わりませんでした。"))
            }
            if !fatal.isEmpty { quoteWrapped(fatal, in: context) }
        }
        let safe = await outcome { try await firstOfValues(FakePublisher<Int>.empty) }
        context.note("safe first", safe)
        context.say(Localized("  The safe spelling — `guard let first = try await values.first(where: { _ in true }) else { throw … }` — threw \(safe).",
                              ja: "  安全な書き方 `guard let first = try await values.first(where: { _ in true }) else { throw … }` は \(safe) をスローしました。"))

        // 4) Future starts at once; an async function when awaited; Deferred per subscriber.
        let futureNetwork = RequestCounter()
        let future = FakeFuture<[String]> { promise in promise(.success(futureNetwork.request())) }
        let afterCreating = futureNetwork.requests
        _ = try await future.publisher.firstValue()
        _ = try await future.publisher.firstValue()
        let futureTwoSubscribers = futureNetwork.requests

        let asyncNetwork = RequestCounter()
        let load: @Sendable () async throws -> [String] = { try await asyncNetwork.articles() }
        let asyncBeforeAwait = asyncNetwork.requests
        _ = try await load()
        let asyncAfterAwait = asyncNetwork.requests

        let deferredNetwork = RequestCounter()
        let deferred = FakePublisher<[String]>.deferred {
            FakeFuture { promise in promise(.success(deferredNetwork.request())) }.publisher
        }
        let deferredBefore = deferredNetwork.requests
        _ = try await deferred.firstValue()
        _ = try await deferred.firstValue()
        let deferredTwo = deferredNetwork.requests
        _ = future

        let requestsLane = Localized("requests", ja: "リクエスト")
        // `FakeFuture` is the scenario's `Future`; a name with a capital inside reads as code in both languages.
        context.trace.record(Localized("FakeFuture created: \(afterCreating)", ja: "FakeFuture を作った直後: \(afterCreating)"), lane: requestsLane)
        context.trace.record(Localized("async function not awaited yet: \(asyncBeforeAwait)",
                                       ja: "async 関数を await する前: \(asyncBeforeAwait)"), lane: requestsLane)
        context.note("future requests when created", String(afterCreating))
        context.note("future requests after two subscribers", String(futureTwoSubscribers))
        context.note("async requests before await", String(asyncBeforeAwait))
        context.note("async requests after await", String(asyncAfterAwait))
        context.note("deferred requests before subscribing", String(deferredBefore))
        context.note("deferred requests after two subscribers", String(deferredTwo))
        let widths = [34, 18]
        context.say(Localized("4) Requests made:", ja: "4) 行われたリクエストの数:"))
        context.show(tableRow(["", context.text(Localized("created/defined", ja: "生成・定義の後")),
                               context.text(Localized("after use", ja: "使った後"))], widths: widths))
        context.show(tableRow(["  `Future { … }`", String(afterCreating),
                               context.text(Localized("\(futureTwoSubscribers) (2 subscribers)", ja: "\(futureTwoSubscribers)（購読者 2 つ）"))], widths: widths))
        context.show(tableRow(["  `Deferred { Future { … } }`", String(deferredBefore),
                               context.text(Localized("\(deferredTwo) (2 subscribers)", ja: "\(deferredTwo)（購読者 2 つ）"))], widths: widths))
        context.show(tableRow(["  `{ try await articles() }`", String(asyncBeforeAwait),
                               context.text(Localized("\(asyncAfterAwait) (awaited once)", ja: "\(asyncAfterAwait)（1 回 await）"))], widths: widths))
    }
}
