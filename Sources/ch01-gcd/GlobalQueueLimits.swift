import Dispatch
import WorkbookCore

extension Chapter01 {
    /// A barrier and `suspend()` on a global queue: both accepted, both ignored.
    static let globalQueueLimits = Scenario(
        slug: "global-queue-limits",
        title: Localized("A barrier and suspend() on a global queue do nothing", ja: "グローバルキューへの `.barrier` と `suspend()` は効かない"),
        narration: Localized(
            """
            The same two experiments run on a private concurrent queue and on `DispatchQueue.global()`. \
            1) A reader is running; a block with `flags: .barrier` is submitted. The reader waits (0.2 s on the private queue, up to 2 s on the global one) to see whether the barrier starts beside it. \
            On the private queue the barrier waits for the reader (the reader sees nothing and gives up); on the global queue the barrier starts at once, \
            overlapping the reader — it is an ordinary block there. \
            2) The queue is suspended, then a block is submitted. On the private queue the block waits until `resume()`; \
            on the global queue it runs anyway. \
            Apple's documentation says the same: a barrier on a global queue behaves like a plain `async`, and `suspend()` on it has no effect. \
            So readers/writers need a queue you create (§7), and pausing work needs a queue of your own too. \
            Everything is ordered by semaphores; the limits only end a wait that the rules say may never be answered \
            (on the global queue the limit is longer, because a busy pool may take a while to give the block a thread).
            """,
            ja: """
            同じ 2 つの実験を、自分で作ったコンカレントキューと `DispatchQueue.global()` の両方で行います。\
            1) 読み取りのブロックが動いている間に `flags: .barrier` 付きのブロックを投入します。読み取り側は、バリアが並んで始まるかどうかを待って確かめます（自作のキューでは 0.2 秒、グローバルキューでは最大 2 秒）。\
            自作のキューではバリアは読み取りの終了を待つので、読み取り側には何も見えず、待つのをあきらめます。グローバルキューではバリアはすぐに始まり、読み取りと重なります。そこではただのブロックなのです。\
            2) キューを一時停止（`suspend()`）してからブロックを投入します。自作のキューではブロックは `resume()` まで待ちますが、グローバルキューではそのまま動きます。\
            Apple のドキュメントにも、グローバルキューへのバリアは普通の `async` と同じに振る舞い、`suspend()` は効果がないと書かれています。\
            ですから読み手と書き手には自分で作ったキューが必要で（§7）、処理を一時停止したいときも自分のキューを使います。\
            順番はすべてセマフォで決めています。時間の上限は、規則どおりならいつまでも終わらないはずの待ちを打ち切るためだけのものです\
            （グローバルキューの上限が長いのは、プールが混んでいるとブロックにスレッドが割り当てられるまで時間がかかることがあるからです）。
            """),
        prediction: .init(
            question: Localized(
                "On DispatchQueue.global(), does a block submitted with flags: .barrier wait for the running reader? (yes/no)",
                ja: "`DispatchQueue.global()` に `flags: .barrier` 付きで投入したブロックは、実行中の読み取りを待ちますか？（yes/no）"),
            explanation: Localized(
                "No. The global queues are shared by the whole process, so nobody may stop them: a barrier there is an ordinary block, and suspend() is ignored. Use a concurrent queue you create.",
                ja: "待ちません（no）。グローバルキューはプロセス全体で共有されているので、誰もせき止めてはいけません。そこではバリアはただのブロックで、suspend() も無視されます。自分で作ったコンカレントキューを使ってください。"),
            observe: { $0.noted("global barrier waited") == "true" ? "YES" : "NO" },
            isPossible: { $0 == "NO" })
    ) { context in
        try await blocking { try runGlobalQueueLimits(context) }
    }

    /// One of the two queues the experiments run on.
    private struct TestedQueue: Sendable {
        /// For notes: "private" or "global".
        let key: String
        let name: Localized
        /// Prefix of its timeline labels.
        let shortName: Localized
        let queue: DispatchQueue
        /// How long a wait the rules say may never be answered is given. Longer on the global
        /// queue: a busy pool may take a while to give a block a thread.
        let limit: Double
    }

