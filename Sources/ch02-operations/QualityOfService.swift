import Foundation
import WorkbookCore

extension Chapter02 {
    /// `qualityOfService` on a queue and on an operation: what the properties read, and what the
    /// thread that ran the operation looked like to the kernel.
    static let qualityOfService = Scenario(
        slug: "quality-of-service",
        title: Localized("qualityOfService of a queue and of an operation", ja: "キューとオペレーションの qualityOfService"),
        narration: Localized(
            """
            `OperationQueue.qualityOfService` asks for a QoS class (chapter 01, scenario 5) for the operations the queue runs; `Operation.qualityOfService` asks for one operation. \
            The scenario runs one operation per row, Q1 to Q5, one after another, and each reports what the properties read and what the kernel says about the thread that ran it. \
            Q1: a queue with nothing set. Q2 and Q3: a queue set to `.utility`, and one set to `.userInitiated`. \
            Q4: a queue with nothing set, and the operation's own `qualityOfService = .utility`. \
            Q5: a queue set to `.utility` only after its first operation has run. \
            On Linux the thread's nice value is the measure: libdispatch turns a class into a nice value (chapter 01 measured background 10, utility 2, default 0, userInitiated and userInteractive −2), \
            and the thread's name tells which pool ran it. On Apple platforms the table shows `qos_class_self()` instead. \
            Compare what each property reads with what the thread got: they are not always the same. \
            And a class is a request to the scheduler, not an order: it matters only when the CPU is busy.
            """,
            ja: """
            `OperationQueue.qualityOfService` は、キューが動かすオペレーションの QoS クラス（第 01 章シナリオ 5）を指定します。`Operation.qualityOfService` は 1 つのオペレーションのクラスを指定します。\
            シナリオは 1 行につき 1 つのオペレーション（Q1 〜 Q5）を順に動かし、それぞれがプロパティの値と、自分を動かしたスレッドについてカーネルが報告する値を表示します。\
            Q1: 何も設定しないキュー。Q2 と Q3: `.utility` にしたキューと `.userInitiated` にしたキュー。\
            Q4: 何も設定しないキューで、オペレーション自身の `qualityOfService = .utility`。\
            Q5: 最初のオペレーションが動いた後で `.utility` にしたキュー。\
            Linux ではスレッドの nice 値が物差しです。libdispatch はクラスを nice 値に対応させます（第 01 章の測定では `.background` 10、`.utility` 2、`.default` 0、`.userInitiated` と `.userInteractive` −2）。\
            スレッド名からはどのプールが動かしたかがわかります。Apple のプラットフォームでは代わりに `qos_class_self()` を表示します。\
            プロパティが返す値と、スレッドが実際に得たものを比べてください。いつも同じとは限りません。\
            また、クラスはスケジューラへの要望であって命令ではありません。効くのは CPU が混んでいるときだけです。
            """)
    ) { context in
        try await blocking { try runQualityOfService(context) }
    }

    /// One row of the table: how the queue and the operation were set up, and what was seen.
    private struct QoSRow: Sendable {
        let label: String
        let setting: String
        let queueReads: String
        let operationReads: String
        let thread: ThreadPriorityRow
    }

