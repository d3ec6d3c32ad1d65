import Foundation
import WorkbookCore

extension Chapter02 {
    /// `completionBlock` runs after the operation finished, on a thread nobody promises;
    /// `queuePriority` picks among operations that are ready and waiting, nothing more.
    static let completionAndPriority = Scenario(
        slug: "completion-and-priority",
        title: Localized("completionBlock and queuePriority", ja: "completionBlock と queuePriority"),
        narration: Localized(
            """
            Part one: operation X has a `completionBlock`, operation Y depends on X, and the caller adds both with `waitUntilFinished: true`. \
            The completion block runs after X has finished, but it is not part of X and not a dependency: the queue hands it to some other thread and moves on. \
            Check the lanes: is it X's thread? Did it run before or after Y started, before or after the caller's wait returned? \
            Whatever this run shows, none of it is promised, so a completion block must not touch state that needs a particular thread (such as UI), \
            and "then do the next step" belongs in a dependency, not in a completion block. \
            Part two: a queue that runs one at a time is suspended, gets L (`.veryLow`), N (`.normal`) and H (`.veryHigh`), in that order, and is resumed. \
            Priority decides which ready operation starts next. \
            Part three adds the same three to a queue that is not suspended: L starts the moment it is added, before H even exists. \
            Priority reorders only operations that are waiting; it is not a dependency, and it never stops a running operation.
            """,
            ja: """
            パート 1: オペレーション X には `completionBlock` があり、Y は X に依存しています。呼び出し元は両方を `waitUntilFinished: true` で追加します。\
            完了ブロックは X が終わった後に動きますが、X の一部でも依存関係でもありません。キューはそれをどこかのスレッドに渡して先へ進みます。\
            レーンを確かめてください。X と同じスレッドでしょうか？ Y が始まる前でしょうか、後でしょうか？ 呼び出し元が待ちから戻る前でしょうか、後でしょうか？\
            この実行で何が見えても、どれも保証されていません。ですから完了ブロックで特定のスレッドが必要な状態（UI など）に触れてはいけませんし、\
            「次の段階を始める」なら完了ブロックではなく依存関係で書くべきです。\
            パート 2: 一度に 1 つしか動かさないキューを一時停止し（`isSuspended = true`）、L（`.veryLow`）、N（`.normal`）、H（`.veryHigh`）をこの順に追加してから再開します。\
            優先度は、準備完了のオペレーションのうちどれを次に始めるかを決めます。\
            パート 3 では、同じ 3 つを一時停止していないキューに入れます。L は追加された瞬間に始まり、そのときにはまだ H は存在すらしません。\
            優先度が並べ替えるのは待っているオペレーションだけです。依存関係ではありませんし、実行中のオペレーションを止めることもありません。
            """),
        prediction: .init(
            question: Localized(
                "A suspended queue that runs one operation at a time gets L (.veryLow), N (.normal), H (.veryHigh), in that order, then is resumed. In what order do they run?",
                ja: "一度に 1 つしか動かさない、一時停止した（isSuspended = true）キューに、L（.veryLow）、N（.normal）、H（.veryHigh）をこの順に追加してから再開します。どの順番で動くでしょう？"),
            explanation: Localized(
                "HNL. All three are ready and waiting when the queue resumes, and the queue starts the ready operation with the highest priority first. Without the suspension, L would already be running before H was added (part three).",
                ja: "HNL です。再開した時点で 3 つとも準備完了で待っており、キューは準備完了のうち優先度が最も高いものから始めます。一時停止しておかなければ、H が追加される前に L が動き始めてしまいます（パート 3）。"),
            observe: { $0.noted("suspended order") ?? "" },
            isPossible: { $0 == "HNL" })
    ) { context in
        try await blocking {
            try runCompletionBlock(context)
            try runPriorities(context)
        }
    }

