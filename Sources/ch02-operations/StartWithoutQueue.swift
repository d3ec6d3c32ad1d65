import Foundation
import WorkbookCore

extension Chapter02 {
    /// `start()` called directly is an ordinary method call: `main()` runs on the caller's thread
    /// and the caller waits. It runs once, and only an operation that is ready may be started.
    static let startWithoutQueue = Scenario(
        slug: "start-without-queue",
        title: Localized("start() without a queue", ja: "キューを使わずに start()"),
        narration: Localized(
            """
            A queue is not the only way to run an operation: you may call `start()` yourself. \
            Part one: the caller T1 calls `start()` on an operation it never added to a queue. \
            Watch the lane of `main()`, and where T1's "start() returned" lands: the default `start()` calls `main()` right there, on the caller's thread, \
            so the caller is blocked until the work is done. Inside, `isExecuting` is true and `OperationQueue.current` is nil: no queue started it. \
            Then T1 calls `start()` a second time: an operation runs once. \
            Part two: `upload` depends on `compress`, which has not run, so `upload.isReady` is false. \
            Check `isReady` before calling `start()` — or better, add both to a queue, which waits for the dependency for you. \
            Part three calls `start()` on the operation that is not ready anyway, in a child process (`ch02-operations --child start-not-ready`), and reports what happened to it.
            """,
            ja: """
            オペレーションを動かす方法はキューだけではありません。`start()` を自分で呼ぶこともできます。\
            パート 1: 呼び出し元 T1 が、どのキューにも追加していないオペレーションの `start()` を呼びます。\
            `main()` のレーンと、T1 の「start() から戻った」がどこに来るかに注目してください。既定の `start()` はその場で、呼び出し元のスレッドで `main()` を呼ぶので、\
            処理が終わるまで呼び出し元はブロックされます。中では `isExecuting` が true で、`OperationQueue.current` は nil です。開始したキューがないからです。\
            続いて T1 はもう一度 `start()` を呼びます。オペレーションは 1 回しか動きません。\
            パート 2: `upload` はまだ動いていない `compress` に依存しているので、`upload.isReady` は false です。\
            `start()` を呼ぶ前に `isReady` を確かめましょう。もっとよいのは両方をキューに入れることで、キューが依存先を待ってくれます。\
            パート 3 では、準備完了でないオペレーションにそれでも `start()` を呼びます。子プロセス（`ch02-operations --child start-not-ready`）で実行し、何が起きたかを報告します。
            """),
        prediction: .init(
            question: Localized(
                "T1 calls start() on an operation that it never added to a queue. Which lane runs main(): T1 (the caller) or T2 (another thread)?",
                ja: "T1 が、どのキューにも追加していないオペレーションの start() を呼びます。main() を動かすのはどのレーンでしょう？ T1（呼び出し元）か T2（別のスレッド）か。"),
            explanation: Localized(
                "T1. start() is an ordinary method call: the default implementation calls main() on the calling thread and returns when main() has returned. Moving work to another thread is what a queue does; Apple's documentation of isAsynchronous says the same: an operation that is not asynchronous runs synchronously on the current thread.",
                ja: "T1 です。start() は普通のメソッド呼び出しで、既定の実装は呼んだスレッドで main() を呼び、main() が戻ってから start() 自身も戻ります。処理を別のスレッドに移すのはキューの役目です。Apple の isAsynchronous のドキュメントにも、非同期でないオペレーションは現在のスレッドで同期的に動くとあります。"),
            observe: { $0.noted("main() lane") ?? "" },
            isPossible: { $0 == "T1" })
    ) { context in
        try await blocking {
            try runStartDirectly(context)
            try runNotReady(context)
            runStartNotReadyInChild(context)
        }
    }

    /// The name of the child process that calls `start()` on an operation that is not ready.
    static let startNotReadyChildName = "start-not-ready"

    /// Printed by the child just before the call, and after it if it returns.
    private static let startingNotReady = "calling start() on an operation that is not ready"
    private static let startReturned = "start() returned"

    /// The child process's body: `start()` on an operation whose dependency has not finished.
    ///
    /// swift-corelibs-foundation stops with a fatal error; Apple's documentation says `start()`
    /// throws `NSInvalidArgumentException`. Exit status 3 if neither happened.
    static func startNotReadyChild() -> Never {
        let ran = Locked(false)
        let compress = BlockOperation {}
        let upload = BlockOperation { ran.withLock { $0 = true } }
        upload.addDependency(compress)
        Console.line("\(startingNotReady) (isReady=\(upload.isReady))")
        upload.start()
        Console.line("\(startReturned): main() ran=\(ran.current) isFinished=\(upload.isFinished)")
        withExtendedLifetime(compress) {}
        exit(3)
    }

    /// What `main()` saw of its own operation.
    private struct Inside: Sendable {
        let lane: String
        let isExecuting: Bool
        let current: CurrentQueue
    }

