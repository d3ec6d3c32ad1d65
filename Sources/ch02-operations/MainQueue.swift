import Foundation
import WorkbookCore

extension Chapter02 {
    /// `OperationQueue.main` is a ready-made queue: it runs one operation at a time on the main
    /// thread. `OperationQueue.current` names the queue that started the running operation.
    static let mainQueue = Scenario(
        slug: "main-queue",
        title: Localized("OperationQueue.main and OperationQueue.current", ja: "OperationQueue.main と OperationQueue.current"),
        narration: Localized(
            """
            You do not have to create every queue: `OperationQueue.main` is there already. \
            It runs one operation at a time (its `maxConcurrentOperationCount` reads 1) on the main thread, the thread UI code must use. \
            The caller (T1, not the main thread) adds `operations` operations to it: M1, M2, … \
            Each reports its lane, `Thread.isMainThread`, and `OperationQueue.current`: the queue that started the operation that is running. \
            For comparison, one operation (Q1) runs on a queue of our own, and T1 asks `OperationQueue.current` outside any operation. \
            Look for the `main` lane on the timeline, and for bars that never overlap there. \
            The main-queue operations run on the main thread here because this program's main thread keeps a run loop turning (chapter 03, scenario 4); \
            a main thread that is blocked, or a process whose main thread serves nothing, leaves them waiting. \
            The usual pattern: do the work on a queue of your own, then hand the result to `OperationQueue.main` for the UI.
            """,
            ja: """
            キューを毎回作る必要はありません。`OperationQueue.main` が最初から用意されています。\
            このキューは一度に 1 つのオペレーションだけを（`maxConcurrentOperationCount` は 1）、メインスレッドで動かします。UI のコードが使わなければならないスレッドです。\
            呼び出し元（メインスレッドではない T1）が `operations` 個のオペレーション（M1、M2、…）をここに追加します。\
            それぞれが自分のレーン、`Thread.isMainThread`、`OperationQueue.current`（実行中のオペレーションを開始したキュー）を報告します。\
            比べるために、自分で作ったキューでも 1 つ（Q1）動かし、T1 もオペレーションの外で `OperationQueue.current` を尋ねます。\
            タイムラインの `main` レーンと、そこでバーが決して重ならないことに注目してください。\
            メインキューのオペレーションがここでメインスレッドで動くのは、このプログラムのメインスレッドがランループを回し続けているからです（第 03 章シナリオ 4）。\
            メインスレッドがブロックされていたり、メインスレッドが何も処理しないプロセスだったりすると、これらは待たされたままになります。\
            よくある形: 処理は自分のキューで行い、結果を `OperationQueue.main` に渡して UI に反映します。
            """),
        knobs: [
            .init("operations", default: 3, range: 1...6, help: Localized("operations added to OperationQueue.main", ja: "OperationQueue.main に追加するオペレーションの数")),
        ]
    ) { context in
        try await blocking { try runMainQueue(context) }
    }

    /// What one place reported about itself.
    private struct PlaceReport: Sendable {
        let lane: String
        let isMainThread: Bool
        let current: CurrentQueue
    }

    /// What `OperationQueue.current` answered, told apart from the queues the scenario knows.
    enum CurrentQueue: String, Sendable {
        case none = "nil"
        case main = "OperationQueue.main"
        case own
        case other

        /// Asks on the calling thread; `own` is the scenario's own queue, if it has one.
        static func here(own: OperationQueue? = nil) -> CurrentQueue {
            guard let current = OperationQueue.current else { return .none }
            if current === OperationQueue.main { return .main }
            if let own, current === own { return .own }
            return .other
        }

        func text(_ language: Language) -> String {
            switch self {
            case .none, .main: rawValue
            case .own: Localized("our own queue", ja: "自分のキュー").text(language)
            case .other: Localized("another queue", ja: "別のキュー").text(language)
            }
        }
    }

