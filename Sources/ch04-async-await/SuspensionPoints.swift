import Dispatch
import Foundation
import WorkbookCore

/// Blocks the calling thread for `milliseconds`: a synchronous wait, the kind a task must not do.
///
/// A semaphore nobody signals, waited on with a timeout: the thread sleeps in the kernel and
/// cannot run anything else meanwhile. It is a synchronous function on purpose: on Apple
/// platforms the SDK marks `DispatchSemaphore.wait()` unavailable from asynchronous contexts
/// ("Await a Task handle instead", an error in Swift 6), and `Thread.sleep` is unavailable from
/// them on Linux too. Moving the wait into a synchronous helper silences the compiler, not the
/// problem: the task still holds its thread for the whole wait.
func blockThisThread(milliseconds: Int) {
    let neverSignalled = DispatchSemaphore(value: 0)
    _ = neverSignalled.wait(timeout: .now() + .milliseconds(milliseconds))
}

extension Chapter04 {
    /// Scenario 2: `await` marks where a task may suspend, and where it may come back on
    /// another thread; a task that blocks keeps its thread, one that suspends gives it back.
    static let suspensionPoints = Scenario(
        slug: "suspension-points",
        title: Localized("What await marks: suspending instead of blocking", ja: "await が示すもの: ブロックせずにサスペンドする"),
        narration: Localized(
            """
            `await` marks a possible suspension point: there the task may give its thread back, and when it goes on, \
            it may be on another thread. On an actor, no other task enters between two `await`s; \
            across an `await`, anything may have happened. \
            1) Four tasks each read the OS thread they run on (kernel id and name), await a short `Task.sleep`, and read it again. \
            The table shows both; a task that resumed on another thread is marked. (Which one does is up to the pool; run it again.) \
            2) `tasks` tasks each wait `milliseconds` ms, two ways. Blocking: a semaphore wait called from a synchronous helper — \
            the thread sleeps in the kernel and is lost to every other task meanwhile. Suspending: `try await Task.sleep` — \
            the task is parked and its thread runs other tasks. The scenario measures the wall time, how many tasks were waiting at once, \
            and how many threads ran them. Swift concurrency runs tasks on a cooperative pool of about one thread per core, \
            on Linux as on Apple platforms, and it does not add threads when they block (GCD does: chapter 01). \
            So blocking tasks queue up behind the few threads, and if they waited for something only another task could provide, \
            the pool would deadlock. Here the waits time out, so it only gets slow. \
            Never block in a task: await instead (a continuation, `Task.sleep`, an actor).
            """,
            ja: """
            `await` はサスペンドし得る地点（サスペンションポイント）の印です。そこでタスクはスレッドを手放すことがあり、\
            続きは別のスレッドで動くことがあります。アクターの上では、2 つの `await` の間に他のタスクが入ってくることはありませんが、\
            `await` をまたぐと、その間に何が起きていてもおかしくありません。\
            1) 4 つのタスクが、それぞれ自分が動いている OS のスレッド（カーネルの ID と名前）を読み、短い `Task.sleep` を await して、もう一度読みます。\
            表に両方を示し、別のスレッドで再開したタスクには印を付けます。（どのタスクがそうなるかはプール次第です。もう一度実行してみてください。）\
            2) `tasks` 個のタスクが、それぞれ `milliseconds` ms 待ちます。やり方は 2 通りです。ブロック: 同期のヘルパー関数から呼ぶセマフォの `wait`。\
            スレッドはカーネルの中で眠り、その間は他のどのタスクにも使えません。サスペンド: `try await Task.sleep`。\
            タスクは脇に置かれ、そのスレッドは他のタスクを実行します。シナリオは、かかった時間、同時に待っていたタスクの数、それらを実行したスレッドの数を測ります。\
            Swift のタスクは、コアあたり約 1 本のスレッドからなる協調スレッドプールで動きます。Linux でも Apple のプラットフォームでも同じで、\
            スレッドがブロックされてもスレッドを増やしません（GCD は増やします。第 01 章）。\
            そのため、ブロックするタスクは少ないスレッドの後ろに行列を作ります。もし別のタスクにしか満たせない条件を待っていたら、プール全体がデッドロックします。\
            ここでは待ちに時間の上限があるので、遅くなるだけで済みます。\
            タスクの中でブロックしてはいけません。代わりに await します（継続、`Task.sleep`、アクター）。
            """),
        knobs: [
            .init("tasks", default: 8, range: 1...32, help: Localized("tasks that each wait, in part 2", ja: "パート 2 で待つタスクの数")),
            .init("milliseconds", default: 50, range: 5...200, help: Localized("how long each task waits, in part 2", ja: "パート 2 で各タスクが待つ時間（ms）")),
        ]
    ) { context in
        await showThreadsAcrossAwait(context)
        await compareBlockingWithSuspending(context)
    }

