import Dispatch
import Foundation
import WorkbookCore
import WorkbookExplorer

/// A store that guards its state with a serial queue, the GCD way: every public method does
/// `queue.sync`. `reset()` runs on the queue and calls `value(for:)` — a public method calling
/// another, so the queue is entered again from a block it is running: a deadlock.
final class QueueGuardedStore: @unchecked Sendable {   // `values` only on `queue`
    private let queue = DispatchQueue(label: "workbook.store")
    private var values: [String: Int] = ["volume": 5]

    func value(for key: String) -> Int? {
        queue.sync { values[key] }
    }

    func reset(then done: @escaping @Sendable (Int?) -> Void) {
        queue.async {
            self.values = [:]
            done(self.value(for: "volume"))      // queue.sync from a block on the same queue
        }
    }
}

/// Two accounts behind a recursive lock. `transfer` tells an observer between the debit and the
/// credit — while the lock is held — and the observer reads the total: the lock lets the same
/// thread in again, and it sees the invariant (the total is 100) broken.
final class RecursiveLockLedger: @unchecked Sendable {   // `checking`, `savings` only under `lock`
    private let lock = NSRecursiveLock()
    private var checking = 60
    private var savings = 40
    var onChange: (@Sendable (RecursiveLockLedger) -> Void)?

    var total: Int { lock.withLock { checking + savings } }

    func transfer(_ amount: Int) {
        lock.withLock {
            checking -= amount
            onChange?(self)                      // re-entered: total reads checking + savings now
            savings += amount
        }
    }
}

/// What a non-reentrant actor would be: one call inside at a time for the whole call, its
/// `await`s included. (Swift has no such actor; this is a gate built from continuations.)
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// A ledger and a bank that call each other, as real actors: reentrant at every `await`.
actor Ledger {
    private(set) var entries = 0
    func post(approvedBy bank: Bank) async {
        entries += 1
        await bank.approve()
    }
    func balance() -> Int { entries }
}

actor Bank {
    func approve() {}
    func audit(_ ledger: Ledger) async -> Int { await ledger.balance() }
}

extension Chapter08 {
    /// The child process that shows the deadlock (`ch08-reentrancy --child sync-on-current-queue`).
    static let syncOnCurrentQueueChildName = "sync-on-current-queue"

    /// Printed by the child just before the re-entering `sync`.
    static let reachedReentry = "reached value(for:) inside reset()"

    /// Calls `reset()`, which re-enters its own queue. libdispatch detects this and traps; if some
    /// libdispatch did not, the child would hang instead, so it gives up after 3 s (exit 3).
    static func syncOnCurrentQueueChild() -> Never {
        let store = QueueGuardedStore()
        let finished = DispatchSemaphore(value: 0)
        Console.line(reachedReentry)
        store.reset { _ in finished.signal() }
        exit(finished.wait(timeout: .now() + 3) == .success ? 0 : 3)
    }

