import Dispatch
import WorkbookCore

extension Chapter01 {
    /// A private queue made `.initiallyInactive`, with a reverse-DNS label and a QoS: blocks
    /// wait until `activate()`.
    static let inactiveQueue = Scenario(
        slug: "initially-inactive",
        title: Localized("A queue that starts inactive: label, qos and activate()", ja: "非アクティブで始まるキュー: `label`、`qos`、`activate()`"),
        narration: Localized(
            """
            `DispatchQueue(label: "com.example.workbook.importer", qos: .utility, attributes: .initiallyInactive)` makes a serial queue \
            that accepts blocks but runs none until `activate()`. That is the time to finish configuring it, \
            e.g. `setTarget(queue:)`, which may not be changed once the queue is active. \
            The caller submits a block that prints A, prints B, then activates the queue, waits for it with `sync {}`, and prints C. \
            The label is reverse-DNS (your organisation's domain, reversed, then the subsystem) because every library in the process \
            names queues in one namespace; on Apple platforms the label is what debuggers, Instruments and crash reports show. \
            `qos:` gives the queue's blocks a quality of service (§5) without choosing a global queue; \
            `.default` is what you get when you say nothing, not a class to pick.
            """,
            ja: """
            `DispatchQueue(label: "com.example.workbook.importer", qos: .utility, attributes: .initiallyInactive)` は、\
            ブロックを受け付けるものの `activate()` までは 1 つも実行しないシリアルキューを作ります。\
            その間に設定を済ませます（たとえば `setTarget(queue:)`。キューがアクティブになった後は変更できません）。\
            呼び出し元は A を表示するブロックを投入し、B を表示してからキューの `activate()` を呼び、`sync {}` でキューを待って C を表示します。\
            ラベルを逆 DNS 形式（自分の組織のドメインを逆順にして、その後にサブシステム名）にするのは、プロセス内のすべてのライブラリが 1 つの名前空間でキューに名前を付けるからです。\
            Apple のプラットフォームでは、デバッガや Instruments、クラッシュレポートに表示されるのがこのラベルです。\
            `qos:` はグローバルキューを選ばずに、キューのブロックに QoS（§5）を与えます。\
            `.default` は何も指定しないときの値であって、選ぶためのクラスではありません。
            """),
        prediction: .init(
            question: Localized(
                "A block printing A goes to an inactive queue; the caller prints B, calls activate(), waits with sync {}, prints C. Order?",
                ja: "A を表示するブロックを非アクティブなキューに投入し、呼び出し元は B を表示、activate() を呼び、sync {} で待って C を表示します。順番は？"),
            explanation: Localized(
                "B A C, every time. The queue holds A until activate(); sync {} returns only after A has run, so C comes last.",
                ja: "毎回 B A C です。キューは activate() まで A を保留し、sync {} は A の実行後にしか戻らないので、C が最後です。"),
            isPossible: { $0 == "BAC" })
    ) { context in
        try await blocking { try runInactiveQueue(context) }
    }

    private static func runInactiveQueue(_ context: ScenarioContext) throws {
        let queue = DispatchQueue(label: "com.example.workbook.importer", qos: .utility, attributes: .initiallyInactive)
        context.show("  label=\(queue.label)  qos=\(queue.qos.qosClass)")
        let ranEarly = DispatchSemaphore(value: 0)
        queue.async {
            context.emit("A")
            ranEarly.signal()
        }
        context.emit("B")
        // Inactive: the block must not run, however long we wait. A short look proves nothing
        // alone, but a block that did run here would be a plain bug.
        let ranBeforeActivate = ranEarly.wait(timeout: .now() + 0.1) == .success
        context.note("ran before activate", String(ranBeforeActivate))
        queue.setTarget(queue: DispatchQueue.global(qos: .utility))  // allowed: still inactive
        context.trace.record("activate()")
        queue.activate()
        queue.sync {}
        context.emit("C")
    }
}