    private static func runQualityOfService(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()
        let stuck = Localized("the operation did not finish", ja: "オペレーションが終わりませんでした")

        /// Runs one operation on `queue` and returns what it saw.
        func measure(_ label: String, setting: String, on queue: OperationQueue, operationQoS: QualityOfService? = nil) throws -> QoSRow {
            let seen = Locked<ThreadPriorityRow?>(nil)
            let operation = BlockOperation {
                let lane = context.trace.currentThreadLane()
                let thread = ThreadPriorityRow.here()
                context.trace.span(label, lane: lane) { spin(microseconds: 800) }
                seen.withLock { $0 = thread }
            }
            if let operationQoS { operation.qualityOfService = operationQoS }
            context.trace.record("addOperation", lane: caller)
            queue.addOperation(operation)
            try waitForAll(in: queue, stuck)
            guard let thread = seen.current else { throw ScenarioStuck(what: stuck) }
            return QoSRow(label: label, setting: setting, queueReads: qosName(queue.qualityOfService),
                          operationReads: qosName(operation.qualityOfService), thread: thread)
        }

        var rows: [QoSRow] = []
        rows.append(try measure("Q1", setting: Localized("OperationQueue(), nothing set", ja: "OperationQueue()、設定なし").text(context.language),
                                on: OperationQueue()))
        for (label, qos) in [("Q2", QualityOfService.utility), ("Q3", .userInitiated)] {
            let queue = OperationQueue()
            queue.qualityOfService = qos
            rows.append(try measure(label, setting: "queue.qualityOfService = .\(qosName(qos))", on: queue))
        }
        rows.append(try measure("Q4", setting: "operation.qualityOfService = .utility", on: OperationQueue(), operationQoS: .utility))
        let late = OperationQueue()
        let first = BlockOperation { spin(microseconds: 200) }
        late.addOperation(first)
        try waitForAll(in: late, stuck)
        late.qualityOfService = .utility
        rows.append(try measure("Q5", setting: Localized(".utility, set after the first operation", ja: "最初のオペレーションの後で .utility").text(context.language),
                                on: late))

        let settingHeader = Localized("setting", ja: "設定").text(context.language)
        let queueHeader = Localized("queue reads", ja: "キューの値").text(context.language)
        let operationHeader = Localized("operation reads", ja: "オペレーションの値").text(context.language)
        #if canImport(Darwin)
        let threadHeader = "qos_class_self()"
        #else
        let threadHeader = "nice   " + Localized("thread name", ja: "スレッド名").text(context.language)
        #endif
        context.show("     " + padded(settingHeader, to: 42) + padded(queueHeader, to: 16) + padded(operationHeader, to: 20) + threadHeader)
        for row in rows {
            #if canImport(Darwin)
            let thread = row.thread.name
            #else
            let thread = padded(row.thread.nice, to: 7) + row.thread.name
            #endif
            context.show("  " + padded(row.label, to: 3) + padded(row.setting, to: 42) + padded("." + row.queueReads, to: 16) + padded("." + row.operationReads, to: 20) + thread)
            context.note("\(row.label) queue reads", row.queueReads)
            context.note("\(row.label) operation reads", row.operationReads)
            context.note("\(row.label) nice", row.thread.nice)
            context.note("\(row.label) thread", row.thread.name)
        }

        let untouched = rows[0]
        context.say(Localized(
            "  A queue you create with nothing set reads .\(untouched.queueReads) here (Apple's documentation gives .background as the default for such queues).",
            ja: "  何も設定せずに作ったキューは、ここでは .\(untouched.queueReads) を返しました（Apple のドキュメントは、そのようなキューの既定値を .background としています）。"))
        #if !canImport(Darwin)
        let (utility, initiated, ownQoS, setLate) = (rows[1], rows[2], rows[3], rows[4])
        context.say(Localized(
            "  The queue's class reached the thread: .utility ran at nice \(utility.thread.nice) (\(utility.thread.name)), .userInitiated at nice \(initiated.thread.nice) (\(initiated.thread.name)).",
            ja: "  キューのクラスはスレッドに届きました。.utility は nice \(utility.thread.nice)（\(utility.thread.name)）、.userInitiated は nice \(initiated.thread.nice)（\(initiated.thread.name)）で動きました。"))
        if ownQoS.thread.nice == untouched.thread.nice && ownQoS.thread.nice != utility.thread.nice {
            context.say(Localized(
                "  Q4's own .utility did not: the property reads utility, but the thread ran at nice \(ownQoS.thread.nice), like Q1. Set the class on the queue.",
                ja: "  Q4 のオペレーション自身の .utility は届きませんでした。プロパティは `.utility` を返しますが、スレッドは Q1 と同じ nice \(ownQoS.thread.nice) で動きました。クラスはキューに設定しましょう。"))
        }
        if setLate.thread.nice != utility.thread.nice {
            context.say(Localized(
                "  Q5's queue reads utility, but its operation ran at nice \(setLate.thread.nice): the class set after the first operation did not reach the threads. Set it before adding operations.",
                ja: "  Q5 のキューは `.utility` を返しますが、オペレーションは nice \(setLate.thread.nice) で動きました。最初のオペレーションの後で設定したクラスはスレッドに届きませんでした。オペレーションを追加する前に設定しましょう。"))
        }
        #endif
        withExtendedLifetime(first) {}
    }
}

/// The nice value and kernel name (Linux) or QoS class (Apple platforms) a row shows.
struct ThreadPriorityRow: Sendable {
    /// The nice value, or "-" where unknown.
    let nice: String
    /// Linux: the kernel's thread name (15 characters at most); Apple platforms: the QoS class.
    let name: String

    static func here() -> ThreadPriorityRow {
        let priority = ThreadPriority.current()
        return ThreadPriorityRow(nice: priority.niceValue.map(String.init) ?? "-", name: priority.kernelName ?? priority.qosClass ?? "-")
    }
}
