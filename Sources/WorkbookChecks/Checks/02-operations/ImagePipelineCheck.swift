import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 02-operations/ImagePipeline on a queue that allows two operations at a time.
///
/// First the graph itself, which needs no timing: after `schedule` returns, every stage must
/// depend (directly or through others) on the stages it needs, and thumbnail and metadata must
/// not depend on each other. Then the run: thumbnail and metadata wait for each other inside
/// (up to 1.5 s — if the other never comes they were serialized), and the trace must show every
/// arrow respected, every stage once on the given queue, and never more than two in flight.
public enum ImagePipelineCheck {
    public static let everyStageOnce = Property(
        id: "stage-count",
        name: Localized("one operation per stage, all on the given queue", ja: "ステージごとに 1 つの操作、すべて渡されたキューで"),
        rule: Localized("Each of the five stages runs exactly once, on the queue it was given.",
                        ja: "5 つのステージはそれぞれちょうど 1 回、渡されたキューで実行される。"))
    public static let edgesRespected = Property(
        id: "edge-broken",
        name: Localized("every arrow is respected", ja: "すべての矢印が守られる"),
        rule: Localized("A stage starts only after every stage it needs has ended: download → decode → thumbnail, metadata → save.",
                        ja: "ステージは必要なステージがすべて終わってから始まる: download → decode → thumbnail, metadata → save。"))
    public static let siblingsOverlap = Property(
        id: "siblings-serialized",
        name: Localized("thumbnail and metadata may run together", ja: "thumbnail と metadata は同時に実行できる"),
        rule: Localized("Thumbnail and metadata both need only decode, so they can run at the same time.",
                        ja: "thumbnail と metadata はどちらも decode だけを必要とするので、同時に実行できる。"))
    public static let withinLimit = Property(
        id: "over-limit",
        name: Localized("never more in flight than the queue allows", ja: "キューが許す数より多く同時に動かない"),
        rule: Localized("At most 2 stages run at once (the queue's maxConcurrentOperationCount).",
                        ja: "同時に実行されるステージは最大 2 つ（キューの maxConcurrentOperationCount）。"))
    public static let properties = [everyStageOnce, edgesRespected, siblingsOverlap, withinLimit, Property.finishes]

    static let limit = 2

    public static func run(_ make: @escaping @Sendable () -> any ImagePipelineProtocol, options: CheckOptions = .init()) -> CheckResult {
        check(make(), options: options).map(CheckResult.failed) ?? .passed(properties)
    }

