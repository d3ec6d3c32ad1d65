import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 02-operations/ImagePipeline on a queue that allows two operations at a time.
///
/// 0. No data race: `schedule` is called on one pipeline four times, two threads taking turns
///    (`runInTurns`), on queues that stay suspended meanwhile (unless `schedule` waits for
///    them), so state the pipeline keeps in a plain `var` is an unordered pair that
///    ThreadSanitizer reports, every run.
/// 1. The queue the pipeline gets records every `addOperation(s)` with the dependencies each
///    operation had at that moment. An operation added while a stage it needs is not yet among
///    its dependencies is one the queue may start at once: the check then holds download and
///    waits (in the `addOperation` call) until the queue has started it, so the mistake shows
///    on the trace every run instead of in a few.
/// 2. After `schedule` returns, the graph itself, which needs no timing: one operation per
///    stage; no cycle (described from the edges actually made); every stage depends, directly
///    or through others, on the stages it needs; thumbnail and metadata do not depend on each
///    other; every dependency was in place before its operation was queued; every stage's
///    operation went to the given queue, whose settings are unchanged.
/// 3. The run: thumbnail and metadata wait for each other inside (if the other never comes
///    they were serialized), and the trace must show every arrow respected, every stage once on
///    the given queue, and never more than two in flight.
public enum ImagePipelineCheck {
    public static let everyStageOnce = Property(
        id: "stage-count",
        name: Localized("one operation per stage, all on the given queue", ja: "ステージごとに 1 つのオペレーション、すべて渡されたキューで"),
        rule: Localized("Each of the five stages runs exactly once, as an operation added to the queue it was given.",
                        ja: "5 つのステージはそれぞれちょうど 1 回、渡されたキューに追加されたオペレーションとして実行される。"))
    public static let edgesRespected = Property(
        id: "edge-broken",
        name: Localized("every arrow is respected", ja: "すべての矢印が守られる"),
        rule: Localized("A stage starts only after every stage it needs has ended: download → decode → thumbnail, metadata → save.",
                        ja: "ステージは必要なステージがすべて終わってから始まる: download → decode → thumbnail, metadata → save。"))
    public static let dependenciesFirst = Property(
        id: "late-dependency",
        name: Localized("dependencies are in place before an operation is queued", ja: "依存関係はオペレーションをキューに入れる前に設定する"),
        rule: Localized("An operation goes into the queue only once every dependency it will have has been added.",
                        ja: "オペレーションをキューに入れるのは、持つべき依存関係をすべて追加した後だけ。"))
    public static let noCycle = Property(
        id: "dependency-cycle",
        name: Localized("no dependency cycle", ja: "依存関係が循環しない"),
        rule: Localized("Following dependencies from any stage never leads back to it.",
                        ja: "どのステージから依存関係をたどっても、自分に戻ってこない。"))
    public static let siblingsOverlap = Property(
        id: "siblings-serialized",
        name: Localized("thumbnail and metadata may run together", ja: "thumbnail と metadata は同時に実行できる"),
        rule: Localized("Thumbnail and metadata both need only decode, so they can run at the same time.",
                        ja: "thumbnail と metadata はどちらも decode だけを必要とするので、同時に実行できる。"))
    public static let withinLimit = Property(
        id: "over-limit",
        name: Localized("the queue's limit stands", ja: "キューの上限が守られる"),
        rule: Localized("The queue keeps maxConcurrentOperationCount = 2, and at most 2 stages run at once.",
                        ja: "キューは maxConcurrentOperationCount = 2 のままで、同時に実行されるステージは最大 2 つ。"))
    public static let properties = [everyStageOnce, noCycle, edgesRespected, dependenciesFirst, siblingsOverlap, withinLimit, Property.finishes]

    static let limit = 2

    /// The stages each stage needs finished before it may start (the arrows of the exercise).
    static func needs(_ stage: PipelineStage) -> [PipelineStage] {
        switch stage {
        case .download: []
        case .decode: [.download]
        case .thumbnail, .metadata: [.decode]
        case .save: [.thumbnail, .metadata]
        }
    }

