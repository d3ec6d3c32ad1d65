import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// `Task {}` looks like `DispatchQueue.global().async {}`; where it differs.
    static let taskVersusGlobal = Scenario(
        slug: "task-vs-global-async",
        title: Localized("Task {} versus DispatchQueue.global().async {}", ja: "Task {} と DispatchQueue.global().async {}"),
        narration: Localized(
            """
            Both start work that runs later, while the caller goes on. The differences: \
            a `Task {}` inherits the actor of the code that creates it — made on the main actor, it runs on the main actor (the main thread here); \
            `Task.detached {}` and `DispatchQueue.global().async {}` inherit nothing and run on a pool thread. \
            A task also carries its priority and task-local values, returns a handle whose `value` you can `await` and that you can `cancel()`, \
            and, unless an actor's executor runs it (the main actor's is the main thread), runs on Swift's cooperative pool, \
            which keeps about one thread per core: a task must not block its thread (a semaphore wait, `sleep`), \
            while GCD may add threads when its blocks block. \
            The scenario creates all three from the main actor and reports where each ran.
            """,
            ja: """
            どちらも後で動く処理を始め、呼び出し元はそのまま先へ進みます。違いは次のとおりです。\
            `Task {}` は作ったコードのアクターを引き継ぎます。メインアクター上で作ればメインアクター（ここではメインスレッド）で動きます。\
            `Task.detached {}` と `DispatchQueue.global().async {}` は何も引き継がず、プールのスレッドで動きます。\
            タスクは優先度とタスクローカル値も引き継ぎ、`await` で `value` を受け取れて `cancel()` もできるハンドルを返し、\
            アクターのエグゼキュータが動かすのでなければ（メインアクターのエグゼキュータはメインスレッドです）、コアあたり約 1 本のスレッドしか持たない Swift の協調スレッドプールで動きます。そのためタスクはスレッドをブロック（セマフォの `wait()` や `sleep`）してはいけません。\
            一方 GCD は、ブロックがスレッドをブロックするとスレッドを増やすことがあります。\
            シナリオでは 3 つともメインアクターから作り、それぞれどこで動いたかを報告します。
            """),
        prediction: .init(
            question: Localized(
                "Created on the main actor: Task {}, Task.detached {}, DispatchQueue.global().async {}. Which of them run on the main thread? (T / D / G, or none)",
                ja: "メインアクター上で Task {}、Task.detached {}、DispatchQueue.global().async {} を作ります。メインスレッドで動くのはどれ？（T / D / G、なければ「なし」）"),
            explanation: Localized(
                "Only T. Task {} inherits the main actor from the code that made it; the detached task and the GCD block inherit nothing and run on pool threads.",
                ja: "T だけです。Task {} は作ったコードからメインアクターを引き継ぎます。detached のタスクと GCD のブロックは何も引き継がず、プールのスレッドで動きます。"),
            observe: { $0.noted("on main") ?? "" },
            isPossible: { $0 == "T" })
    ) { context in
        let places = await startAllThree(context)
        let onMain = places.filter(\.onMainQueue).map(\.letter).joined()
        context.note("on main", onMain.isEmpty ? "NONE" : onMain)
        for place in places {
            context.show("  \(padded(place.code, to: 34)) Thread.isMainThread=\(place.onMain)")
        }
    }

    private struct Place: Sendable {
        let letter: String
        let code: String
        let onMain: Bool
        /// On the main queue (the main actor's executor), whichever thread drains it: in a test
        /// runner on Linux that is a pool thread (scenario 4, part two).
        let onMainQueue: Bool
    }

    @MainActor
    private static func startAllThree(_ context: ScenarioContext) async -> [Place] {
        @Sendable func probe(_ code: String) -> (Bool, Bool) {
            context.trace.record(code)
            return (Thread.isMainThread, MainQueueMark.isCurrent)
        }
        let inherited = Task { probe("Task {}") }
        let detached = Task.detached { probe("Task.detached {}") }
        let gcd = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: probe("global().async {}")) }
        }
        let (inheritedThread, inheritedQueue) = await inherited.value
        let (detachedThread, detachedQueue) = await detached.value
        return [
            Place(letter: "T", code: "Task {}", onMain: inheritedThread, onMainQueue: inheritedQueue),
            Place(letter: "D", code: "Task.detached {}", onMain: detachedThread, onMainQueue: detachedQueue),
            Place(letter: "G", code: "DispatchQueue.global().async {}", onMain: gcd.0, onMainQueue: gcd.1),
        ]
    }
}

/// Tells whether code runs on the main queue, whichever thread drains it.
enum MainQueueMark {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var isCurrent: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
