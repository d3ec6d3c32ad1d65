import Foundation
import WorkbookCore

extension Chapter03 {
    /// Two threads take two locks in opposite orders: each holds one and waits for the other.
    static let lockOrderDeadlock = Scenario(
        slug: "lock-order-deadlock",
        title: Localized("A lock-ordering deadlock", ja: "ロック順序のデッドロック"),
        narration: Localized(
            """
            Two accounts, each with its own `NSLock`. A transfer locks the source, then the destination, moves the money and unlocks. \
            Part one: T2 transfers checking → savings while T3 transfers savings → checking. T2 takes checking's lock, T3 takes savings' lock; \
            now T2 waits for savings (held by T3) and T3 waits for checking (held by T2). Neither can go on, and neither will let go: a deadlock. \
            To show it every time, each thread waits after its first lock until the other has its first lock too; in real code this happens once in a while, under load, in production. \
            The scenario gives up after 1 s and proves the locks are taken with `lock(before:)`. The two threads stay blocked until the program ends: a deadlock cannot be undone from outside; the REPL carries on. \
            Part two: the fix. Every transfer takes the two locks in one global order (here: by account number), whatever the direction. \
            Then one thread always gets both or waits for the first, and a cycle of waiting cannot form: `transfers` transfers each way finish, and the total is unchanged.
            """,
            ja: """
            2 つの口座があり、それぞれに `NSLock` があります。振替は送り元、次に送り先をロックし、お金を動かしてから解放します。\
            パート 1: T2 は当座 → 普通、T3 は普通 → 当座へ振り替えます。T2 が当座のロックを、T3 が普通のロックを取ると、\
            T2 は（T3 が持つ）普通を、T3 は（T2 が持つ）当座を待ちます。どちらも先へ進めず、どちらも手放しません。デッドロックです。\
            毎回起こして見せるため、各スレッドは最初のロックを取った後、相手も最初のロックを取るまで待ちます。実際のコードでは、負荷の高い本番でたまに起こります。\
            シナリオは 1 秒で見切りをつけ、`lock(before:)` でロックが取られたままであることを確かめます。2 本のスレッドはプログラムが終わるまで止まったままです。デッドロックは外から解けません。REPL はそのまま続きます。\
            パート 2: 直し方です。どの振替も、向きに関係なく 2 つのロックを 1 つの全体の順序（ここでは口座番号順）で取ります。\
            すると、どのスレッドも両方を取れるか、最初のロックで待つかのどちらかになり、待ちの循環はできません。両方向に `transfers` 回ずつの振替が終わり、合計は変わりません。
            """),
        knobs: [
            .init("transfers", default: 10_000, range: 1...1_000_000, help: Localized("transfers each way in the fixed version", ja: "直した版での片方向あたりの振替回数")),
        ]
    ) { context in
        try await blocking { try runLockOrderDeadlock(context) }
    }

    /// An account with its own lock; `number` gives the global lock order.
    private final class BankAccount: @unchecked Sendable {  // `balance` is guarded by `lock`
        let number: Int
        let name: Localized
        let lock = NSLock()
        var balance: Int

        init(number: Int, name: Localized, balance: Int) {
            self.number = number
            self.name = name
            self.balance = balance
        }

        var lockedBalance: Int {
            lock.lock()
            defer { lock.unlock() }
            return balance
        }
    }

    private static let checkingName = Localized("checking", ja: "当座")
    private static let savingsName = Localized("savings", ja: "普通")

