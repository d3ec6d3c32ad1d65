import Foundation
import WorkbookCore

extension Chapter02 {
    /// Dependencies connect operations, not queues: an operation on the CPU queue can wait for
    /// one on the network queue.
    static let graphAcrossQueues = Scenario(
        slug: "graph-across-queues",
        title: Localized("A dependency graph across three queues", ja: "3 つのキューにまたがる依存グラフ"),
        narration: Localized(
            """
            An image pipeline: for each of `images` images, `download` runs on a network queue (at most 2 at once), \
            then `decode` and `resize` on a CPU queue (at most 2 at once), and one `show` waits for every resize on a third queue. \
            Each queue has its own limit, suited to its kind of work, and the dependencies join them: `decode 2` waits for `download 2` although they never share a queue. \
            All operations are created and added up front; nobody submits the next step from a completion handler. \
            On the timeline, look at the edges: every span begins after the end of the spans it depends on, \
            while independent work (download 3 and decode 1, say) overlaps freely. The scenario checks every edge on the trace. \
            Two things to remember: an operation whose dependency is never added to any queue never starts, and the dependency must be added before the operation is queued.
            """,
            ja: """
            画像のパイプラインです。`images` 枚の画像それぞれについて、`download` はネットワーク用のキュー（同時に 2 つまで）で、\
            `decode` と `resize` は CPU 用のキュー（同時に 2 つまで）で動き、最後に 1 つの `show` が 3 つ目のキューですべての resize を待ちます。\
            キューごとに処理の種類に合った上限を持ち、依存関係がキューをつなぎます。`decode 2` は、同じキューにいない `download 2` を待つのです。\
            オペレーションはすべて最初に作ってキューに入れます。完了ハンドラの中から次の段階を投入するコードはありません。\
            タイムラインでは辺（依存関係）に注目してください。どのバーも、依存先のバーが終わってから始まります。\
            一方で、関係のない処理（たとえば download 3 と decode 1）は自由に重なります。シナリオはすべての辺をトレースで確かめます。\
            覚えておきたいことが 2 つあります。依存先がどのキューにも入れられなければ、そのオペレーションは永遠に始まりません。そして依存関係は、キューに入れる前に付けておく必要があります。
            """),
        knobs: [
            .init("images", default: 3, range: 1...6, help: Localized("images in the pipeline", ja: "パイプラインに流す画像の枚数")),
        ]
    ) { context in
        try await blocking { try runGraphAcrossQueues(context) }
    }

    private static func runGraphAcrossQueues(_ context: ScenarioContext) throws {
        let images = context.knob("images")
        let network = OperationQueue(), cpu = OperationQueue(), ui = OperationQueue()
        network.name = context.text(Localized("network", ja: "ネットワーク"))
        network.maxConcurrentOperationCount = 2
        cpu.name = context.text(Localized("cpu", ja: "CPU"))
        cpu.maxConcurrentOperationCount = 2
        ui.name = context.text(Localized("ui", ja: "UI"))
        ui.maxConcurrentOperationCount = 1

        /// An operation that records its span and says which queue ran it.
        func step(_ label: String, microseconds: Int) -> BlockOperation {
            BlockOperation {
                let lane = context.trace.currentThreadLane()
                let queueName = OperationQueue.current?.name ?? "?"
                context.trace.span(label, lane: lane) { spin(microseconds: microseconds) }
                context.printLine("\(label)  [\(queueName)]", lane: lane)
            }
        }

        var edges: [Edge] = []
        var downloads: [Operation] = [], cpuWork: [Operation] = []
        let show = step("show", microseconds: 500)
        for image in 1...images {
            let download = step("download \(image)", microseconds: 3_000)
            let decode = step("decode \(image)", microseconds: 2_000)
            let resize = step("resize \(image)", microseconds: 1_000)
            decode.addDependency(download)  // across queues: network → cpu
            resize.addDependency(decode)
            show.addDependency(resize)      // across queues: cpu → ui
            edges += [Edge(earlier: "download \(image)", later: "decode \(image)"),
                      Edge(earlier: "decode \(image)", later: "resize \(image)"),
                      Edge(earlier: "resize \(image)", later: "show")]
            downloads.append(download)
            cpuWork += [decode, resize]
        }
        context.say(Localized(
            "download i [network, 2 at once] → decode i → resize i [cpu, 2 at once] → show [ui]; all added up front, the later stages first.",
            ja: "download i [ネットワーク、同時に 2 つ] → decode i → resize i [CPU、同時に 2 つ] → show [UI]。すべて最初に追加し、後の段階から先に入れます。"))
        context.trace.record(Localized("add all", ja: "すべて追加"))
        // Added in reverse order on purpose: the dependencies, not the adding order, decide.
        ui.addOperation(show)
        cpu.addOperations(cpuWork.reversed(), waitUntilFinished: false)
        network.addOperations(downloads, waitUntilFinished: false)
        for queue in [network, cpu, ui] {
            try waitForAll(in: queue, Localized("the \(queue.name ?? "") queue did not finish", ja: "\(queue.name ?? "") キューが終わりませんでした"))
        }
        withExtendedLifetime(downloads + cpuWork + [show]) {}

        let broken = Edge.broken(edges, in: context.trace)
        context.note("edges", String(edges.count))
        context.note("edges broken", String(broken.count))
        if broken.isEmpty {
            context.say(Localized(
                "All \(edges.count) edges held: every operation began after the operations it depends on had ended, across three queues.",
                ja: "\(edges.count) 本の辺がすべて守られました。3 つのキューにまたがっていても、どのオペレーションも依存先が終わってから始まりました。"))
        } else {
            let list = broken.map { "\($0.earlier) → \($0.later)" }.joined(separator: ", ")
            context.say(Localized("Broken edges (unexpected): \(list)", ja: "守られなかった辺（想定外）: \(list)"))
        }
        let cpuPeak = context.trace.peakOverlap { $0.hasPrefix("decode") || $0.hasPrefix("resize") }
        let networkPeak = context.trace.peakOverlap { $0.hasPrefix("download") }
        context.note("network peak", String(networkPeak))
        context.note("cpu peak", String(cpuPeak))
        context.say(Localized(
            "Most at once: network \(networkPeak) (limit 2), cpu \(cpuPeak) (limit 2). Each queue kept its own limit.",
            ja: "同時実行の最大: ネットワーク \(networkPeak)（上限 2）、CPU \(cpuPeak)（上限 2）。どのキューも自分の上限を守りました。"))
    }
}
