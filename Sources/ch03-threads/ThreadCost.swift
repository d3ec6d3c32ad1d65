import Foundation
import WorkbookCore

extension Chapter03 {
    /// A thread per task costs an OS thread each; GCD runs the same tasks on a few pooled threads.
    static let threadCost = Scenario(
        slug: "thread-cost",
        title: Localized("A thread per task vs the GCD pool", ja: "タスクごとのスレッドと GCD のプール"),
        narration: Localized(
            """
            `tasks` small tasks (about 20 µs of work each), run two ways, and measured. \
            First with a new `Thread` per task: every task pays for creating an OS thread (its stack, a kernel object, scheduling) and for tearing it down, \
            and nothing limits how many exist at once. Then as blocks on `DispatchQueue.global()`: GCD keeps a pool of worker threads, about one per core, and reuses them. \
            The scenario counts the threads that ran the tasks, the most alive at the same time, and the wall time of each way. \
            With thousands of tasks, or tasks that block, threads per task run into the limits of the OS; a pool does not. \
            (GCD can explode too: blocks that block make it add threads. Chapter 04 shows how Swift concurrency's fixed pool avoids that.)
            """,
            ja: """
            小さなタスク（1 つ約 20 µs の処理）を `tasks` 個、2 通りの方法で実行して測ります。\
            まずタスクごとに新しい `Thread` を作ります。どのタスクも OS のスレッドを作るコスト（スタック、カーネルのオブジェクト、スケジューリング）と片付けるコストを払い、\
            同時にいくつ存在するかを制限するものもありません。次に `DispatchQueue.global()` のブロックとして実行します。GCD はワーカースレッドのプール（コアあたり約 1 本）を持ち、使い回します。\
            シナリオは、タスクを実行したスレッドの数、同時に生きていた最大数、それぞれの所要時間を測ります。\
            タスクが何千にもなったり、タスクが待ちで止まったりすると、タスクごとのスレッドは OS の限界にぶつかりますが、プールはぶつかりません。\
            （GCD でもスレッド爆発は起こります。スレッドをブロックするブロックがあると、GCD はスレッドを増やします。大きさが固定された Swift の協調スレッドプールがそれをどう避けるかは第 04 章で見ます。）
            """),
        knobs: [
            .init("tasks", default: 200, range: 10...5_000, help: Localized("tasks run each way", ja: "それぞれの方法で実行するタスク数")),
        ]
    ) { context in
        try await blocking { try runThreadCost(context) }
    }

    /// Counts the threads that ran tasks, and how many tasks were running at once.
    private final class Census: Sendable {
        private let state = Locked((threads: Set<UInt>(), running: 0, peak: 0))

        func enter() {
            state.withLock {
                $0.threads.insert(ThreadIdentity.current)
                $0.running += 1
                $0.peak = max($0.peak, $0.running)
            }
        }

        func leave() { state.withLock { $0.running -= 1 } }

        var threads: Int { state.current.threads.count }
        var peak: Int { state.current.peak }
    }

    private static func runThreadCost(_ context: ScenarioContext) throws {
        let tasks = context.knob("tasks")
        let lane = context.trace.currentThreadLane()
        let stuck = Localized("the tasks did not finish", ja: "タスクが終わりませんでした")

        func task(_ census: Census, _ done: DispatchGroup) -> @Sendable () -> Void {
            {
                census.enter()
                spin(microseconds: 20)
                census.leave()
                done.leave()
            }
        }

        // The timeline: a few of the tasks each way, made long enough to see, each drawn on the
        // lane of the thread that ran it. (All of them, 20 µs each, would be too many and too thin.)
        let drawn = min(tasks, 6)
        func draw(_ way: Localized, launch: (@escaping @Sendable () -> Void) -> Void) throws -> Int {
            let from = context.trace.nextSequence
            context.trace.record(way, lane: lane)
            let done = DispatchGroup()
            for index in 1...drawn {
                done.enter()
                launch {
                    context.trace.span(Localized("task \(index)", ja: "タスク \(index)")) { spin(microseconds: 500) }
                    done.leave()
                }
            }
            try wait(for: done, stuck)
            return context.trace.lanes(from: from) { $0.hasPrefix("task ") }.count
        }
        let drawnThreads = try draw(Localized("a Thread per task", ja: "タスクごとの Thread")) { Thread(block: $0).start() }
        let drawnPool = try draw(Localized("GCD global queue", ja: "GCD グローバルキュー")) { DispatchQueue.global().async(execute: $0) }

        /// Runs every task, started by `launch`; the census of the threads that ran them, and the time.
        func measure(launch: (@escaping @Sendable () -> Void) -> Void) throws -> (census: Census, nanoseconds: UInt64) {
            let census = Census(), done = DispatchGroup()
            let start = MonotonicClock.now()
            for _ in 0..<tasks {
                done.enter()
                launch(task(census, done))
            }
            try wait(for: done, seconds: 60, stuck)
            return (census, MonotonicClock.now() &- start)
        }
        let (perTask, perTaskTime) = try measure { Thread(block: $0).start() }
        let (pooled, pooledTime) = try measure { DispatchQueue.global().async(execute: $0) }

        context.note("threads created", String(perTask.threads))
        context.note("pool threads", String(pooled.threads))
        let ratio = Double(perTaskTime) / Double(max(pooledTime, 1))
        let columns = [22, 10, 14]
        func row(_ cells: [String]) -> String {
            "  " + zip(cells, columns + [0]).map { padded($0, to: $1) }.joined()
        }
        context.show(row([Localized("way", ja: "方法"), Localized("threads", ja: "スレッド"),
                          Localized("most at once", ja: "同時最大"), Localized("time", ja: "時間")].map { $0.text(context.language) }))
        context.show(row([Localized("Thread per task", ja: "タスクごとの Thread").text(context.language), String(perTask.threads),
                          String(perTask.peak), formatDuration(nanoseconds: perTaskTime)]))
        context.show(row([Localized("GCD global queue", ja: "GCD グローバルキュー").text(context.language), String(pooled.threads),
                          String(pooled.peak), formatDuration(nanoseconds: pooledTime)]))
        context.say(Localized(
            "  \(perTask.threads) threads ran \(tasks) tasks; GCD used \(pooled.threads). The thread-per-task way took \(String(format: "%.1f", ratio))× as long (\(String(format: "%.0f", Double(perTaskTime) / Double(tasks) / 1_000)) µs per task instead of 20 µs of work).",
            ja: "  \(tasks) 個のタスクを \(perTask.threads) 本のスレッドが実行し、GCD が使ったのは \(pooled.threads) 本でした。タスクごとのスレッドは \(String(format: "%.1f", ratio)) 倍の時間がかかりました（20 µs の処理に対して、タスクあたり \(String(format: "%.0f", Double(perTaskTime) / Double(tasks) / 1_000)) µs）。"))
        context.say(Localized(
            "  The timeline draws \(drawn) of the tasks each way, 500 µs each, on the lanes of the threads that ran them: \(drawnThreads) thread(s) for a Thread per task, \(drawnPool) for GCD.",
            ja: "  タイムラインには、それぞれの方法のタスク \(drawn) 個（各 500 µs）を、実行したスレッドのレーンに描きます。タスクごとの Thread では \(drawnThreads) 本、GCD では \(drawnPool) 本のスレッドでした。"))
    }
}