    private static func runLockOrderDeadlock(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()

        // Part one: opposite orders, with a rendezvous so the deadlock happens every time.
        context.say(Localized("1) T2: checking → savings; T3: savings → checking; each locks its source first:",
                              ja: "1) T2: 当座 → 普通、T3: 普通 → 当座。どちらも送り元を先にロック:"))
        let checking = BankAccount(number: 1, name: checkingName, balance: 100)
        let savings = BankAccount(number: 2, name: savingsName, balance: 100)
        context.trace.record(Localized("start T2, T3", ja: "T2, T3 を開始"), lane: caller)
        let firstLocks = DispatchSemaphore(value: 0)
        let bothHaveOne = DispatchSemaphore(value: 0)
        func transferInSourceOrder(from source: BankAccount, to destination: BankAccount) -> StartedThread {
            StartedThread {
                let lane = context.trace.currentThreadLane()
                source.lock.lock()
                context.trace.record(Localized("locked \(source.name.en)", ja: "\(source.name.ja)をロック"), lane: lane)
                firstLocks.signal()
                _ = bothHaveOne.wait(timeout: .now() + 5)
                let waiting = Localized("waiting for \(destination.name.en)", ja: "\(destination.name.ja)を待つ")
                context.trace.begin(waiting, lane: lane)
                destination.lock.lock()  // never returns in part one
                context.trace.end(waiting, lane: lane)
                source.balance -= 10
                destination.balance += 10
                destination.lock.unlock()
                source.lock.unlock()
            }
        }
        let one = transferInSourceOrder(from: checking, to: savings)
        try wait(for: firstLocks, Localized("the first thread did not take its lock", ja: "1 本目のスレッドがロックを取りませんでした"))
        let two = transferInSourceOrder(from: savings, to: checking)
        try wait(for: firstLocks, Localized("the second thread did not take its lock", ja: "2 本目のスレッドがロックを取りませんでした"))
        bothHaveOne.signal()
        bothHaveOne.signal()
        let finished = one.join(seconds: 1) && two.join(seconds: 1)
        context.emit(finished ? Localized("finished", ja: "終了") : Localized("deadline passed", ja: "期限切れ"), lane: caller)
        let checkingHeld = !checking.lock.lock(before: Date().addingTimeInterval(0.02))
        let savingsHeld = !savings.lock.lock(before: Date().addingTimeInterval(0.02))
        context.note("opposite order", finished ? "finished" : "deadlocked")
        if finished {
            context.say(Localized("  Both transfers finished (unexpected).", ja: "  両方の振替が終わりました（想定外）。"))
        } else {
            context.say(Localized(
                """
                  After 1 s neither transfer has finished. lock(before:) from T1: checking held = \(checkingHeld), savings held = \(savingsHeld).
                  T2 holds checking and waits for savings; T3 holds savings and waits for checking. Both threads are left behind, blocked for good.
                """,
                ja: """
                  1 秒経ってもどちらの振替も終わっていません。T1 からの lock(before:): 当座はロック中 = \(checkingHeld)、普通はロック中 = \(savingsHeld)。
                  T2 は当座を持って普通を待ち、T3 は普通を持って当座を待っています。2 本のスレッドは止まったまま置き去りにします。
                """))
        }

        // Part two: one global order.
        let transfers = context.knob("transfers")
        context.say(Localized("2) The same, both taking the locks in account-number order, \(transfers) transfers each way:",
                              ja: "2) 同じ振替を、両方とも口座番号順にロックして、片方向 \(transfers) 回ずつ:"))
        let first = BankAccount(number: 1, name: checkingName, balance: 100)
        let second = BankAccount(number: 2, name: savingsName, balance: 100)
        @Sendable func transferInGlobalOrder(from source: BankAccount, to destination: BankAccount) {
            let (low, high) = source.number < destination.number ? (source, destination) : (destination, source)
            low.lock.lock()
            defer { low.lock.unlock() }
            high.lock.lock()
            defer { high.lock.unlock() }
            source.balance -= 1
            destination.balance += 1
        }
        context.trace.record(Localized("start both", ja: "2 本とも開始"), lane: caller)
        let forth = StartedThread {
            context.trace.span(Localized("checking → savings × \(transfers)", ja: "当座 → 普通 × \(transfers)")) {
                for _ in 0..<transfers { transferInGlobalOrder(from: first, to: second) }
            }
        }
        let back = StartedThread {
            context.trace.span(Localized("savings → checking × \(transfers)", ja: "普通 → 当座 × \(transfers)")) {
                for _ in 0..<transfers { transferInGlobalOrder(from: second, to: first) }
            }
        }
        let fixedFinished = forth.join(seconds: 10) && back.join(seconds: 10)
        let sum = fixedFinished ? first.lockedBalance + second.lockedBalance : -1
        context.note("global order", fixedFinished ? "finished" : "deadlocked")
        context.note("total", String(sum))
        context.say(fixedFinished
            ? Localized("  Both threads finished; total = \(sum) (was 200).", ja: "  両方のスレッドが終わりました。合計 = \(sum)（初めは 200）。")
            : Localized("  The fixed version did not finish within 10 s (unexpected).", ja: "  直した版が 10 秒以内に終わりませんでした（想定外）。"))
    }
}