    private static func runCompletionBlock(_ context: ScenarioContext) throws {
        context.say(Localized("1) X with a completionBlock; Y depends on X; addOperations([X, Y], waitUntilFinished: true)",
                              ja: "1) completionBlock 付きの X、X に依存する Y。addOperations([X, Y], waitUntilFinished: true)"))
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        let completed = DispatchSemaphore(value: 0)
        let x = BlockOperation {
            context.trace.span("X", lane: context.trace.currentThreadLane()) { spin(microseconds: 1_000) }
        }
        x.completionBlock = {
            context.emit(Localized("X completion", ja: "X の完了ブロック"))
            completed.signal()
        }
        let y = BlockOperation {
            context.trace.span("Y", lane: context.trace.currentThreadLane()) { spin(microseconds: 1_000) }
        }
        y.addDependency(x)
        let operations = [x, y]
        context.trace.record(Localized("add X, Y", ja: "X, Y を追加"), lane: caller)
        let returned = returnsWithin(seconds: 5) { queue.addOperations(operations, waitUntilFinished: true) }
        guard returned else {
            throw ScenarioStuck(what: Localized("X and Y did not finish", ja: "X と Y が終わりませんでした"))
        }
        context.emit(Localized("wait returned", ja: "待ちから戻った"), lane: caller)
        try wait(for: completed, Localized("the completion block never ran", ja: "完了ブロックが動きませんでした"))
        withExtendedLifetime(operations) {}

        let trace = context.trace
        guard let completion = trace.sequence(of: .point, "X completion"), let xEnd = trace.sequence(of: .end, "X"),
              let yBegin = trace.sequence(of: .begin, "Y"), let waitReturned = trace.sequence(of: .point, "wait returned"),
              let completionLane = trace.lane(of: .point, "X completion"), let xLane = trace.lane(of: .begin, "X") else {
            throw ScenarioStuck(what: Localized("the trace is missing events", ja: "トレースにイベントが足りません"))
        }
        let sameThread = completionLane == xLane
        context.note("completion after X", String(completion > xEnd))
        context.note("completion on X's thread", String(sameThread))
        context.note("completion before Y began", String(completion < yBegin))
        context.note("completion before wait returned", String(completion < waitReturned))
        context.say(Localized(
            """
              X ran on \(xLane); its completion block ran on \(completionLane) (\(sameThread ? "the same thread" : "another thread")), \
            after X ended, \(completion < yBegin ? "before" : "after") Y began, \(completion < waitReturned ? "before" : "after") the caller's wait returned.
            """,
            ja: """
              X は \(xLane) で、完了ブロックは \(completionLane)（\(sameThread ? "同じスレッド" : "別のスレッド")）で動きました。\
            X の終了後で、Y の開始より\(completion < yBegin ? "前" : "後")、呼び出し元が待ちから戻るより\(completion < waitReturned ? "前" : "後")でした。
            """))
    }

    private static func runPriorities(_ context: ScenarioContext) throws {
        context.say(Localized("2) Suspended queue, one at a time: add L (.veryLow), N (.normal), H (.veryHigh), then resume",
                              ja: "2) 一時停止した（isSuspended = true）、1 つずつ動かすキュー: L（.veryLow）、N（.normal）、H（.veryHigh）を追加してから再開"))
        let suspendedOrder = try runLNH(context, suspended: true)
        context.note("suspended order", suspendedOrder)
        context.say(Localized("  ran in the order \(suspendedOrder).", ja: "  動いた順番は \(suspendedOrder) でした。"))

        context.say(Localized("3) The same, without suspending the queue", ja: "3) 同じことを、キューを一時停止せずに"))
        let runningOrder = try runLNH(context, suspended: false)
        context.note("running order", runningOrder)
        context.say(Localized("  ran in the order \(runningOrder).", ja: "  動いた順番は \(runningOrder) でした。"))
    }

    /// Adds L, N, H with their priorities to a queue that runs one at a time; returns the order they ran in.
    private static func runLNH(_ context: ScenarioContext, suspended: Bool) throws -> String {
        let caller = context.trace.currentThreadLane()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = suspended
        let order = Locked<[String]>([])
        let letters: [(String, Operation.QueuePriority)] = [("L", .veryLow), ("N", .normal), ("H", .veryHigh)]
        let operations = letters.map { letter, priority in
            let operation = BlockOperation {
                let lane = context.trace.currentThreadLane()
                context.trace.span(letter, lane: lane) { spin(microseconds: 800) }
                order.withLock { order in
                    order.append(letter)
                    context.printLine(letter, lane: lane)
                }
            }
            operation.queuePriority = priority
            return operation
        }
        for (operation, (letter, _)) in zip(operations, letters) {
            queue.addOperation(operation)
            context.trace.record(Localized("add \(letter)", ja: "\(letter) を追加"), lane: caller)
        }
        if suspended {
            context.trace.record(Localized("resume", ja: "再開"), lane: caller)
            queue.isSuspended = false
        }
        try waitForAll(in: queue, Localized("L, N and H did not finish", ja: "L、N、H が終わりませんでした"))
        withExtendedLifetime(operations) {}
        return order.current.joined()
    }
}