    private static func runStartDirectly(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()
        context.say(Localized("1) \(caller) calls start() on an operation that is in no queue:", ja: "1) \(caller) が、どのキューにも入っていないオペレーションの start() を呼ぶ:"))
        let runs = Locked(0)
        let inside = Locked<Inside?>(nil)
        let operation = BlockOperation()
        // The block reads its own operation's state: a weak capture, since the operation owns the block.
        operation.addExecutionBlock { [weak operation] in
            let lane = context.trace.currentThreadLane()
            let seen = Inside(lane: lane, isExecuting: operation?.isExecuting ?? false, current: CurrentQueue.here())
            context.trace.span("main()", lane: lane) { spin(microseconds: 3_000) }
            runs.withLock { $0 += 1 }
            inside.withLock { $0 = seen }
            let moment = Localized("inside main()", ja: "main() の中").text(context.language)
            context.printLine("\(moment): isExecuting=\(seen.isExecuting) OperationQueue.current=\(seen.current.text(context.language))", lane: lane)
        }
        func flags() -> String { "isReady=\(operation.isReady) isExecuting=\(operation.isExecuting) isFinished=\(operation.isFinished)" }
        context.show("  \(caller): " + Localized("before start(): ", ja: "start() の前: ").text(context.language) + flags())
        let returnedLabel = Localized("start() returned", ja: "start() から戻った").text(context.language)
        context.trace.record("start()", lane: caller)
        operation.start()
        context.emit(returnedLabel, lane: caller)
        context.show("  \(caller): " + Localized("after start(): ", ja: "start() の後: ").text(context.language) + flags())

        guard let seen = inside.current else {
            throw ScenarioStuck(what: Localized("main() did not run", ja: "main() が動きませんでした"))
        }
        let trace = context.trace
        let returnedAfterMain = (trace.sequence(of: .point, returnedLabel) ?? -1) > (trace.sequence(of: .end, "main()") ?? Int.max)
        context.note("caller", caller)
        context.note("main() lane", seen.lane)
        context.note("executing inside main", String(seen.isExecuting))
        context.note("current inside main", seen.current.rawValue)
        context.note("start returned after main", String(returnedAfterMain))
        context.note("finished after start", String(operation.isFinished))
        context.say(Localized(
            "  main() ran on \(seen.lane)\(seen.lane == caller ? ", the caller itself" : ""); start() returned \(returnedAfterMain ? "after" : "before") main() ended: the caller was blocked for the whole work.",
            ja: "  main() は \(seen.lane == caller ? "\(seen.lane)（呼び出し元そのもの）" : "\(seen.lane) ")で動き、start() は main() の終わりより\(returnedAfterMain ? "後" : "前")に戻りました。呼び出し元は処理の間ずっとブロックされていたのです。"))

        operation.start()  // finished already: returns without calling main() (not drawn: nothing happens)
        context.note("main runs after second start", String(runs.current))
        context.say(Localized(
            "  start() called again on the finished operation: main() has run \(runs.current) time(s) in all. An operation runs once; make a new one to run the work again.",
            ja: "  終わったオペレーションにもう一度 start() を呼びました。main() が動いたのは合わせて \(runs.current) 回です。オペレーションは 1 回しか動きません。もう一度実行するなら新しいオペレーションを作ります。"))
    }

    private static func runNotReady(_ context: ScenarioContext) throws {
        context.say(Localized("2) upload depends on compress, which has not run:", ja: "2) upload は、まだ動いていない compress に依存している:"))
        let compress = BlockOperation {
            context.trace.span("compress", lane: context.trace.currentThreadLane()) { spin(microseconds: 1_000) }
        }
        let upload = BlockOperation {
            context.trace.span("upload", lane: context.trace.currentThreadLane()) { spin(microseconds: 1_000) }
        }
        upload.addDependency(compress)
        let readyBefore = upload.isReady
        context.note("upload ready before compress", String(readyBefore))
        if upload.isReady {
            upload.start()
        } else {
            context.say(Localized("  upload.isReady = false, so the caller does not call start(); it adds both to a queue instead.",
                                  ja: "  upload.isReady = false なので、呼び出し元は start() を呼ばず、代わりに両方をキューに入れます。"))
        }
        let queue = OperationQueue()
        let operations = [upload, compress]  // upload first: the dependency decides
        queue.addOperations(operations, waitUntilFinished: false)
        try waitForAll(in: queue, Localized("compress and upload did not finish", ja: "compress と upload が終わりませんでした"))
        withExtendedLifetime(operations) {}
        let broken = Edge.broken([Edge(earlier: "compress", later: "upload")], in: context.trace)
        context.note("queue kept compress before upload", String(broken.isEmpty))
        context.say(broken.isEmpty
            ? Localized("  The queue ran compress, then upload: it started upload only once it was ready.",
                        ja: "  キューは compress、次に upload の順に動かしました。upload は準備完了になってから始まりました。")
            : Localized("  upload began before compress ended (unexpected).", ja: "  upload が compress の終わりより前に始まりました（想定外）。"))
    }

    /// `start()` on an operation that is not ready, in a child process so a crash is its own.
    private static func runStartNotReadyInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "3) start() on an operation that is not ready — in a child process (ch02-operations --child \(startNotReadyChildName)):",
            ja: "3) 準備完了でないオペレーションの start() — 子プロセスで実行（ch02-operations --child \(startNotReadyChildName)）:"))
        // Not drawn on the timeline: the child takes far longer than the rest.
        guard let outcome = context.runChild(startNotReadyChildName, of: "ch02-operations") else { return }
        if outcome.standardOutput.contains(startingNotReady) {
            context.say(Localized("  The child calls start() on upload while upload.isReady is false …",
                                  ja: "  子プロセスは upload.isReady が false のまま upload の start() を呼び …"))
        }
        let returned = outcome.standardOutput.split(separator: "\n").first { $0.hasPrefix(startReturned) }
        context.reportFoundationStop(outcome, key: "start not ready", quoting: returned.map(String.init),
                                     survived: Localized("  … and start() returned: nothing stopped it.",
                                                         ja: "  … start() はそのまま戻りました。止めるものは何もありませんでした。"))
    }
}
