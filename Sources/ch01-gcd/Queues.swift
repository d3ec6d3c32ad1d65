import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// Main, global and private queues, and which thread runs each.
    static let queues = Scenario(
        slug: "queues",
        title: Localized("Main, global and private queues: which thread?", ja: "メイン・グローバル・プライベートキュー: どのスレッドで動く？"),
        narration: Localized(
            """
            Blocks go to four places: `DispatchQueue.main`, a `@MainActor` task, `DispatchQueue.global()` and a private serial queue; \
            each records its lane and `Thread.isMainThread`. \
            The main queue and the main actor run on the main thread — here because this program keeps a run loop turning on it. \
            Part two shows programs whose main thread does not: there main-queue blocks run elsewhere or not at all. \
            Global-queue blocks run on pool threads (T2, T3, …), several at once. \
            The private serial queue runs its blocks one at a time, but not always on the same thread: \
            between its two batches a block on another queue keeps the first thread busy, and the queue simply moves to another one. \
            On Linux the last column is the kernel's thread name: libdispatch names pool threads after their root queue.
            """,
            ja: """
            ブロックを `DispatchQueue.main`、`@MainActor` のタスク、`DispatchQueue.global()`、プライベートなシリアルキューの 4 か所に送り、それぞれレーンと `Thread.isMainThread` を記録させます。\
            メインキューとメインアクターはメインスレッドで動きます。ここでそうなるのは、このプログラムがメインスレッドでランループを回しているからです。\
            パート 2 では、メインスレッドがメインキューを処理しないプログラムを見せます。そこではメインキューのブロックは別のスレッドで動くか、まったく動きません。\
            グローバルキューのブロックはプールのスレッド（T2、T3 …）で同時にいくつも動きます。\
            プライベートなシリアルキューはブロックを 1 つずつ実行しますが、同じスレッドとは限りません。\
            2 回に分けた投入の間、別のキューのブロックが最初のスレッドを使い続けるので、キューは単に別のスレッドへ移ります。\
            Linux では最後の列がカーネル上のスレッド名で、libdispatch はプールのスレッドにルートキューの名前を付けます。
            """)
    ) { context in
        try await blocking { try runQueues(context) }
    }

    /// One block's report: where it was sent and what its thread looked like.
    private struct Sighting: Sendable {
        let queue: String
        let probe: ThreadProbe
    }

    /// What the learner reads for a queue: the global and private ones in words, the others as code.
    private static func shownName(_ queue: String) -> Localized {
        switch queue {
        case "global": Localized("global", ja: "グローバル")
        case "private": Localized("private", ja: "プライベート")
        default: .verbatim(queue)
        }
    }

    private static func runQueues(_ context: ScenarioContext) throws {
        let sightings = Locked<[Sighting]>([])
        /// The block every queue runs: a little work, drawn as a span, then a report.
        @Sendable func block(_ queue: String) {
            let probe = ThreadProbe.here(in: context.trace)
            context.trace.span(shownName(queue), lane: probe.lane) { spin(microseconds: 500) }
            context.printLine("\(context.text(shownName(queue)))  isMainThread=\(probe.isMainThread)", lane: probe.lane)
            sightings.withLock { $0.append(Sighting(queue: queue, probe: probe)) }
        }
        context.trace.record(Localized("submit", ja: "投入"))

        // The main queue and the main actor: waited for at most a second each, since a program
        // may have nobody serving them. A block that comes too late stays silent.
        func runOnMain(_ name: String, submit: (@escaping @Sendable () -> Void) -> Void) {
            let gaveUp = Locked(false)
            let ran = DispatchSemaphore(value: 0)
            submit {
                guard !gaveUp.current else { return }
                block(name)
                ran.signal()
            }
            if ran.wait(timeout: .now() + 1) == .timedOut {
                gaveUp.withLock { $0 = true }
                context.say(Localized(
                    "  \(name): did not run within 1 s — this process's main thread is busy or blocked, so main-queue work waits.",
                    ja: "  \(name): 1 秒以内に実行されませんでした。このプロセスのメインスレッドは忙しいかブロックされているので、メインキューの処理は待たされます。"))
            }
        }
        runOnMain("main.async") { body in DispatchQueue.main.async(execute: body) }
        runOnMain("@MainActor") { body in Task { @MainActor in body() } }

        // The global concurrent queue: three blocks at once, on pool threads.
        let group = DispatchGroup()
        for _ in 1...3 {
            DispatchQueue.global().async(group: group) { block("global") }
        }
        try wait(for: group, Localized("the global queue's blocks did not finish", ja: "グローバルキューのブロックが終わりませんでした"))

        // A private serial queue: two batches of two. In between, a block on another queue holds
        // a pool thread (likely the one the first batch used) until the second batch is done.
        let privateQueue = DispatchQueue(label: "workbook.private")
        let otherQueue = DispatchQueue(label: "workbook.other")
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        // Released after the second batch, and on the way out if a wait below gives up (a second
        // signal only leaves the semaphore above its start value, which is harmless).
        defer { release.signal() }
        for batch in 1...2 {
            for _ in 1...2 { privateQueue.async(group: group) { block("private") } }
            try wait(for: group, Localized("the private queue's blocks did not finish", ja: "プライベートキューのブロックが終わりませんでした"))
            if batch == 1 {
                otherQueue.async {
                    let lane = context.trace.currentThreadLane()
                    context.trace.begin(Localized("other queue", ja: "別のキュー"), lane: lane)
                    holding.signal()
                    release.wait()
                    context.trace.end(Localized("other queue", ja: "別のキュー"), lane: lane)
                }
                try wait(for: holding, Localized("the other queue's block did not start", ja: "別のキューのブロックが始まりませんでした"))
            }
        }
        release.signal()

        // The table, then what it means.
        let all = sightings.current
        let headers = (Localized("queue", ja: "キュー").text(context.language), Localized("lane", ja: "レーン").text(context.language),
                       "isMainThread", Localized("thread name", ja: "スレッド名").text(context.language))
        context.show("")
        let queueWidth = max(12, (all.map { displayWidth(context.text(shownName($0.queue))) }.max() ?? 0) + 2)
        context.show("  " + padded(headers.0, to: queueWidth) + padded(headers.1, to: 8) + padded(headers.2, to: 14) + headers.3)
        for sighting in all {
            let probe = sighting.probe
            context.show("  " + padded(context.text(shownName(sighting.queue)), to: queueWidth) + padded(probe.lane, to: 8)
                         + padded(String(probe.isMainThread), to: 14) + (probe.kernelName ?? "-"))
        }
        let privateLanes = Set(all.filter { $0.queue == "private" }.map(\.probe.lane))
        let globalLanes = Set(all.filter { $0.queue == "global" }.map(\.probe.lane))
        context.say(Localized(
            "The global queue used \(globalLanes.count) thread(s); the private serial queue used \(privateLanes.count) (\(privateLanes.sorted().joined(separator: ", "))), one block at a time.",
            ja: "グローバルキューは \(globalLanes.count) 本のスレッドを使い、プライベートなシリアルキューは \(privateLanes.count) 本（\(privateLanes.sorted().joined(separator: ", "))）を使い、ブロックを 1 つずつ実行しました。"))
        context.note("private lanes", String(privateLanes.count))
        let offMain = all.filter { ["main.async", "@MainActor"].contains($0.queue) && !$0.probe.isMainThread }.map(\.queue)
        if !offMain.isEmpty {
            let names = offMain.joined(separator: ", ")
            context.say(Localized(
                "\(names) ran off the main thread: this process's main thread has parked in dispatchMain() (a test runner's async main does that on Linux), so a pool thread drains the main queue instead.",
                ja: "\(names) はメインスレッド以外で動きました。このプロセスのメインスレッドは dispatchMain() で休止している（Linux ではテストランナーの async な main がそうします）ため、代わりにプールのスレッドがメインキューを処理しています。"))
        }
        context.show("")
        runMainThreadUses(context)
    }
}