    /// The study group's survey's example: `sync` onto a global queue from a block running on a global queue.
    /// Global queues are concurrent: the inner block runs at once. Returns whether it finished.
    static func globalQueueSync() -> Bool {
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            DispatchQueue.global().sync {}
            finished.signal()
        }
        return finished.wait(timeout: .now() + 2) == .success
    }

    /// The ledger and the bank as non-reentrant actors: each call holds its gate across its
    /// `await`s. A posts to the ledger (which asks the bank); B audits at the bank (which asks the
    /// ledger). Returns `A=done B=done` — or deadlocks, when each holds its own gate and waits for the other's.
    @Sendable static func nonReentrantCalls() async throws -> String {
        let ledgerGate = SerialGate(), bankGate = SerialGate()
        nameTask(Localized("caller", ja: "呼び出し元"))
        nameNextTasks("A", "B")
        async let a: Void = {
            await ledgerGate.enter()
            checkpoint(Localized("A: inside ledger.post()", ja: "A: ledger.post() の中"))
            await bankGate.enter()                  // post awaits bank.approve()
            checkpoint(Localized("A: inside bank.approve()", ja: "A: bank.approve() の中"))
            await bankGate.leave()
            await ledgerGate.leave()
        }()
        async let b: Void = {
            await bankGate.enter()
            checkpoint(Localized("B: inside bank.audit()", ja: "B: bank.audit() の中"))
            await ledgerGate.enter()                // audit awaits ledger.balance()
            checkpoint(Localized("B: inside ledger.balance()", ja: "B: ledger.balance() の中"))
            await ledgerGate.leave()
            await bankGate.leave()
        }()
        _ = await (a, b)
        return "A=done B=done"
    }

    /// The same two calls on real actors.
    @Sendable static func reentrantCalls() async throws -> String {
        let ledger = Ledger(), bank = Bank()
        nameNextTasks("A", "B")
        async let a: Void = ledger.post(approvedBy: bank)
        async let b: Int = bank.audit(ledger)
        _ = await (a, b)
        return "A=done B=done"
    }

    static func classifyDone(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "A=done B=done" ? .acceptable : .forbidden
    }

    static let nonActorReentrancy = Scenario(
        slug: "non-actor-reentrancy",
        title: Localized("Reentrancy without actors: a queue deadlocks, a recursive lock breaks an invariant", ja: "アクター以外の再入: キューはデッドロックし、再帰ロックは不変条件を壊す"),
        narration: Localized(
            """
            Reentrancy is older than actors. \
            1) A store guards its state with a serial queue (`queue.sync` in every method); `reset()` runs on the queue and calls `value(for:)`, which does `queue.sync` again — in a child process. \
            2) The study group's survey's example, `sync` onto a global queue from a global queue's block. \
            3) A ledger behind `NSRecursiveLock` tells an observer between a debit and a credit; the observer reads the total. \
            4) Two services that call each other: as non-reentrant actors (a gate held across `await`), and as Swift actors. Explored.
            """,
            ja: """
            再入はアクターより古い問題です。\
            1) ストアが状態をシリアルキューで守ります（すべてのメソッドで `queue.sync`）。`reset()` はキューの上で動き、`value(for:)` を呼び、それがもう一度 `queue.sync` します。子プロセスで実行します。\
            2) 勉強会の資料（サーベイ）の例: グローバルキューのブロックから、グローバルキューに `sync`。\
            3) `NSRecursiveLock` で守った台帳が、引き落としと入金の間にオブザーバに知らせ、オブザーバが合計を読みます。\
            4) 互いを呼び合う 2 つのサービス: 再入しないアクター（`await` をまたいで保持するゲート）として、そして Swift のアクターとして。探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 2: a block on `DispatchQueue.global()` calls `DispatchQueue.global().sync { }`. What happens? A) a deadlock, as with a serial queue B) the inner block runs at once: a global queue is concurrent",
                ja: "パート 2: `DispatchQueue.global()` 上のブロックが `DispatchQueue.global().sync { }` を呼びます。どうなる？ A) シリアルキューと同じくデッドロックする B) 内側のブロックはすぐに動く。グローバルキューは並行キューだから"),
            explanation: Localized(
                "B. A global queue runs many blocks at once, so `sync` onto it never waits for the block you are in. The deadlock needs a serial queue that is running you — part 1. (A global queue gives no mutual exclusion either.)",
                ja: "B です。グローバルキューは多くのブロックを同時に実行するので、そこへの `sync` が自分のいるブロックを待つことはありません。デッドロックには、自分を実行中のシリアルキューが必要です（パート 1）。（グローバルキューは排他制御にもなりません。）"),
            observe: { $0.noted("global sync finished") == "true" ? "B" : "A" },
            isPossible: { $0 == "B" })
    ) { context in
        // 1) The serial queue, in a child process.
        context.say(Localized(
            "1) reset() on the store's queue calls value(for:), which does queue.sync — in a child process (ch08-reentrancy --child \(syncOnCurrentQueueChildName)):",
            ja: "1) ストアのキューの上の reset() が value(for:) を呼び、それが queue.sync する。子プロセスで実行（ch08-reentrancy --child \(syncOnCurrentQueueChildName)）:"))
        let lane = Localized("child process", ja: "子プロセス")
        context.trace.begin(Localized("reset()", ja: "reset()"), lane: lane)
        let outcome = await onDedicatedThread {
            context.runChild(syncOnCurrentQueueChildName, of: "ch08-reentrancy",
                             backtrace: "enable=yes,interactive=no,threads=crashed,registers=none,images=none")
        }
        context.trace.end(Localized("reset()", ja: "reset()"), lane: lane)
        if let outcome {
            switch outcome.termination {
            case let .signalled(signal):
                context.note("child termination", "signalled \(signal)")
                context.say(Localized(
                    "   The child was stopped by \(describeSignal(signal).en): libdispatch saw the queue was already running the caller, and trapped.",
                    ja: "   子プロセスは \(describeSignal(signal).ja) で止まりました。libdispatch は、キューがすでに呼び出し元を実行中だと気づき、トラップしたのです。"))
                let lines = outcome.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                if let crashed = lines.firstIndex(where: { $0.hasSuffix("crashed:") }),
                   let top = lines[(crashed + 1)...].first(where: { $0.hasPrefix("0 ") }) {
                    context.quote(top.split(separator: " ").dropFirst(2).joined(separator: " "))
                }
            case let .exited(status):
                context.note("child termination", "exited \(status)")
                context.say(status == 3
                    ? Localized("   The child was still stuck after 3 s: a deadlock this libdispatch did not detect.",
                                ja: "   子プロセスは 3 秒後もまだ止まっていました。この libdispatch が検出しなかったデッドロックです。")
                    : Localized("   The child exited with status \(status).", ja: "   子プロセスは終了コード \(status) で終了しました。"))
            case let .timedOut(seconds):
                context.note("child termination", "timed out")
                context.say(Localized("   The child was killed after \(Int(seconds)) s.", ja: "   子プロセスは \(Int(seconds)) 秒後に強制終了しました。"))
            }
        }

        // 2) The survey's global queue.
        let finished = await onDedicatedThread { globalQueueSync() }
        context.note("global sync finished", String(finished))
        context.say(finished
            ? Localized("2) DispatchQueue.global().sync from a global queue's block: it finished at once. A global queue is concurrent; the deadlock needs a serial queue that is running you.",
                        ja: "2) グローバルキューのブロックから DispatchQueue.global().sync: すぐに終わりました。グローバルキューは並行キューです。デッドロックには、自分を実行中のシリアルキューが必要です。")
            : Localized("2) DispatchQueue.global().sync from a global queue's block did not finish within 2 s.",
                        ja: "2) グローバルキューのブロックからの DispatchQueue.global().sync は 2 秒以内に終わりませんでした。"))
        context.trace.record(Localized("global().sync: \(finished ? "finished" : "stuck")", ja: "global().sync: \(finished ? "終了" : "停止")"),
                             lane: Localized("global queue", ja: "グローバルキュー"))

        // 3) The recursive lock.
        let ledger = RecursiveLockLedger()
        let seen = Locked<[Int]>([])
        ledger.onChange = { ledger in seen.withLock { $0.append(ledger.total) } }
        ledger.transfer(10)
        let observed = seen.current.first ?? -1
        context.note("recursive lock total", String(observed))
        context.note("recursive lock final", String(ledger.total))
        context.say(Localized(
            "3) NSRecursiveLock: the observer, called between the debit and the credit, read a total of \(observed); after the transfer it is \(ledger.total). The lock let the same thread in again, into state half changed. A plain lock would have deadlocked there instead.",
            ja: "3) NSRecursiveLock: 引き落としと入金の間に呼ばれたオブザーバは、合計 \(observed) を読みました。振替の後は \(ledger.total) です。ロックは同じスレッドを再び中へ入れ、変更途中の状態を見せました。普通のロックなら、そこでデッドロックしていたはずです。"))
        context.trace.record(Localized("observer: total \(observed)", ja: "オブザーバ: 合計 \(observed)"), lane: Localized("recursive lock", ja: "再帰ロック"))

        // 4) Actors that call each other.
        let gated = await explore(classify: classifyDone, nonReentrantCalls)
        context.show(gated, Localized("4) Non-reentrant: each call holds its gate across its await", ja: "4) 再入しない: 各呼び出しが await をまたいでゲートを保持"), game: 7, key: "non-reentrant")
        let actors = await explore(classify: classifyDone, reentrantCalls)
        context.show(actors, Localized("   Swift actors: reentrant at every await", ja: "   Swift のアクター: すべての await で再入可能"), key: "actors")
        context.say(Localized(
            "   Actors are reentrant so that calls between them cannot deadlock this way (SE-0306). The price is the rest of this chapter: across an `await`, other calls run on the actor.",
            ja: "   アクターが再入可能なのは、アクター同士の呼び出しがこのようにデッドロックしないためです（SE-0306）。その代償がこの章の残りの内容です。`await` をまたぐと、アクター上で他の呼び出しが動きます。"))
    }
}
