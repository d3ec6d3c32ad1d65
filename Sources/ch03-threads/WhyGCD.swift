import Foundation
import WorkbookCore

extension Chapter03 {
    /// The same jobs three ways: hand-made worker threads, `concurrentPerform`, and an
    /// OperationQueue; what each makes you write yourself.
    static let whyGCD = Scenario(
        slug: "why-gcd",
        title: Localized("Why GCD or OperationQueue is usually the better choice", ja: "たいてい GCD や OperationQueue のほうがよい理由"),
        narration: Localized(
            """
            `jobs` jobs of 1 ms each, then a summary that must wait for all of them, done three ways. \
            1) With threads: two worker threads take jobs from a shared list under an `NSLock`, and the caller waits on a semaphore per thread, since `Thread` has no join. \
            How many threads? Two, because this machine has two cores, and that number is hard-coded; the summary has to be run by hand after the waits. Every piece (the list, the lock, the join, the error-prone bookkeeping) is yours to write and to get right. \
            2) `DispatchQueue.concurrentPerform(iterations:)`: one call; GCD spreads the iterations over its pool, sized to the cores, and returns when all are done. \
            3) An `OperationQueue` with `maxConcurrentOperationCount = 2` and a summary operation that depends on every job: the order is declared, and the jobs could be cancelled or given priorities. \
            All three run every job once. Threads remain the right tool for a long-lived loop that owns something (a run loop, a blocking device read) or that needs its own stack size or priority; for units of work, use a queue.
            """,
            ja: """
            1 ms のジョブ `jobs` 個と、そのすべてを待つ集計を、3 通りの方法で実行します。\
            1) スレッドで: 2 本のワーカースレッドが `NSLock` で守った共有リストからジョブを取り、呼び出し元はスレッドごとのセマフォで待ちます。`Thread` には `join()` がないからです。\
            何本にするか？ このマシンは 2 コアなので 2 本ですが、その数は決め打ちで、集計も待った後に手で動かす必要があります。リスト、ロック、`join()`、間違えやすい帳尻合わせ、どの部品も自分で書いて正しくしなければなりません。\
            2) `DispatchQueue.concurrentPerform(iterations:)`: 呼び出しは 1 つです。GCD はコア数に合わせたプールに繰り返しを配り、全部終わったら戻ります。\
            3) `maxConcurrentOperationCount = 2` の `OperationQueue` と、すべてのジョブに依存する集計オペレーション: 順序は宣言するだけで、ジョブをキャンセルしたり優先度を付けたりもできます。\
            3 つとも、どのジョブも 1 回ずつ実行します。スレッドが正しい道具なのは、何かを所有する長寿命のループ（ランループ、ブロックするデバイスの読み込み）や、専用のスタックサイズや優先度が要る場合です。処理の単位には、キューを使ってください。
            """),
        knobs: [
            .init("jobs", default: 8, range: 1...64, help: Localized("jobs of 1 ms", ja: "1 ms のジョブの数")),
        ]
    ) { context in
        try await blocking { try runWhyGCD(context) }
    }

    private static func runWhyGCD(_ context: ScenarioContext) throws {
        let jobs = context.knob("jobs")
        let caller = context.trace.currentThreadLane()
        let stuck = Localized("the jobs did not finish", ja: "ジョブが終わりませんでした")
        let summaryLabel = Localized("summary", ja: "集計")

        /// Runs one job and counts it, so every way can be checked for "each job once".
        @Sendable func job(_ index: Int, _ runs: Locked<[Int]>) {
            context.trace.span("\(index)") { spin(microseconds: 1_000) }  // drawn by number: "job 3" would rarely fit
            runs.withLock { $0.append(index) }
        }
        func report(_ way: String, _ runs: Locked<[Int]>, from: Int, started: UInt64) {
            let done = runs.current
            let once = done.count == jobs && Set(done) == Set(0..<jobs)
            let threads = context.trace.lanes(from: from) { Int($0) != nil }
            let took = formatDuration(nanoseconds: MonotonicClock.now() &- started)
            context.note("\(way) each job once", String(once))
            context.say(Localized(
                "  \(done.count) jobs on \(threads.count) thread(s) (\(threads.joined(separator: ", "))) in \(took); each job once: \(once).",
                ja: "  \(done.count) 個のジョブを \(threads.count) 本のスレッド（\(threads.joined(separator: ", "))）で実行、所要 \(took)。どのジョブも 1 回ずつか: \(once)。"))
        }

        // 1) Hand-made workers.
        context.say(Localized("1) Two worker threads, a locked job list, a semaphore per thread as join:",
                              ja: "1) 2 本のワーカースレッド、ロックで守ったジョブのリスト、join() 代わりのスレッドごとのセマフォ:"))
        var from = context.trace.nextSequence
        var started = MonotonicClock.now()
        context.trace.record(Localized("threads", ja: "スレッド"), lane: caller)
        let handRuns = Locked<[Int]>([])
        let pending = Locked(Array(0..<jobs))
        let workers = (1...2).map { _ in
            StartedThread {
                while let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { job(next, handRuns) }
            }
        }
        for worker in workers { try worker.join(stuck) }
        context.trace.record(summaryLabel, lane: caller)
        report("threads", handRuns, from: from, started: started)

        // 2) concurrentPerform.
        context.say(Localized("2) DispatchQueue.concurrentPerform(iterations: \(jobs)):", ja: "2) DispatchQueue.concurrentPerform(iterations: \(jobs)):"))
        from = context.trace.nextSequence
        started = MonotonicClock.now()
        context.trace.record("concurrentPerform()", lane: caller)
        let performRuns = Locked<[Int]>([])
        guard returnsWithin(seconds: 10, { DispatchQueue.concurrentPerform(iterations: jobs) { job($0, performRuns) } }) else {
            throw ScenarioStuck(what: stuck)
        }
        context.trace.record(summaryLabel, lane: caller)
        report("concurrentPerform", performRuns, from: from, started: started)

        // 3) OperationQueue with a dependent summary.
        context.say(Localized("3) OperationQueue, maxConcurrentOperationCount = 2, a summary operation depending on every job:",
                              ja: "3) OperationQueue、maxConcurrentOperationCount = 2、すべてのジョブに依存する集計オペレーション:"))
        from = context.trace.nextSequence
        started = MonotonicClock.now()
        context.trace.record(Localized("operations", ja: "オペレーション"), lane: caller)
        let operationRuns = Locked<[Int]>([])
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let work = (0..<jobs).map { index in BlockOperation { job(index, operationRuns) } }
        let summary = BlockOperation { context.trace.record(summaryLabel) }
        for operation in work { summary.addDependency(operation) }
        let all = work + [summary]
        queue.addOperations(all, waitUntilFinished: false)
        guard returnsWithin(seconds: 10, { queue.waitUntilAllOperationsAreFinished() }) else {
            throw ScenarioStuck(what: stuck)
        }
        withExtendedLifetime(all) {}
        report("operations", operationRuns, from: from, started: started)
    }
}