    static func check(_ pipeline: any ImagePipelineProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let inside = Locked(0)
        let partnerArrived = DispatchSemaphore(value: 0)
        let overlapped = Locked(false)
        let scheduled = DispatchSemaphore(value: 0)
        let stages = PipelineStages(trace: trace) { stage in
            // Nothing runs its work until the graph has been read.
            _ = scheduled.wait(timeout: .now() + 2)
            scheduled.signal()
            guard stage == .thumbnail || stage == .metadata else { return }
            // Wait (up to 1.5 s) until the other sibling is inside too.
            if inside.withLock({ $0 += 1; return $0 }) == 2 {
                overlapped.withLock { $0 = true }
                partnerArrived.signal()
            } else {
                _ = partnerArrived.wait(timeout: .now() + 1.5)
            }
            inside.withLock { $0 -= 1 }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = limit
        let graph: [PipelineStage: Set<PipelineStage>]? = withDeadline(seconds: options.deadlockSeconds) {
            pipeline.schedule(stages, on: queue)
            return stages.transitiveNeeds()
        }
        scheduled.signal()
        guard let graph else { return .deadlock(trace: trace, options: options, doing: "schedule(_:on:)") }
        if let failure = checkGraph(graph, events: trace.events) {
            _ = withDeadline(seconds: 2) { queue.cancelAllOperations(); queue.waitUntilAllOperationsAreFinished(); return true }
            return failure
        }
        let drained: Bool? = withDeadline(seconds: options.deadlockSeconds + 2) {
            queue.waitUntilAllOperationsAreFinished()
            return true
        }
        let events = trace.events
        guard drained != nil else {
            return .deadlock(trace: trace, options: options, doing: "schedule(_:on:) and then the queue (a dependency cycle, or an operation that depends on one never added?)")
        }
        let made = stages.madeStages
        let ran = Set(events.filter { $0.kind == .begin }.map(\.lane))
        let onOtherQueue = stages.queueOfStage.filter { $0.value != ObjectIdentifier(queue) }.map(\.key.rawValue).sorted()
        if made.sorted(by: { $0.rawValue < $1.rawValue }) != PipelineStage.allCases.sorted(by: { $0.rawValue < $1.rawValue })
            || ran.count != PipelineStage.allCases.count || !onOtherQueue.isEmpty {
            let missing = PipelineStage.allCases.map(\.rawValue).filter { !ran.contains($0) }
            return CheckFailure(everyStageOnce, observed: Localized(
                "Operations made: \(made.map(\.rawValue)); stages that ran: \(ran.sorted()); never ran: \(missing); ran on another queue: \(onOtherQueue). Make exactly one operation per stage and add all five to the queue you are given.",
                ja: "作られた操作: \(made.map(\.rawValue))、実行されたステージ: \(ran.sorted())、実行されなかったもの: \(missing)、別のキューで実行されたもの: \(onOtherQueue)。ステージごとにちょうど 1 つの操作を作り、5 つすべてを渡されたキューに追加しましょう。"),
                events: events)
        }
        func sequence(_ stage: PipelineStage, _ kind: Trace.Kind) -> Int {
            events.first { $0.lane == stage.rawValue && $0.kind == kind }!.sequence
        }
        for stage in PipelineStage.allCases {
            for need in stage.needs where sequence(stage, .begin) < sequence(need, .end) {
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
                ja: "\(most) 個のステージが同時に実行されました。キューが許すのは \(limit) 個です。渡されたキューに操作を追加し、その maxConcurrentOperationCount は変えないでください。"),
                events: events)
        }
        if !overlapped.current {
            return CheckFailure(siblingsOverlap, observed: Localized(
                "thumbnail waited 1.5 s for metadata to start alongside it (or the other way round), and it never did: they ran one after the other. They both need only decode — do not make one depend on the other.",
                ja: "thumbnail は metadata が並んで始まるのを 1.5 秒待ちました（または逆）が、始まりませんでした。2 つは順番に実行されています。どちらも decode だけを必要とします。一方を他方に依存させないでください。"),
                events: events)
        }
        return nil
    }

    /// The graph as made: every needed stage reachable, and the siblings independent.
    static func checkGraph(_ graph: [PipelineStage: Set<PipelineStage>], events: [Trace.Event]) -> CheckFailure? {
        for stage in PipelineStage.allCases {
            guard let needs = graph[stage] else { continue }  // missing stages: reported after the run
            for need in stage.needs where !needs.contains(need) {
                return CheckFailure(edgesRespected, observed: Localized(
                    "\(stage.rawValue) does not wait for \(need.rawValue): after schedule(_:on:) returned, \(stage.rawValue) had no dependency leading to \(need.rawValue) (it depends on \(needs.map(\.rawValue).sorted())). Add \(stage.rawValue).addDependency(\(need.rawValue)).",
                    ja: "\(stage.rawValue) が \(need.rawValue) を待ちません。schedule(_:on:) が戻った時点で、\(stage.rawValue) から \(need.rawValue) へつながる依存関係がありませんでした（依存先: \(needs.map(\.rawValue).sorted())）。\(stage.rawValue).addDependency(\(need.rawValue)) を追加しましょう。"),
                    events: events)
            }
        }
        if graph[.thumbnail]?.contains(.metadata) == true || graph[.metadata]?.contains(.thumbnail) == true {
            let (later, earlier) = graph[.thumbnail]?.contains(.metadata) == true ? ("thumbnail", "metadata") : ("metadata", "thumbnail")
            return CheckFailure(siblingsOverlap, observed: Localized(
                "\(later) depends on \(earlier), so they can never run at the same time. Both need only decode — remove the dependency between them.",
                ja: "\(later) が \(earlier) に依存しているため、2 つは決して同時に実行されません。どちらも decode だけを必要とします。2 つの間の依存関係を削除しましょう。"),
                events: events)
        }
        return nil
    }
}
