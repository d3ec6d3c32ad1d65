import Foundation
import WorkbookCore

extension Chapter03 {
    /// `NSLock` makes a critical section run one thread at a time; locking it again on the same
    /// thread waits for ever; `NSRecursiveLock` allows that.
    static let locks = Scenario(
        slug: "locks",
        title: Localized("NSLock and NSRecursiveLock", ja: "NSLock と NSRecursiveLock"),
        narration: Localized(
            """
            Part one: two threads each add 1 to a shared balance `iterations` times, every `+= 1` between `lock()` and `unlock()` of one `NSLock`. \
            The lock lets one thread at a time into the critical section, so no update is lost: the total is exactly 2 × `iterations`. \
            (Chapter 01 shows the lost updates without protection.) Write `lock(); defer { unlock() }`, so that every path out unlocks. \
            Part two: `deposit` takes the lock and calls `log`, which takes the same lock again. An `NSLock` is not recursive: \
            the second `lock()` on the same thread waits for the first to be released, which never happens. The scenario runs this on a throwaway thread and gives up after 300 ms; \
            the thread stays stuck. `lock(before:)` tries with a deadline instead of waiting for ever. \
            Part three: the same code with `NSRecursiveLock`, which counts how often its owner locked it and is free after as many unlocks. It finishes. \
            A recursive lock hides a design question (why does a locked method call another locking one?); prefer small private methods that assume the lock is held.
            """,
            ja: """
            パート 1: 2 本のスレッドが、共有の残高にそれぞれ `iterations` 回 1 を足します。`+= 1` は毎回 1 つの `NSLock` の `lock()` と `unlock()` の間で行います。\
            ロックが排他制御を行い、クリティカルセクションには一度に 1 本のスレッドしか入れないので、更新は失われず、合計はちょうど 2 × `iterations` になります。\
            （保護しないと更新が失われる様子は第 01 章で見ました。）`lock(); defer { unlock() }` と書けば、どの道で抜けてもロックは解放されます。\
            パート 2: `deposit` はロックを取って `log` を呼び、`log` は同じロックをもう一度取ります。`NSLock` は再帰的ではありません。\
            同じスレッドの 2 回目の `lock()` は 1 回目の解放を待ちますが、それは永遠に来ません。シナリオはこれを使い捨てのスレッドで実行し、300 ms で見切りをつけます。\
            スレッドは止まったままです。`lock(before:)` なら永遠に待たず、期限付きで試せます。\
            パート 3: 同じコードを `NSRecursiveLock` で実行します。持ち主が何回ロックしたかを数え、同じ回数だけ解放すれば空きます。今度は終わります。\
            再帰ロックは設計上の問いを隠します（ロック中のメソッドが、なぜロックする別のメソッドを呼ぶのか）。ロックを持っている前提の小さな `private` メソッドに分けるほうがよいでしょう。
            """),
        knobs: [
            .init("iterations", default: 10_000, range: 1...1_000_000, help: Localized("increments per thread", ja: "スレッドごとの加算回数")),
        ]
    ) { context in
        try await blocking { try runLocks(context) }
    }

    /// A balance behind any `NSLocking` lock; `deposit` locks and calls `log`, which locks again.
    private final class Account<Lock: NSLocking & Sendable>: @unchecked Sendable {  // every `var` is guarded by `lock`
        let lock: Lock
        private var balance = 0
        private var entries = 0

        init(lock: Lock) { self.lock = lock }

        func add(_ amount: Int) {
            lock.lock()
            defer { lock.unlock() }
            balance += amount
        }

        func deposit(_ amount: Int) {
            lock.lock()
            defer { lock.unlock() }
            balance += amount
            log()  // takes the lock again, on the same thread
        }

        private func log() {
            lock.lock()
            defer { lock.unlock() }
            entries += 1
        }

        var current: Int {
            lock.lock()
            defer { lock.unlock() }
            return balance
        }
    }

    private static func runLocks(_ context: ScenarioContext) throws {
        let iterations = context.knob("iterations")
        let stuck = Localized("a thread did not end", ja: "スレッドが終わりませんでした")

        context.say(Localized("1) Two threads, \(iterations) × lock(); balance += 1; unlock() each:",
                              ja: "1) 2 本のスレッドがそれぞれ \(iterations) 回 `lock(); balance += 1; unlock()`:"))
        let shared = Account(lock: NSLock())
        context.trace.record(Localized("start 2 threads", ja: "2 本のスレッドを開始"))
        let adders = (1...2).map { _ in
            StartedThread {
                let lane = context.trace.currentThreadLane()
                context.trace.span("+1 × \(iterations)", lane: lane) {
                    for _ in 0..<iterations { shared.add(1) }
                }
            }
        }
        for adder in adders { try adder.join(seconds: 30, stuck) }
        let total = shared.current
        context.note("total", String(total))
        context.say(Localized("  balance = \(total) (expected \(2 * iterations)): \(total == 2 * iterations ? "no update lost" : "updates LOST")",
                              ja: "  残高 = \(total)（期待値 \(2 * iterations)）: \(total == 2 * iterations ? "失われた更新なし" : "更新が失われた")"))

        context.say(Localized("2) NSLock: deposit() locks, then calls log(), which locks again:",
                              ja: "2) NSLock: deposit() がロックを取り、同じロックをもう一度取る log() を呼ぶ:"))
        let plain = Account(lock: NSLock())
        let plainDone = StartedThread {
            let lane = context.trace.currentThreadLane()
            context.trace.begin("deposit() (NSLock)", lane: lane)
            plain.deposit(10)
            context.trace.end("deposit() (NSLock)", lane: lane)
        }
        let plainFinished = plainDone.join(seconds: 0.3)
        let probe = plain.lock.lock(before: Date().addingTimeInterval(0.05))
        if probe { plain.lock.unlock() }
        context.note("NSLock re-entry", plainFinished ? "finished" : "stuck")
        context.say(plainFinished
            ? Localized("  deposit() returned (unexpected: this NSLock allowed re-entry).", ja: "  deposit() は戻りました（想定外: この NSLock は再入を許しました）。")
            : Localized("  still stuck after 300 ms, in the second lock(): a thread waiting for itself. lock(before: now + 50 ms) from T1: \(probe). The thread is left behind.",
                        ja: "  300 ms 経っても 2 回目の lock() で止まったままです。自分自身を待つスレッドです。T1 からの lock(before: 今 + 50 ms) の結果: \(probe)。スレッドは置き去りにします。"))

        context.say(Localized("3) The same with NSRecursiveLock:", ja: "3) 同じことを NSRecursiveLock で:"))
        let recursive = Account(lock: NSRecursiveLock())
        let recursiveDone = StartedThread {
            let lane = context.trace.currentThreadLane()
            context.trace.span("deposit() (NSRecursiveLock)", lane: lane) { recursive.deposit(10) }
        }
        let recursiveFinished = recursiveDone.join(seconds: 2)
        context.note("NSRecursiveLock re-entry", recursiveFinished ? "finished" : "stuck")
        context.say(recursiveFinished
            ? Localized("  deposit() returned; balance = \(recursive.current).", ja: "  deposit() は戻りました。残高 = \(recursive.current)。")
            : Localized("  deposit() did not return (unexpected).", ja: "  deposit() が戻りませんでした（想定外）。"))
    }
}