    /// Part 1: the thread before and after one `await`, for four tasks.
    private static func showThreadsAcrossAwait(_ context: ScenarioContext) async {
        let hops = await withTaskGroup(of: (Int, OSThread, OSThread).self) { group in
            for task in 1...4 {
                group.addTask {
                    let before = OSThread.current()
                    try? await Task.sleep(for: .milliseconds(2 * task))
                    return (task, before, OSThread.current())
                }
            }
            var hops: [(Int, OSThread, OSThread)] = []
            for await hop in group { hops.append(hop) }
            return hops.sorted { $0.0 < $1.0 }
        }
        context.say(Localized("1) The OS thread of each task before and after `await Task.sleep(…)`:",
                              ja: "1) `await Task.sleep(…)` の前と後で、各タスクが動いていた OS のスレッド:"))
        let widths = [8, 24, 24]
        context.show(tableRow([Localized("task", ja: "タスク"), Localized("before await", ja: "await の前"),
                               Localized("after await", ja: "await の後")].map(context.text), widths: widths))
        var moved = 0
        for (task, before, after) in hops {
            let mark = before == after ? "" : context.text(Localized("← another thread", ja: "← 別のスレッド"))
            if before != after { moved += 1 }
            context.show(tableRow(["\(task)", before.description, after.description, mark], widths: widths + [0]))
        }
        let threads = Set(hops.flatMap { [$0.1, $0.2] })
        context.note("tasks that changed thread", String(moved))
        context.say(Localized(
            "  \(moved) of \(hops.count) tasks resumed on another thread than the one they started on; together they used \(threads.count) thread(s).",
            ja: "  \(hops.count) 個中 \(moved) 個のタスクが、始まったときとは別のスレッドで再開しました。使われたスレッドは合わせて \(threads.count) 本です。"))
        #if canImport(Glibc)
        context.say(Localized(
            "  On Linux the pool's threads belong to libdispatch, which names them after its root queue, com.apple.root.default-qos; the kernel keeps the last 15 characters.",
            ja: "  Linux では、プールのスレッドは libdispatch のもので、ルートキュー com.apple.root.default-qos にちなんだ名前が付きます。カーネルは最後の 15 文字だけを保持します。"))
        #endif
    }

