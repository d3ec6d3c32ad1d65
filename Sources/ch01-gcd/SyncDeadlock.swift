import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// `sync` onto a serial queue that is already busy with you: a deadlock. libdispatch catches
    /// the simple case (and kills the process); a cycle through two queues it cannot see.
    static let syncDeadlock = Scenario(
        slug: "sync-deadlock",
        title: Localized("sync deadlocks: one queue, then two", ja: "sync のデッドロック: 1 つのキュー、そして 2 つのキュー"),
        narration: Localized(
            """
            A serial queue runs one block at a time, and `sync` waits for its block to run. \
            So `q.sync { q.sync { } }` waits for itself: the inner block can start only after the outer one ends, which waits for the inner one. \
            libdispatch notices that the queue is already owned by the calling thread and traps on purpose, killing the whole process. \
            To show that safely, this program starts a copy of itself as a child process and reports how it died. \
            Part two is a deadlock libdispatch cannot detect: thread 1 does `a.sync { b.sync { } }` while thread 2 does `b.sync { a.sync { } }`. \
            A rendezvous makes sure each holds its first queue before asking for the second, so each waits for the other forever, without a crash or a message. \
            The scenario gives up after a second and leaves the two threads stuck (their spans run off the right edge of the timeline). \
            The cure: never `sync` onto a queue that may be waiting for you, and take queues (like locks) in one fixed order.
            """,
            ja: """
            シリアルキューはブロックを 1 つずつ実行し、`sync` はそのブロックの実行が終わるまで待ちます。\
            したがって `q.sync { q.sync { } }` は自分自身を待ちます（内側のブロックは外側が終わるまで始まらず、外側は内側を待っています）。\
            libdispatch は呼び出し元のスレッドがすでにそのキューを所有していることに気づき、わざとトラップしてプロセス全体を終了させます。それを安全に見せるため、このプログラムは自分自身のコピーを子プロセスとして起動し、どう終了したかを報告します。\
            パート 2 は libdispatch が検出できないデッドロックで、スレッド 1 が `a.sync { b.sync { } }` を、スレッド 2 が `b.sync { a.sync { } }` を実行します。\
            待ち合わせ（ランデブー）によって、どちらも最初のキューを確保してから 2 つ目を求めるので、互いを永遠に待ち続けます。クラッシュもメッセージもありません。\
            シナリオは 1 秒で見切りをつけ、2 本のスレッドを止まったまま置き去りにします（タイムラインではバーが右端まで伸びます）。\
            対策は、自分を待っているかもしれないキューに `sync` しないこと、そしてキューも（ロックと同じく）常に決まった順番で取ることです。
            """)
    ) { context in
        try await blocking { try runSyncDeadlock(context) }
    }

    /// The name of the child process that shows the trap (`ch01-gcd --child same-queue-sync`).
    static let sameQueueSyncChildName = "same-queue-sync"

    /// Printed by the child just before the inner `sync`, so the parent knows it got that far.
    private static let reachedInnerSync = "reached the inner sync"

    /// The child process's body: `sync` onto the serial queue its block is already running on.
    ///
    /// libdispatch traps in `__DISPATCH_WAIT_FOR_QUEUE__`. If some libdispatch did not, this
    /// would hang instead, so give up after 3 s and exit with status 3.
    static func sameQueueSyncChild() -> Never {
        let queue = DispatchQueue(label: "workbook.same-queue")
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.sync {
                Console.line(reachedInnerSync)
                queue.sync {}  // waits for the block we are in: a deadlock, detected
            }
            finished.signal()
        }
        exit(finished.wait(timeout: .now() + 3) == .success ? 0 : 3)
    }

    private static func runSyncDeadlock(_ context: ScenarioContext) throws {
        runSameQueueSyncInChild(context)
        runTwoQueueDeadlock(context)
    }

    /// Part one: the detected deadlock, in a child process so that its trap cannot kill us.
    private static func runSameQueueSyncInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "1) q.sync { q.sync { } } — in a child process (ch01-gcd --child \(sameQueueSyncChildName)):",
            ja: "1) q.sync { q.sync { } } — 子プロセスで実行（ch01-gcd --child \(sameQueueSyncChildName)）:"))
        let lane = context.trace.currentThreadLane()
        let childProcess = Localized("child process", ja: "子プロセス")
        context.trace.begin(childProcess, lane: lane)
        // Ask the Swift runtime for a short crash report: where the crashed thread was.
        let ran = context.runChild(sameQueueSyncChildName, of: "ch01-gcd",
                                   backtrace: "enable=yes,interactive=no,threads=crashed,registers=none,images=none")
        context.trace.end(childProcess, lane: lane)
        guard let outcome = ran else { return }
        if outcome.standardOutput.contains(reachedInnerSync) {
            context.say(Localized("  The child reached the inner q.sync …", ja: "  子プロセスは内側の q.sync に到達し …"))
        }
        switch outcome.termination {
        case let .signalled(signal):
            context.trace.record(Localized("killed by signal \(signal)", ja: "シグナル \(signal) で終了"), lane: lane)
            context.note("child signal", String(signal))
            let name = describeSignal(signal)
            context.say(Localized(
                "  … and was killed by \(name.en): libdispatch detected the deadlock and trapped.",
                ja: "  … \(name.ja)で終了しました。libdispatch がデッドロックを検出してトラップしたのです。"))
            for line in crashReportHighlights(outcome.standardError) { context.quote(line) }
        case let .exited(status):
            context.trace.record(Localized("exit \(status)", ja: "終了コード \(status)"), lane: lane)
            context.say(status == 3
                ? Localized("  … and was still stuck after 3 s: this libdispatch did not detect the deadlock.",
                            ja: "  … 3 秒後もまだ止まっていました。この libdispatch はデッドロックを検出しませんでした。")
                : Localized("  … and exited with status \(status).", ja: "  … 終了コード \(status) で終了しました。"))
        case let .timedOut(seconds):
            context.trace.record(Localized("timed out", ja: "時間切れ"), lane: lane)
            context.say(Localized("  … and was killed after \(Int(seconds)) s.", ja: "  … \(Int(seconds)) 秒後に強制終了しました。"))
        }
    }

    /// The lines of a Swift crash report worth showing: what happened, and the crashed thread's
    /// top frame, e.g. `__DISPATCH_WAIT_FOR_QUEUE__ + 344 in libdispatch.so`.
    private static func crashReportHighlights(_ report: String) -> [String] {
        let lines = report.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var highlights = lines.filter { $0.hasPrefix("*** Program crashed") }.prefix(1).map { $0 }
        if let crashed = lines.firstIndex(where: { $0.hasSuffix("crashed:") }),
           let topFrame = lines[(crashed + 1)...].first(where: { $0.hasPrefix("0 ") }) {
            // "0  0x00007f… __DISPATCH_WAIT_FOR_QUEUE__ + 344 in libdispatch.so": drop the number and address.
            let words = topFrame.split(separator: " ").dropFirst(2)
            highlights.append(lines[crashed] + "  " + words.joined(separator: " "))
        }
        return highlights
    }

    /// Part two: two threads take two serial queues in opposite orders; nobody detects it.
    private static func runTwoQueueDeadlock(_ context: ScenarioContext) {
        context.say(Localized(
            "2) thread 1: a.sync { b.sync { } }   thread 2: b.sync { a.sync { } }",
            ja: "2) スレッド 1: a.sync { b.sync { } }   スレッド 2: b.sync { a.sync { } }"))
        let a = DispatchQueue(label: "workbook.a"), b = DispatchQueue(label: "workbook.b")
        let holdsA = DispatchSemaphore(value: 0), holdsB = DispatchSemaphore(value: 0)

        /// Takes `first`, meets the other thread (both now hold their first queue), then asks for `second`.
        @Sendable func takeInOrder(_ first: DispatchQueue, _ second: DispatchQueue, lane: String,
                                   iHold: DispatchSemaphore, otherHolds: DispatchSemaphore) {
            let (held, wanted) = (first.label.suffix(1), second.label.suffix(1))
            let label = Localized("holds \(held), wants \(wanted)", ja: "\(held) を持ち \(wanted) を待つ")
            first.sync {
                context.trace.begin(label, lane: lane)
                iHold.signal()
                otherHolds.wait()  // the rendezvous: no sleeps, no luck needed
                second.sync {}
                context.trace.end(label, lane: lane)
            }
        }

        let caller = context.trace.currentThreadLane()
        context.trace.record(Localized("start", ja: "開始"), lane: caller)
        let finished = withDeadline(seconds: 1) { () -> Bool in
            let both = DispatchGroup()
            both.enter()
            both.enter()
            Thread.detachNewThread {
                takeInOrder(a, b, lane: context.text(Localized("thread 1", ja: "スレッド 1")), iHold: holdsA, otherHolds: holdsB)
                both.leave()
            }
            Thread.detachNewThread {
                takeInOrder(b, a, lane: context.text(Localized("thread 2", ja: "スレッド 2")), iHold: holdsB, otherHolds: holdsA)
                both.leave()
            }
            both.wait()
            return true
        }
        if finished == nil {
            context.trace.record(Localized("gave up after 1 s", ja: "1 秒で打ち切り"), lane: caller)
            context.note("two-queue deadlock", "deadlocked")
            context.say(Localized(
                "  Neither thread finished within 1 s: deadlocked; left behind. No trap, no message — just two stuck threads.",
                ja: "  1 秒以内にどちらのスレッドも終わりませんでした。デッドロックしたので置き去りにします。トラップもメッセージもなく、止まったスレッドが 2 本残るだけです。"))
        } else {
            context.note("two-queue deadlock", "finished")
            context.say(Localized("  Both threads finished (unexpected).", ja: "  両方のスレッドが終わりました（想定外）。"))
        }
    }
}
