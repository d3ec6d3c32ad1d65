import Dispatch
import WorkbookCore

extension Chapter01 {
    /// Quality of service: what each class does to the thread that runs the work, measured.
    static let qos = Scenario(
        slug: "qos",
        title: Localized("Quality of service: what each class changes", ja: "QoS: クラスごとに何が変わるか"),
        narration: Localized(
            """
            Work is submitted to `DispatchQueue.global(qos:)` at each class, from `.background` to `.userInteractive`, \
            and every block reports what its thread looks like. QoS is a request to the scheduler, not an ordering: \
            nothing here says which block finishes first. \
            On Linux libdispatch keeps a thread pool per class and turns the class into the thread's nice value: \
            the table shows what the kernel reports, and the thread names show the pools. \
            A nice value does not make anything run first; it weights the CPU share a thread gets while threads compete for a core. \
            `Thread.current.qualityOfService` is not wired on Linux: it says the same on every queue. \
            On Apple platforms the table shows `qos_class_self()` instead; there the class also steers timers, I/O and which cores run the thread. \
            Either way, the effect appears only under contention, so part two makes some: hogs at one class fill every core, \
            and one block of fixed work runs at another. Compare its time with the same work alone.
            """,
            ja: """
            `.background` から `.userInteractive` までの各クラスで `DispatchQueue.global(qos:)` に処理を投入し、ブロックごとに自分のスレッドの様子を報告させます。\
            QoS はスケジューラへの要望であって、順序を決めるものではありません。どのブロックが先に終わるかは、ここからは何もわかりません。\
            Linux の libdispatch はクラスごとにスレッドプールを持ち、クラスをスレッドの nice 値に対応させます。\
            表にはカーネルが報告する値が出ており、スレッド名からはプールがわかります。\
            nice 値は何かを先に動かすものではありません。1 つのコアをスレッドが取り合うときに、それぞれが得る CPU 時間の比率に重みを付けるものです。\
            Linux では `Thread.current.qualityOfService` が連動しておらず、どのキューでも同じ値になります。\
            Apple のプラットフォームでは代わりに `qos_class_self()` を表示します。そちらではクラスがタイマーや I/O、どのコアで動くかにも影響します。\
            いずれにしても効果が出るのは CPU の取り合いがあるときだけなので、パート 2 ではわざと取り合いを起こします。\
            あるクラスのブロックですべてのコアを埋め、別のクラスで決まった量の処理を 1 つ実行して、単独で実行したときの時間と比べます。
            """),
        knobs: [
            .init("tasks", default: 2, range: 1...16, help: Localized("blocks per QoS class", ja: "QoS クラスごとのブロック数")),
        ]
    ) { context in
        try await blocking { try runQoS(context) }
    }

    private static let qosClasses: [DispatchQoS.QoSClass] = [.background, .utility, .default, .userInitiated, .userInteractive]

    private static func runQoS(_ context: ScenarioContext) throws {
        let tasks = context.knob("tasks")
        let probes = Locked<[String: [ThreadProbe]]>([:])
        context.trace.record(Localized("submit", ja: "投入"))
        // One class at a time, so the timeline shows each class's pool threads together.
        for qosClass in qosClasses {
            let name = "\(qosClass)"
            let group = DispatchGroup()
            for _ in 0..<tasks {
                DispatchQueue.global(qos: qosClass).async(group: group) {
                    let probe = ThreadProbe.here(in: context.trace)
                    context.trace.span(".\(name)", lane: probe.lane) { spin(microseconds: 1_000) }
                    probes.withLock { $0[name, default: []].append(probe) }
                }
            }
            try wait(for: group, Localized("the \(name) blocks did not finish", ja: "\(name) のブロックが終わりませんでした"))
        }

        /// The distinct values a column took in one class, e.g. "10" or "0 / 2".
        func values(_ probes: [ThreadProbe], _ column: (ThreadProbe) -> String?) -> String {
            var seen: [String] = []
            for value in probes.map({ column($0) ?? "-" }) where !seen.contains(value) { seen.append(value) }
            return seen.joined(separator: " / ")
        }
        let observed = probes.current
        let classHeader = Localized("QoS class", ja: "QoS クラス").text(context.language)
        let threadsHeader = Localized("threads", ja: "スレッド").text(context.language)
        #if canImport(Darwin)
        context.show("  " + padded(classHeader, to: 18) + padded(threadsHeader, to: 10) + padded("qos_class_self()", to: 18) + "Thread.qualityOfService")
        #else
        let nameHeader = Localized("thread name", ja: "スレッド名").text(context.language)
        context.show("  " + padded(classHeader, to: 18) + padded(threadsHeader, to: 10) + padded("nice", to: 6) + padded(nameHeader, to: 17) + "Thread.qualityOfService")
        #endif
        for qosClass in qosClasses {
            let name = "\(qosClass)"
            let classProbes = observed[name] ?? []
            let lanes = values(classProbes) { $0.lane }
            #if canImport(Darwin)
            context.show("  " + padded(".\(name)", to: 18) + padded(lanes, to: 10) + padded(values(classProbes) { $0.qosClassSelf }, to: 18)
                         + values(classProbes) { $0.foundationQoS })
            #else
            context.show("  " + padded(".\(name)", to: 18) + padded(lanes, to: 10) + padded(values(classProbes) { $0.niceValue.map(String.init) }, to: 6)
                         + padded(values(classProbes) { $0.kernelName }, to: 17) + values(classProbes) { $0.foundationQoS })
            context.note("nice \(name)", values(classProbes) { $0.niceValue.map(String.init) })
            #endif
        }
        #if canImport(Glibc)
        context.say(Localized(
            "Thread names are the last 15 characters of the pool's name (Linux keeps at most 15), e.g. com.apple.root.default-qos → oot.default-qos.",
            ja: "スレッド名はプール名の末尾 15 文字です（Linux は 15 文字までしか保持しません）。例: com.apple.root.default-qos → oot.default-qos。"))
        #endif
        let initiatedLanes = Set((observed["userInitiated"] ?? []).map(\.lane))
        let interactiveLanes = Set((observed["userInteractive"] ?? []).map(\.lane))
        if !initiatedLanes.isDisjoint(with: interactiveLanes) {
            context.say(Localized(
                "userInitiated and userInteractive work ran on the same threads: one pool serves both here.",
                ja: "userInitiated と userInteractive の処理が同じスレッドで動きました。ここでは 1 つのプールが両方を処理しています。"))
        }
        context.show("")
        try runQoSContention(context)
    }
}