    /// Part 2: `tasks` tasks each wait, blocking their thread, then suspending.
    private static func compareBlockingWithSuspending(_ context: ScenarioContext) async {
        let tasks = context.knob("tasks"), wait = context.knob("milliseconds")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        context.say(Localized("2) \(tasks) tasks each wait \(wait) ms:", ja: "2) \(tasks) 個のタスクがそれぞれ \(wait) ms 待つ:"))

        let blocking = InFlight()
        let blockingStart = MonotonicClock.now()
        await withTaskGroup(of: Void.self) { group in
            for task in 1...tasks {
                group.addTask {
                    blocking.enter()
                    context.trace.span("\(task): wait()") { blockThisThread(milliseconds: wait) }
                    blocking.leave()
                }
            }
        }
        let blockingTime = MonotonicClock.now() &- blockingStart

        let suspending = InFlight()
        let suspendingStart = MonotonicClock.now()
        await withTaskGroup(of: Void.self) { group in
            for task in 1...tasks {
                group.addTask {
                    let lane = Localized("task \(task)", ja: "タスク \(task)")
                    suspending.enter()
                    context.trace.begin(.verbatim("Task.sleep"), lane: lane)
                    try? await Task.sleep(for: .milliseconds(wait))
                    context.trace.end(.verbatim("Task.sleep"), lane: lane)
                    suspending.leave()
                }
            }
        }
        let suspendingTime = MonotonicClock.now() &- suspendingStart

        context.note("cores", String(cores))
        context.note("blocking peak", String(blocking.peak))
        context.note("blocking threads", String(blocking.threadCount))
        context.note("blocking ms", String(blockingTime / 1_000_000))
        context.note("suspending peak", String(suspending.peak))
        context.note("suspending ms", String(suspendingTime / 1_000_000))

        let widths = [14, 10, 16, 10]
        context.show(tableRow([Localized("way", ja: "やり方"), Localized("time", ja: "時間"), Localized("waiting at once", ja: "同時に待った数"),
                               Localized("threads", ja: "スレッド")].map(context.text), widths: widths))
        context.show(tableRow([context.text(Localized("blocking", ja: "ブロック")), formatDuration(nanoseconds: blockingTime),
                               String(blocking.peak), String(blocking.threadCount)], widths: widths))
        context.show(tableRow([context.text(Localized("suspending", ja: "サスペンド")), formatDuration(nanoseconds: suspendingTime),
                               String(suspending.peak), String(suspending.threadCount)], widths: widths))
        let rounds = (tasks + max(blocking.peak, 1) - 1) / max(blocking.peak, 1)
        context.say(Localized(
            """
              Blocking: at most \(blocking.peak) tasks could wait at once, because each held one of the pool's threads — this machine has \(cores) cores, \
            and the pool did not grow. So \(tasks) waits of \(wait) ms took about \(rounds) rounds: \(formatDuration(nanoseconds: blockingTime)).
              Suspending: all \(suspending.peak) tasks waited at the same time, without holding a thread, and the whole thing took \(formatDuration(nanoseconds: suspendingTime)).
            """,
            ja: """
              ブロック: 同時に待てたのは最大 \(blocking.peak) 個でした。それぞれがプールのスレッドを 1 本ずつ握っていたからです。このマシンのコアは \(cores) 個で、\
            プールは増えませんでした。そのため \(wait) ms の待ちを \(tasks) 回行うのに約 \(rounds) 巡かかり、\(formatDuration(nanoseconds: blockingTime)) でした。
              サスペンド: \(suspending.peak) 個のタスクすべてがスレッドを握らずに同時に待ち、全体で \(formatDuration(nanoseconds: suspendingTime)) でした。
            """))
        context.say(Localized(
            """
              On Apple platforms the cooperative pool is also limited to about one thread per core, and blocking its threads costs the same; \
            there the SDK marks `DispatchSemaphore.wait()` unavailable from async code, which is why the wait here sits in a synchronous helper. \
            Here on Linux (Swift 6.3.1) `DispatchSemaphore.wait()` compiles in async code without a warning, while `Thread.sleep` and `Thread.current` are unavailable there too. \
            On the timeline, T1 and T2 are the pool's threads; a task that suspends holds no thread while it sleeps, so each has a lane of its own.
            """,
            ja: """
              Apple のプラットフォームでも協調スレッドプールはコアあたり約 1 本に制限されていて、そのスレッドをブロックすれば同じように高くつきます。\
            Apple の SDK は `DispatchSemaphore.wait()` を async のコードから使えないものとしているので、ここでは待ちを同期のヘルパー関数に入れています。\
            ここ Linux（Swift 6.3.1）では、`DispatchSemaphore.wait()` は async のコードでも警告なしにコンパイルできますが、`Thread.sleep` と `Thread.current` は Linux でも async のコードからは使えません。\
            タイムラインの T1 と T2 はプールのスレッドです。サスペンドしたタスクは眠っている間スレッドを握らないので、タスクごとにレーンを分けて描いています。
            """))
    }
}