    private static func runMainQueue(_ context: ScenarioContext) throws {
        let count = context.knob("operations")
        let caller = context.trace.currentThreadLane()
        let callerReport = PlaceReport(lane: caller, isMainThread: Thread.isMainThread, current: CurrentQueue.here())

        let main = OperationQueue.main
        context.say(Localized("1) OperationQueue.main, as the caller (\(caller)) sees it:", ja: "1) 呼び出し元（\(caller)）から見た OperationQueue.main:"))
        context.show("  maxConcurrentOperationCount = \(main.maxConcurrentOperationCount)   qualityOfService = \(qosName(main.qualityOfService))")
        context.note("main max", String(main.maxConcurrentOperationCount))
        context.note("main qos", qosName(main.qualityOfService))

        context.say(Localized("2) \(caller) adds \(count) operation(s), M1…, to OperationQueue.main:", ja: "2) \(caller) が OperationQueue.main に \(count) 個のオペレーション（M1 …）を追加:"))
        let reports = Locked<[PlaceReport]>([])
        let ran = DispatchSemaphore(value: 0)
        let operations = (1...count).map { index in
            BlockOperation {
                let lane = context.trace.currentThreadLane()
                let report = PlaceReport(lane: lane, isMainThread: Thread.isMainThread, current: CurrentQueue.here())
                context.trace.span("M\(index)", lane: lane) { spin(microseconds: 800) }
                reports.withLock { $0.append(report) }
                context.printLine("M\(index): Thread.isMainThread=\(report.isMainThread) OperationQueue.current=\(report.current.text(context.language))", lane: lane)
                ran.signal()
            }
        }
        context.trace.record("addOperations", lane: caller)
        main.addOperations(operations, waitUntilFinished: false)
        // The main queue runs only when the main thread serves it: wait a little, then say so.
        var served = 0
        while served < count && ran.wait(timeout: .now() + (served == 0 ? 2 : 5)) == .success { served += 1 }
        context.note("main served", String(served == count))
        if served < count {
            context.say(Localized(
                "  Only \(served) of \(count) ran: this process's main thread is busy or blocked, so main-queue work waits until it gets to it.",
                ja: "  \(count) 個中 \(served) 個しか動きませんでした。このプロセスのメインスレッドは忙しいかブロックされているので、メインキューの処理はメインスレッドが手を空けるまで待たされます。"))
        }

        context.say(Localized("3) For comparison, one operation, Q1, on a queue of our own:", ja: "3) 比べるために、自分で作ったキューでオペレーション Q1 を 1 つ:"))
        let own = OperationQueue()
        let ownReport = Locked<PlaceReport?>(nil)
        let ownOperation = BlockOperation {
            let lane = context.trace.currentThreadLane()
            let report = PlaceReport(lane: lane, isMainThread: Thread.isMainThread, current: CurrentQueue.here(own: own))
            context.trace.span("Q1", lane: lane) { spin(microseconds: 800) }
            ownReport.withLock { $0 = report }
            context.printLine("Q1: Thread.isMainThread=\(report.isMainThread) OperationQueue.current=\(report.current.text(context.language))", lane: lane)
        }
        own.addOperation(ownOperation)
        try waitForAll(in: own, Localized("the operation on our own queue did not finish", ja: "自分のキューのオペレーションが終わりませんでした"))
        withExtendedLifetime(operations + [ownOperation]) {}

        let mainReports = reports.current
        let allOnMain = !mainReports.isEmpty && mainReports.allSatisfy(\.isMainThread)
        let allCurrentMain = !mainReports.isEmpty && mainReports.allSatisfy { $0.current == .main }
        let peak = context.trace.peakOverlap { $0.hasPrefix("M") }
        context.note("main ops on main thread", String(allOnMain))
        context.note("main ops current is main", String(allCurrentMain))
        context.note("main ops at once", String(peak))
        context.note("caller current", callerReport.current.rawValue)
        context.note("own current", ownReport.current?.current.rawValue ?? "-")
        context.note("own on main thread", ownReport.current.map { String($0.isMainThread) } ?? "-")

        // The table: where each question was asked, and the answers.
        let placeHeader = Localized("asked from", ja: "尋ねた場所").text(context.language)
        let laneHeader = Localized("lane", ja: "レーン").text(context.language)
        context.show("  " + padded(placeHeader, to: 30) + padded(laneHeader, to: 8) + padded("Thread.isMainThread", to: 21) + "OperationQueue.current")
        func row(_ place: Localized, _ report: PlaceReport?) {
            guard let report else { return }
            context.show("  " + padded(place.text(context.language), to: 30) + padded(report.lane, to: 8) + padded(String(report.isMainThread), to: 21)
                         + report.current.text(context.language))
        }
        row(Localized("\(caller), outside any operation", ja: "\(caller)、オペレーションの外"), callerReport)
        row(Localized("an operation on main", ja: "main のオペレーション"), mainReports.first)
        row(Localized("an operation on our own queue", ja: "自分のキューのオペレーション"), ownReport.current)

        if served == count {
            context.say(allOnMain
                ? Localized("  Every main-queue operation ran on the main thread, one at a time (at most \(peak) at once).",
                            ja: "  メインキューのオペレーションはすべてメインスレッドで、1 つずつ動きました（同時に最大 \(peak) 個）。")
                : Localized("  The main-queue operations ran one at a time (at most \(peak) at once), but OFF the main thread: this process's main thread does not serve the main queue.",
                            ja: "  メインキューのオペレーションは 1 つずつ動きました（同時に最大 \(peak) 個）が、メインスレッドの外でした。このプロセスのメインスレッドはメインキューを処理していません。"))
        }
        context.say(Localized(
            "  OperationQueue.current is the queue that started the running operation; outside an operation (on \(caller)) it was \(callerReport.current.text(.en)).",
            ja: "  OperationQueue.current は実行中のオペレーションを開始したキューです。オペレーションの外（\(caller)）では \(callerReport.current.text(.ja)) でした。"))
    }
}