    private static func runGlobalQueueLimits(_ context: ScenarioContext) throws {
        let queues = [
            TestedQueue(key: "private", name: Localized("private concurrent queue", ja: "自作のコンカレントキュー"),
                        shortName: Localized("private", ja: "自作"),
                        queue: DispatchQueue(label: "com.example.workbook.readers", attributes: .concurrent), limit: 0.2),
            TestedQueue(key: "global", name: .verbatim("DispatchQueue.global()"), shortName: Localized("global", ja: "グローバル"),
                        queue: DispatchQueue.global(), limit: 2),
        ]
        context.say(Localized("1) A barrier while a reader runs:", ja: "1) 読み取り中のバリア:"))
        for tested in queues {
            let waited = try barrierWaitsForReader(on: tested, context)
            context.note("\(tested.key) barrier waited", String(waited))
            context.say(waited
                ? Localized("  \(tested.name.en): the barrier waited until the reader had finished.",
                            ja: "  \(tested.name.ja): バリアは読み取りが終わるまで待ちました。")
                : Localized("  \(tested.name.en): the barrier started while the reader was still running.",
                            ja: "  \(tested.name.ja): バリアは読み取りがまだ動いている間に始まりました。"))
        }
        context.say(Localized("2) A block submitted to a suspended queue:", ja: "2) 一時停止したキューに投入したブロック:"))
        for tested in queues {
            let ranWhileSuspended = try runsWhileSuspended(tested, context)
            context.note("\(tested.key) ran while suspended", String(ranWhileSuspended))
            context.say(ranWhileSuspended
                ? Localized("  \(tested.name.en): the block ran although the queue was suspended.",
                            ja: "  \(tested.name.ja): キューを一時停止していたのにブロックが動きました。")
                : Localized("  \(tested.name.en): the block waited for resume().", ja: "  \(tested.name.ja): ブロックは resume() まで待ちました。"))
        }
    }

    /// Whether a barrier submitted while a reader runs waited for that reader.
    private static func barrierWaitsForReader(on tested: TestedQueue, _ context: ScenarioContext) throws -> Bool {
        let readerRunning = DispatchSemaphore(value: 0), barrierStarted = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let sawBarrier = Locked(false)
        let prefix = tested.shortName
        let readLabel = Localized("\(prefix.en): read", ja: "\(prefix.ja): 読み取り")
        let barrierLabel = Localized("\(prefix.en): barrier", ja: "\(prefix.ja): バリア")
        tested.queue.async(group: done) {
            context.trace.span(readLabel) {
                readerRunning.signal()
                sawBarrier.withLock { $0 = barrierStarted.wait(timeout: .now() + tested.limit) == .success }
            }
        }
        try wait(for: readerRunning, Localized("the reader did not start", ja: "読み取りが始まりませんでした"))
        tested.queue.async(group: done, flags: .barrier) {
            context.trace.span(barrierLabel) { _ = barrierStarted.signal() }
        }
        try wait(for: done, Localized("the blocks did not finish", ja: "ブロックが終わりませんでした"))
        return !sawBarrier.current
    }

    /// Whether a block submitted after `suspend()` ran before `resume()`.
    private static func runsWhileSuspended(_ tested: TestedQueue, _ context: ScenarioContext) throws -> Bool {
        let ran = DispatchSemaphore(value: 0)
        let prefix = tested.shortName
        let label = Localized("\(prefix.en): suspended", ja: "\(prefix.ja): 一時停止中")
        let caller = context.trace.currentThreadLane()
        tested.queue.suspend()
        context.trace.begin(label, lane: caller)
        tested.queue.async {
            context.trace.record(Localized("\(prefix.en): block runs", ja: "\(prefix.ja): ブロック実行"))
            ran.signal()
        }
        let ranWhileSuspended = ran.wait(timeout: .now() + tested.limit) == .success
        context.trace.end(label, lane: caller)
        tested.queue.resume()
        if !ranWhileSuspended { try wait(for: ran, Localized("the block did not run after resume()", ja: "resume() の後もブロックが動きませんでした")) }
        return ranWhileSuspended
    }
}
