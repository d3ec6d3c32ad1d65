import Foundation
import WorkbookCore

extension Chapter02 {
    /// `cancelAllOperations()` is `cancel()` on everything in the queue: waiting operations are
    /// skipped, running ones only get the flag.
    static let cancelAll = Scenario(
        slug: "cancel-all",
        title: Localized("cancelAllOperations", ja: "cancelAllOperations"),
        narration: Localized(
            """
            `operations` operations go to a queue that runs `width` at a time. Each one fetches an item, then saves it: saving is its side effect. \
            The odd-numbered ones check `isCancelled` before saving; the even-numbered ones do not. \
            When the first `width` are in the middle of their work (after fetching, before saving), the caller calls `cancelAllOperations()`. \
            That is just `cancel()` on every operation in the queue, nothing more. The waiting ones are skipped: their `main()` never runs. \
            The running ones keep running, now with `isCancelled` true: the careful ones stop before saving, the careless ones save anyway. \
            The scenario counts the saves that happened after the cancel, and which operations never started. \
            The lesson: `cancelAllOperations()` does not wait and does not undo anything. \
            To know that the batch has really stopped, wait for the queue (`waitUntilAllOperationsAreFinished`, scenario 7) and make every side effect check `isCancelled` first.
            """,
            ja: """
            `operations` 個のオペレーションを、同時に `width` 個まで動かすキューに入れます。どれもアイテムを取得してから保存します。保存が副作用です。\
            奇数番は保存の前に `isCancelled` を確かめ、偶数番は確かめません。\
            最初の `width` 個が処理の途中（取得の後、保存の前）にいるときに、呼び出し元が `cancelAllOperations()` を呼びます。\
            これはキューにあるすべてのオペレーションに `cancel()` を呼ぶだけで、それ以上のことはしません。待っていたものは飛ばされ、`main()` は一度も動きません。\
            実行中のものは `isCancelled` が true になったまま動き続けます。慎重なものは保存の前に止まり、不注意なものはそのまま保存します。\
            シナリオはキャンセル後に起きた保存の数と、始まらなかったオペレーションを数えます。\
            教訓: `cancelAllOperations()` は待ちませんし、何も元に戻しません。\
            バッチが本当に止まったことを知るにはキューを待ち（`waitUntilAllOperationsAreFinished`、シナリオ 7）、副作用の前には必ず `isCancelled` を確かめてください。
            """),
        knobs: [
            .init("operations", default: 8, range: 1...40, help: Localized("operations in the batch", ja: "バッチのオペレーション数")),
            .init("width", default: 2, range: 1...3, help: Localized("maxConcurrentOperationCount: how many are running at the cancel", ja: "maxConcurrentOperationCount（キャンセル時に実行中の数）")),
        ]
    ) { context in
        try await blocking { try runCancelAll(context) }
    }

    /// What the batch did, recorded by the operations.
    private struct BatchLog {
        var started: [Int] = []
        var saved: [Int] = []
        var savedAfterCancel: [Int] = []
        var cancelIssued = false
    }

    private static func runCancelAll(_ context: ScenarioContext) throws {
        let count = context.knob("operations"), width = context.knob("width")
        let running = min(width, count)
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = width
        let log = Locked(BatchLog())
        let fetched = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)

        let operations = (1...count).map { index in
            let careful = index % 2 == 1
            let operation = BlockOperation()
            // The block reads the operation's own isCancelled: capture it weakly, since the
            // operation owns the block (a strong capture would be a retain cycle).
            operation.addExecutionBlock { [weak operation] in
                let lane = context.trace.currentThreadLane()
                log.withLock { $0.started.append(index) }
                context.trace.span("op\(index)", lane: lane) {
                    spin(microseconds: 1_000)  // fetch
                    fetched.signal()
                    _ = resume.wait(timeout: .now() + 5)  // held until the caller has cancelled
                    if careful && operation?.isCancelled == true {
                        context.printLine(Localized("op\(index) (checks): isCancelled, not saving", ja: "op\(index)（確かめる）: isCancelled なので保存しない"), lane: lane)
                        return
                    }
                    spin(microseconds: 500)  // save
                    log.withLock { log in
                        log.saved.append(index)
                        if log.cancelIssued { log.savedAfterCancel.append(index) }
                    }
                    context.printLine(careful ? Localized("op\(index) (checks): saved", ja: "op\(index)（確かめる）: 保存した")
                                              : Localized("op\(index) (does not check): saved", ja: "op\(index)（確かめない）: 保存した"), lane: lane)
                }
            }
            return operation
        }
        context.say(Localized("\(count) operations, \(width) at a time; cancelAllOperations() while \(running) are between fetch and save:",
                              ja: "オペレーション \(count) 個、同時に \(width) 個。\(running) 個が取得と保存の間にいるときに cancelAllOperations():"))
        context.trace.record(Localized("add \(count)", ja: "\(count) 個を追加"), lane: caller)
        queue.addOperations(operations, waitUntilFinished: false)
        defer { for _ in 0..<count { resume.signal() } }  // never leave an operation held
        for _ in 0..<running {
            try wait(for: fetched, Localized("the first operations did not start", ja: "最初のオペレーションが始まりませんでした"))
        }

        log.withLock { $0.cancelIssued = true }
        context.emit("cancelAllOperations()", lane: caller)
        queue.cancelAllOperations()
        let inQueueRightAfter = queue.operationCount
        for _ in 0..<running { resume.signal() }
        try waitForAll(in: queue, Localized("the batch did not drain after the cancel", ja: "キャンセル後もバッチが片付きませんでした"))
        // Keep our own references until the queue is done: swift-corelibs-foundation can crash in
        // cancelAllOperations when only the queue holds the operations.
        withExtendedLifetime(operations) {}

        let result = log.current
        let skipped = (1...count).filter { !result.started.contains($0) }
        let allCancelled = operations.allSatisfy { $0.isCancelled && $0.isFinished }
        context.note("started", String(result.started.count))
        context.note("skipped", String(skipped.count))
        context.note("saved after cancel", result.savedAfterCancel.map(String.init).joined(separator: " "))
        context.note("all cancelled and finished", String(allCancelled))
        func list(_ indices: [Int]) -> String { indices.isEmpty ? "-" : indices.map { "op\($0)" }.joined(separator: " ") }
        context.say(Localized("  Right after cancelAllOperations() returned, the queue still held \(inQueueRightAfter) operation(s): it does not wait.",
                              ja: "  cancelAllOperations() から戻った直後も、キューには \(inQueueRightAfter) 個のオペレーションが残っていました。待たないのです。"))
        context.say(Localized("  main() ran: \(list(result.started))   skipped (main() never ran): \(list(skipped))",
                              ja: "  main() が動いた: \(list(result.started))   飛ばされた（main() が動かなかった）: \(list(skipped))"))
        context.say(Localized("  Saved after the cancel: \(list(result.savedAfterCancel))  (the even ones never check isCancelled)",
                              ja: "  キャンセル後に保存した: \(list(result.savedAfterCancel))（偶数番は isCancelled を確かめません）"))
        context.say(Localized("  Every operation ended with isCancelled=true and isFinished=true: \(allCancelled).",
                              ja: "  すべてのオペレーションが isCancelled=true かつ isFinished=true で終わったか: \(allCancelled)"))
    }
}