    public static func run(_ make: @escaping @Sendable () -> any ImagePipelineProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = probeRaces(make, options: options) ?? check(make(), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: 0. Data races

    /// `schedule` on one pipeline from two threads in turns, each with its own stages and queue.
    static func probeRaces(_ make: @escaping @Sendable () -> any ImagePipelineProtocol, options: CheckOptions) -> CheckFailure? {
        // Warm up on this thread first: the first call fills the Swift runtime's caches under
        // its own locks, which would order the probe threads' calls for TSan and hide the race.
        let warm = (stages: PipelineStages(), queue: RecordingQueue())
        warm.queue.maxConcurrentOperationCount = limit
        guard returnsWithin(seconds: options.deadlockSeconds, { make().schedule(warm.stages, on: warm.queue) }) else {
            return .deadlock(trace: warm.stages.trace, options: options, doing: .verbatim("schedule(_:on:)"))
        }
        let pipeline = make()
        let trace = Trace()
        // The probe's queues start suspended: while the threads take turns, no stage runs on a
        // pool thread that could carry one thread's writes to the other (through the runtime's
        // and Foundation's own locks) and hide the race. A queue resumes as soon as `schedule`
        // waits for it, and after the probe.
        let runs = (0..<4).map { _ in
            let suspended = QuietState<OperationQueue?>(nil)
            let resume: @Sendable () -> Void = { suspended.current?.isSuspended = false }
            let run = (stages: PipelineStages(waiting: resume), queue: RecordingQueue(waits: resume))
            run.queue.maxConcurrentOperationCount = limit
            run.queue.isSuspended = true
            suspended.update { $0 = run.queue }
            return run
        }
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: runs.indices.map { index in
            (index % 2, { trace.span("schedule(_:on:)", lane: "T\(index % 2)") { pipeline.schedule(runs[index].stages, on: runs[index].queue) } })
        })
        for run in runs { run.queue.isSuspended = false }
        // Whatever was scheduled is let go: a graph that never drains (a cycle) is the main
        // check's to explain, not the probe's.
        for queue in [warm.queue] + runs.map(\.queue) { settle(queue) }
        withExtendedLifetime((warm, runs)) {}
        return stuck == nil ? nil : .deadlock(trace: trace, options: options, doing: .verbatim("schedule(_:on:)"))
    }

    /// Waits a moment for `queue` to drain; if it does not, cancels what is left and waits again.
    static func settle(_ queue: OperationQueue) {
        guard !returnsWithin(seconds: 1, { queue.waitUntilAllOperationsAreFinished() }) else { return }
        queue.cancelAllOperations()
        _ = returnsWithin(seconds: 1) { queue.waitUntilAllOperationsAreFinished() }
    }

    // MARK: 1–3. The graph and the run

    /// What the check's gates know while `schedule` and the stages run.
    struct Gate: Sendable {
        var scheduleReturned = false
        /// `schedule` waits for the operations (so holding download would stall it).
        var scheduleWaits = false
        var begun: Set<PipelineStage> = []
        var siblingsInside = 0
        var siblingsMet = false
        /// Stages the queue could start although a stage they need was not among their
        /// dependencies, with what they depended on at that moment.
        var wronglyReady: [PipelineStage: [PipelineStage]] = [:]
    }

    static func check(_ pipeline: any ImagePipelineProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let gate = QuietState(Gate())
        let siblingSeconds = min(options.deadlockSeconds, 2)
        let stages = PipelineStages(trace: trace, hold: { stage in
            gate.update { _ = $0.begun.insert(stage) }
            switch stage {
            case .download:
                // Held while schedule runs, so that an operation wrongly ready runs before it ends.
                gate.wait(seconds: options.deadlockSeconds) { $0.scheduleReturned || $0.scheduleWaits }
            case .thumbnail, .metadata:
                // Each waits until the other is inside too: serialized siblings never meet.
                gate.update {
                    $0.siblingsInside += 1
                    if $0.siblingsInside == 2 { $0.siblingsMet = true }
                }
                gate.wait(seconds: siblingSeconds) { $0.siblingsMet }
            default:
                break
            }
        }, waiting: { gate.update { $0.scheduleWaits = true } })
        let additions = QuietState<[RecordingQueue.Addition]>([])
        let checkedQueue = QuietState<OperationQueue?>(nil)
        @Sendable func queueHasRoom() -> Bool {
            guard let queue = checkedQueue.current, !queue.isSuspended else { return false }
            let width = queue.maxConcurrentOperationCount
            let running = stages.madeOperations.filter { $0.operation.isExecuting }.count
            return width == OperationQueue.defaultMaxConcurrentOperationCount || running < width
        }
        let queue = RecordingQueue(additions: additions, added: {
            // An operation the queue may start now although a stage it needs is missing from
            // its dependencies: give the queue its chance to start it before schedule goes on.
            let wrongly = wronglyReady(stages, queued: Set(additions.current.map(\.operation)))
            guard !wrongly.isEmpty else { return }
            gate.update { gate in for (stage, had) in wrongly where gate.wronglyReady[stage] == nil { gate.wronglyReady[stage] = had } }
            // Only a queue with room can start it: not a suspended one, and not one whose
            // every slot is taken by a running stage (download, held; or a width the answer
            // narrowed to 1). Then there is no chance to give, only the record above.
            guard queueHasRoom() else { return }
            gate.wait(seconds: 1) { !$0.begun.isDisjoint(with: wrongly.keys) }
        }, waits: { gate.update { $0.scheduleWaits = true } })
        queue.maxConcurrentOperationCount = limit
        checkedQueue.update { $0 = queue }
        defer {
            checkedQueue.update { $0 = nil }
            withExtendedLifetime((stages, queue)) {}
        }
        let returned = returnsWithin(seconds: options.deadlockSeconds) {
            pipeline.schedule(stages, on: queue)
            gate.update { $0.scheduleReturned = true }
        }
        guard returned else { return .deadlock(trace: trace, options: options, doing: .verbatim("schedule(_:on:)")) }
        if let failure = checkGraph(stages, queue: queue, gate: gate.current, events: trace.events) {
            _ = returnsWithin(seconds: 2) { queue.cancelAllOperations(); queue.waitUntilAllOperationsAreFinished() }
            return failure
        }
        guard returnsWithin(seconds: options.deadlockSeconds + 2, { queue.waitUntilAllOperationsAreFinished() }) else {
            let ended = trace.events.filter { $0.kind == .end }.map(\.lane)
            let unfinished = PipelineStage.allCases.map(\.rawValue).filter { !ended.contains($0) }
            let names = unfinished.joined(separator: ", ")
            return .deadlock(trace: trace, options: options, doing: Localized(
                "the queue after schedule(_:on:) (stages not finished: \(names))", ja: "schedule(_:on:) の後のキュー（終わっていないステージ: \(names)）"))
        }
        return checkRun(stages, queue: queue, events: trace.events, siblingsMet: gate.current.siblingsMet, siblingSeconds: siblingSeconds)
    }

    /// Stages added to the queue, not started, whose current dependencies are all finished,
    /// yet that do not depend on every stage they need: the queue may start them now.
    static func wronglyReady(_ stages: PipelineStages, queued: Set<ObjectIdentifier>) -> [PipelineStage: [PipelineStage]] {
        let graph = Graph(stages)
        var result: [PipelineStage: [PipelineStage]] = [:]
        for (stage, operation) in stages.madeOperations where queued.contains(ObjectIdentifier(operation))
            && !operation.isExecuting && !operation.isFinished && !operation.isCancelled {
            guard operation.dependencies.allSatisfy(\.isFinished) else { continue }
            let reach = graph.reachable(from: stage)
            if !needs(stage).allSatisfy(reach.contains) { result[stage] = graph.direct[stage]?.sorted { $0.rawValue < $1.rawValue } ?? [] }
        }
        return result
    }

    /// The dependency graph among the stages' operations as it is now.
    struct Graph {
        /// Each stage's direct dependencies that are stages.
        var direct: [PipelineStage: Set<PipelineStage>] = [:]
        /// How many of each stage's dependencies are not stages' operations.
        var foreign: [PipelineStage: Int] = [:]

        init(_ stages: PipelineStages) {
            let made = stages.madeOperations
            for (stage, operation) in made {
                var mine: Set<PipelineStage> = []
                for dependency in operation.dependencies {
                    if let other = made.first(where: { $0.operation === dependency })?.stage { mine.insert(other) } else { foreign[stage, default: 0] += 1 }
                }
                direct[stage, default: []].formUnion(mine)
            }
        }

        func reachable(from stage: PipelineStage) -> Set<PipelineStage> {
            var seen: Set<PipelineStage> = [], next = direct[stage] ?? []
            while let item = next.popFirst() {
                guard seen.insert(item).inserted else { continue }
                next.formUnion(direct[item] ?? [])
            }
            return seen
        }

        /// A shortest chain of dependencies from `start` to `goal` (at least one step):
        /// [start, …, goal]. With `goal == start` it finds a cycle through `start`.
        func path(from start: PipelineStage, to goal: PipelineStage) -> [PipelineStage]? {
            var previous: [PipelineStage: PipelineStage] = [:]
            var visited: Set<PipelineStage> = [start], frontier = [start]
            while !frontier.isEmpty {
                var next: [PipelineStage] = []
                for item in frontier {
                    for dependency in (direct[item] ?? []).sorted(by: { $0.rawValue < $1.rawValue }) {
                        if dependency == goal {
                            var chain = [goal, item]
                            while let back = previous[chain[chain.count - 1]] { chain.append(back) }
                            return chain.reversed()
                        }
                        if visited.insert(dependency).inserted {
                            previous[dependency] = item
                            next.append(dependency)
                        }
                    }
                }
                frontier = next
            }
            return nil
        }

        /// A cycle, as [a, b, …, a], if there is one.
        func cycle() -> [PipelineStage]? {
            PipelineStage.allCases.lazy.compactMap { path(from: $0, to: $0) }.first
        }
    }

    /// "a depends on b, b depends on c" for a chain [a, b, c].
    static func describe(_ chain: [PipelineStage]) -> Localized {
        let pairs = zip(chain, chain.dropFirst())
        return Localized(pairs.map { "\($0.rawValue) depends on \($1.rawValue)" }.joined(separator: ", "),
                         ja: pairs.map { "\($0.rawValue) は \($1.rawValue) に依存" }.joined(separator: "、"))
    }

    static func list(_ stages: some Collection<PipelineStage>) -> String {
        stages.isEmpty ? "none" : stages.map(\.rawValue).sorted().joined(separator: ", ")
    }

    static func listJa(_ stages: some Collection<PipelineStage>) -> String {
        stages.isEmpty ? "なし" : stages.map(\.rawValue).sorted().joined(separator: ", ")
    }

    /// Step 2: everything that can be judged from what `schedule` built, without running it.
    static func checkGraph(_ stages: PipelineStages, queue: RecordingQueue, gate: Gate, events: [Trace.Event]) -> CheckFailure? {
        let made = stages.madeStages
        let counts = Dictionary(made.map { ($0, 1) }, uniquingKeysWith: +)
        let wrongCounts = PipelineStage.allCases.filter { counts[$0, default: 0] != 1 }
        if !wrongCounts.isEmpty {
            let text = wrongCounts.map { "\($0.rawValue) \(counts[$0, default: 0])" }.joined(separator: ", ")
            return CheckFailure(everyStageOnce, observed: Localized(
                "stages.operation(for:) was asked for \(text) time(s); make exactly one operation per stage.",
                ja: "stages.operation(for:) の呼び出し回数: \(text)。ステージごとにちょうど 1 つのオペレーションを作りましょう。"),
                events: events)
        }
        let graph = Graph(stages)
        if let cycle = graph.cycle() {
            let chain = describe(cycle)
            return CheckFailure(noCycle, observed: Localized(
                "A dependency cycle: \(chain.en). None of them can ever become ready, so the queue waits forever, silently. Each stage depends only on the stages before it: download → decode → thumbnail, metadata → save.",
                ja: "依存関係が循環しています: \(chain.ja)。どれも準備完了にならず、キューは何も報告しないまま永遠に待ちます。各ステージは前のステージにだけ依存します: download → decode → thumbnail, metadata → save。"),
                events: events)
        }
        for stage in PipelineStage.allCases {
            let reach = graph.reachable(from: stage)
            for need in needs(stage) where !reach.contains(need) {
                let direct = graph.direct[stage] ?? []
                return CheckFailure(edgesRespected, observed: Localized(
                    "\(stage.rawValue) does not wait for \(need.rawValue): after schedule(_:on:) returned, no chain of dependencies led from \(stage.rawValue) to \(need.rawValue) (\(stage.rawValue) depends directly on: \(list(direct))). Add \(stage.rawValue).addDependency(\(need.rawValue)).",
                    ja: "\(stage.rawValue) が \(need.rawValue) を待ちません。schedule(_:on:) が戻った時点で、\(stage.rawValue) から \(need.rawValue) へつながる依存関係がありませんでした（\(stage.rawValue) の直接の依存先: \(listJa(direct))）。\(stage.rawValue).addDependency(\(need.rawValue)) を追加しましょう。"),
                    events: events)
            }
        }
        for (later, earlier) in [(PipelineStage.thumbnail, PipelineStage.metadata), (.metadata, .thumbnail)] {
            if let chain = graph.path(from: later, to: earlier) {
                let text = describe(chain)
                return CheckFailure(siblingsOverlap, observed: Localized(
                    "\(text.en): so \(later.rawValue) waits for \(earlier.rawValue), and they can never run at the same time. Both need only decode — remove that dependency.",
                    ja: "\(text.ja)。そのため \(later.rawValue) は \(earlier.rawValue) を待ち、2 つは決して同時に実行されません。どちらも decode だけを必要とします。その依存関係を削除しましょう。"),
                    events: events)
            }
        }
        let additions = queue.additions.current
        let notQueued = stages.madeOperations.filter { made in !additions.contains { $0.operation == ObjectIdentifier(made.operation) } }.map(\.stage)
        if !notQueued.isEmpty {
            let others = additions.count - (PipelineStage.allCases.count - notQueued.count)
            let extra = others > 0 ? " It got \(others) other operation(s) instead." : ""
            let extraJa = others > 0 ? "代わりに別のオペレーションが \(others) 個追加されました。" : ""
            return CheckFailure(everyStageOnce, observed: Localized(
                "The operations of \(list(notQueued)) were never added to the queue you were given.\(extra) Add all five with queue.addOperations([...], waitUntilFinished: false), and let the queue start them — do not call start() yourself or use another queue.",
                ja: "\(listJa(notQueued)) のオペレーションが、渡されたキューに一度も追加されませんでした。\(extraJa)5 つすべてを queue.addOperations([...], waitUntilFinished: false) で追加し、開始はキューに任せましょう。自分で start() を呼んだり、別のキューを使ったりしないでください。"),
                events: events)
        }
        let operations = stages.madeOperations
        for (stage, operation) in operations {
            guard let queued = additions.first(where: { $0.operation == ObjectIdentifier(operation) }) else { continue }
            let late = operation.dependencies.filter { !queued.dependencies.contains(ObjectIdentifier($0)) }
                .compactMap { dependency in operations.first { $0.operation === dependency }?.stage }
                .sorted { $0.rawValue < $1.rawValue }
            guard let first = late.first else { continue }
            let had = operations.filter { queued.dependencies.contains(ObjectIdentifier($0.operation)) }.map(\.stage)
            let began = events.first { $0.lane == stage.rawValue && $0.kind == .begin }?.sequence
            let firstEnded = events.first { $0.lane == first.rawValue && $0.kind == .end }?.sequence
            let ranEarly = began != nil && (firstEnded == nil || began! < firstEnded!)
            let seen = ranEarly
                ? Localized(" In this run the queue started \(stage.rawValue) in between, before \(first.rawValue) had ended (see their bars).",
                            ja: "この実行では、その間にキューが \(stage.rawValue) を開始し、\(first.rawValue) が終わる前に動き出しました（バーを見てください）。")
                : Localized(" In this run the queue had not started \(stage.rawValue) yet, but nothing stops it from doing so.",
                            ja: "この実行ではまだ \(stage.rawValue) は開始されていませんでしたが、キューが開始するのを止めるものは何もありません。")
            return CheckFailure(dependenciesFirst, observed: Localized(
                "\(stage.rawValue) was added to the queue while it depended on \(list(had)); its dependency on \(list(late)) came only afterwards. A queue may start an operation the moment it is added and ready.\(seen.en) Call every addDependency first, then add the operations.",
                ja: "\(stage.rawValue) は\(had.isEmpty ? "依存先が 1 つもない" : "依存先が \(listJa(had)) だけの")状態でキューに追加され、\(listJa(late)) への依存は後から追加されました。キューは、オペレーションが追加されて準備完了になった瞬間に開始することがあります。\(seen.ja)addDependency をすべて先に呼び、それからオペレーションを追加しましょう。"),
                events: events)
        }
        if let stage = gate.wronglyReady.keys.sorted(by: { $0.rawValue < $1.rawValue }).first, let had = gate.wronglyReady[stage] {
            // Wrongly ready when added, and the graph is complete now: a dependency was added to
            // another operation afterwards, closing the chain too late.
            return CheckFailure(dependenciesFirst, observed: Localized(
                "When \(stage.rawValue) was added to the queue it did not yet wait (directly or through others) for \(list(needs(stage))) — it depended on \(list(had)) — so the queue could start it at once; the missing link was added only afterwards. Call every addDependency first, then add the operations.",
                ja: "\(stage.rawValue) をキューに追加した時点では、まだ（直接にも間接にも）\(listJa(needs(stage))) を待っていませんでした（依存先: \(listJa(had))）。そのためキューはすぐに開始できました。足りない依存関係は後から追加されています。addDependency をすべて先に呼び、それからオペレーションを追加しましょう。"),
                events: events)
        }
        let width = queue.maxConcurrentOperationCount
        if width != limit {
            let property = width == 1 ? siblingsOverlap : withinLimit
            return CheckFailure(property, observed: Localized(
                "After schedule(_:on:) the queue's maxConcurrentOperationCount was \(width == OperationQueue.defaultMaxConcurrentOperationCount ? "the default (no limit)" : "\(width)"); it was given with \(limit). Leave the queue's settings alone: the dependencies, not the limit, decide the order\(width == 1 ? ", and with 1 thumbnail and metadata can never run together" : "").",
                ja: "schedule(_:on:) の後、キューの maxConcurrentOperationCount は \(width == OperationQueue.defaultMaxConcurrentOperationCount ? "既定値（上限なし）" : "\(width)") でした。渡されたときは \(limit) です。キューの設定は変えないでください。順序を決めるのは上限ではなく依存関係です\(width == 1 ? "。1 にすると thumbnail と metadata は決して同時に実行されません" : "")。"),
                events: events)
        }
        if queue.isSuspended {
            return CheckFailure(.finishes, observed: Localized(
                "schedule(_:on:) returned with the queue suspended: nothing would ever run. Leave the queue's settings alone.",
                ja: "schedule(_:on:) はキューを一時停止したまま戻りました。何も実行されません。キューの設定は変えないでください。"),
                events: events)
        }
        return nil
    }

    /// Step 3: the run, from the trace.
    static func checkRun(_ stages: PipelineStages, queue: RecordingQueue, events: [Trace.Event], siblingsMet: Bool, siblingSeconds: Double) -> CheckFailure? {
        let begins = Dictionary(grouping: events.filter { $0.kind == .begin }, by: \.lane)
        let ranTwice = begins.filter { $0.value.count > 1 }.map(\.key).sorted()
        let missing = PipelineStage.allCases.map(\.rawValue).filter { begins[$0] == nil }
        let onOtherQueue = stages.queueOfStage.filter { $0.value != ObjectIdentifier(queue) }.map(\.key.rawValue).sorted()
        if !missing.isEmpty || !ranTwice.isEmpty || !onOtherQueue.isEmpty {
            return CheckFailure(everyStageOnce, observed: Localized(
                "Stages that never ran: \(missing.isEmpty ? "none" : missing.joined(separator: ", ")); ran more than once: \(ranTwice.isEmpty ? "none" : ranTwice.joined(separator: ", ")); ran on another queue: \(onOtherQueue.isEmpty ? "none" : onOtherQueue.joined(separator: ", ")). Add all five operations to the queue you are given, once each, and do not cancel them.",
                ja: "実行されなかったステージ: \(missing.isEmpty ? "なし" : missing.joined(separator: ", "))、2 回以上実行されたもの: \(ranTwice.isEmpty ? "なし" : ranTwice.joined(separator: ", "))、別のキューで実行されたもの: \(onOtherQueue.isEmpty ? "なし" : onOtherQueue.joined(separator: ", "))。5 つのオペレーションを渡されたキューにそれぞれ 1 回ずつ追加し、キャンセルしないでください。"),
                events: events)
        }
        func sequence(_ stage: PipelineStage, _ kind: Trace.Kind) -> Int {
            events.first { $0.lane == stage.rawValue && $0.kind == kind }?.sequence ?? Int.max
        }
        for stage in PipelineStage.allCases {
            for need in needs(stage) where sequence(stage, .begin) < sequence(need, .end) {
                return CheckFailure(edgesRespected, observed: Localized(
                    "\(stage.rawValue) started before \(need.rawValue) had ended (see their bars). Add \(stage.rawValue).addDependency(\(need.rawValue)).",
                    ja: "\(need.rawValue) が終わる前に \(stage.rawValue) が始まりました（バーを見てください）。\(stage.rawValue).addDependency(\(need.rawValue)) を追加しましょう。"),
                    events: events)
            }
        }
        var running = 0, most = 0
        for event in events where event.kind != .point {
            running += event.kind == .begin ? 1 : -1
            most = max(most, running)
        }
        if most > limit {
            return CheckFailure(withinLimit, observed: Localized(
                "\(most) stages ran at once; the queue allows \(limit). Add the operations to the queue you are given and leave its maxConcurrentOperationCount alone.",
                ja: "\(most) 個のステージが同時に実行されました。キューが許すのは \(limit) 個です。渡されたキューにオペレーションを追加し、その maxConcurrentOperationCount は変えないでください。"),
                events: events)
        }
        if !siblingsMet {
            return CheckFailure(siblingsOverlap, observed: Localized(
                "thumbnail waited \(formatSeconds(siblingSeconds).en) for metadata to start alongside it (or the other way round), and it never did: they ran one after the other. They both need only decode — nothing should make one wait for the other.",
                ja: "thumbnail は metadata が並んで始まるのを \(formatSeconds(siblingSeconds).ja)待ちました（または逆）が、始まりませんでした。2 つは順番に実行されています。どちらも decode だけを必要とします。一方が他方を待つ理由はありません。"),
                events: events)
        }
        return nil
    }
}

/// The queue a pipeline is given: an ordinary `OperationQueue` that also records every
/// operation added to it, with the dependencies it had at that moment, and tells the check
/// when operations were added or someone waits for them. Its bookkeeping runs quietly.
final class RecordingQueue: OperationQueue, @unchecked Sendable {  // lets only; records in QuietState
    struct Addition: Sendable {
        let operation: ObjectIdentifier
        let dependencies: Set<ObjectIdentifier>
    }

    let additions: QuietState<[Addition]>
    private let added: @Sendable () -> Void
    private let waits: @Sendable () -> Void

    init(additions: QuietState<[Addition]> = QuietState([]), added: @escaping @Sendable () -> Void = {}, waits: @escaping @Sendable () -> Void = {}) {
        self.additions = additions
        self.added = added
        self.waits = waits
        super.init()
    }

    override func addOperation(_ operation: Operation) {
        record([operation])
        super.addOperation(operation)
        RaceDetector.quietly { added() }
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        record(operations)
        if wait { RaceDetector.quietly { waits() } }
        super.addOperations(operations, waitUntilFinished: wait)
        if !wait { RaceDetector.quietly { added() } }
    }

    override func waitUntilAllOperationsAreFinished() {
        RaceDetector.quietly { waits() }
        super.waitUntilAllOperationsAreFinished()
    }

    private func record(_ operations: [Operation]) {
        RaceDetector.quietly {
            let snapshot = operations.map { Addition(operation: ObjectIdentifier($0), dependencies: Set($0.dependencies.map(ObjectIdentifier.init))) }
            additions.update { $0.append(contentsOf: snapshot) }
        }
    }
}
