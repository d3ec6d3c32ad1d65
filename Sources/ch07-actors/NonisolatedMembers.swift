import Dispatch
import Foundation
import WorkbookCore

/// An account as an actor. The balance is isolated: callers outside `await`. The identity is a
/// `let` of a `Sendable` type and the description a `nonisolated` member that reads only that
/// `let`: anyone may read them synchronously, without waiting for the actor.
actor Account: CustomStringConvertible {
    let id: String                          // immutable and Sendable: no await in this module
    private var balance = 0
    private let executor = QueueExecutor(label: "account")   // part 1's blocking job parks this queue's thread, not the pool's
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(id: String) {
        self.id = id
    }

    nonisolated var description: String {   // touches no isolated state
        "account \(id)"
    }

    func deposit(_ amount: Int) {
        balance += amount
    }

    var currentBalance: Int { balance }

    /// Holds the actor (its job blocks a thread) until `gate`, so part 1 can read it while busy.
    /// Returns when the job ended (a `MonotonicClock` reading).
    func stayBusy(until gate: DispatchSemaphore, entered: OneShotSignal) -> UInt64 {
        entered.fire()
        _ = gate.wait(timeout: .now() + 5)
        return MonotonicClock.now()
    }
}

/// A synchronous function — no `await` possible — that only the nonisolated parts can serve.
func logLine(for account: Account) -> String {
    "\(account) [\(account.id)]"
}

extension Chapter07 {
    static let nonisolatedDiagnostics: [Diagnostic] = [
        Diagnostic(
            code: """
            actor Account {
                let id: String
                private var balance = 0
                init(id: String) { self.id = id }
                nonisolated var summary: String { "\\(id): \\(balance)" }
            }
            """,
            errors: ["actor-isolated property 'balance' can not be referenced from a nonisolated context"],
            reason: Localized(
                "A `nonisolated` member runs on the caller's side, without the actor: it may read `let`s, never the isolated `var`s.",
                ja: "`nonisolated` なメンバはアクターを通さず呼び出し元で動きます。`let` は読めますが、隔離された `var` は読めません。")),
        Diagnostic(
            code: """
            final class Ledger { var entries: [String] = [] }
            actor Account {
                let ledger = Ledger()
            }
            func audit(_ account: Account) async {
                print(await account.ledger.entries)
            }
            """,
            errors: ["non-Sendable type 'Ledger' of property 'ledger' cannot exit actor-isolated context"],
            notes: ["class 'Ledger' does not conform to the 'Sendable' protocol"],
            reason: Localized(
                "A `let` is reachable from outside only if its type is `Sendable`. A `let` holding a mutable class would hand the class's state out of the actor, even with `await`.",
                ja: "`let` に外から届くのは、その型が `Sendable` のときだけです。可変なクラスを持つ `let` は、`await` を付けても、そのクラスの状態をアクターの外へ渡してしまいます。")),
    ]

    static let nonisolatedMembers = Scenario(
        slug: "nonisolated-and-let",
        title: Localized("`let` constants and nonisolated members: no await", ja: "`let` 定数と `nonisolated` なメンバ: await は不要"),
        narration: Localized(
            """
            An `Account` actor: its balance is isolated, its `id` is a `let` of a `Sendable` type, and its `description` is `nonisolated` and reads only `id`. \
            1) The actor is held busy by a job that blocks its thread; meanwhile a synchronous function reads `id` and `description`, and a task awaits the balance; the job ends `busy` ms after that. Which had to wait? \
            2) What the compiler refuses: a `nonisolated` member that reads the balance, and a `let` whose type is not `Sendable`.
            """,
            ja: """
            `Account` アクター: 残高は隔離され、`id` は `Sendable` 型の `let`、`description` は `nonisolated` で `id` だけを読みます。\
            1) スレッドをブロックするジョブでアクターを占有します。その間に、同期関数が `id` と `description` を読み、タスクが残高を await します。ジョブはその `busy` ms 後に終わります。待たされたのはどれか？ \
            2) コンパイラが拒むもの: 残高を読む `nonisolated` なメンバと、型が `Sendable` でない `let`。
            """),
        knobs: [.init("busy", default: 50, range: 10...1_000, help: Localized("ms the actor is held busy", ja: "アクターを占有する時間（ms）"))],
        prediction: .init(
            question: Localized(
                "The actor is busy for 50 ms. Meanwhile a synchronous function reads account.id and account.description, and a task awaits account.currentBalance. Which had to wait for the busy job? A) all of them B) only the balance C) none",
                ja: "アクターは 50 ms 忙しい状態です。その間に同期関数が account.id と account.description を読み、タスクが account.currentBalance を await します。忙しいジョブを待たされたのは？ A) すべて B) 残高だけ C) どれも待たない"),
            explanation: Localized(
                "B. `id` is immutable and `description` touches nothing isolated, so they need no turn on the actor: they are read on the caller's side at once. The balance is isolated state: its read is a job on the actor, behind the busy one.",
                ja: "B です。`id` は不変で、`description` は隔離された状態に触れないので、アクターの順番は要りません。呼び出し元ですぐ読めます。残高は隔離された状態なので、その読み取りはアクター上のジョブになり、忙しいジョブの後ろに並びます。"),
            observe: { $0.noted("which waited") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        let busy = context.knob("busy")
        let account = Account(id: "A-7")
        await account.deposit(100)
        let gate = DispatchSemaphore(value: 0)
        let entered = OneShotSignal()
        let lane = Localized("actor", ja: "アクター")
        let holder = Task { await account.stayBusy(until: gate, entered: entered) }   // returns when it ended
        try await entered.wait(Localized("the busy job did not start", ja: "忙しいジョブが始まりませんでした"))
        context.trace.begin(Localized("busy job", ja: "忙しいジョブ"), lane: lane)
        // The gate opens `busy` ms after the reader is about to await, however late the reader gets there.
        let aboutToAwait = OneShotSignal()
        openGate(gate, milliseconds: busy, after: aboutToAwait)

        let syncStart = MonotonicClock.now()
        let line = logLine(for: account)            // synchronous: id and description
        let syncMicros = microseconds(from: syncStart, to: MonotonicClock.now())
        context.trace.record(Localized("id, description: \(formatMicros(syncMicros))", ja: "`id` と `description`: \(formatMicros(syncMicros))"),
                             lane: Localized("sync reader", ja: "同期で読む側"))

        let awaitStart = MonotonicClock.now()
        aboutToAwait.fire()  // after the reading of the clock: the gate opens later than this moment, however loaded the machine
        let balance = await account.currentBalance  // a job on the actor, behind the busy one
        let awaitEnd = MonotonicClock.now()
        let awaitMillis = microseconds(from: awaitStart, to: awaitEnd) / 1_000
        let busyEnded = await holder.value
        context.trace.end(Localized("busy job", ja: "忙しいジョブ"), lane: lane)
        context.trace.record(Localized("balance after \(Int(awaitMillis)) ms", ja: "\(Int(awaitMillis)) ms 後に残高"),
                             lane: Localized("awaiting task", ja: "await する側"))

        // Waited for the busy job: asked while it ran, answered only after it ended.
        let syncWaited = syncMicros / 1_000 >= Double(busy) / 2
        let awaitWaited = awaitStart < busyEnded && awaitEnd >= busyEnded
        context.note("sync line", line)
        context.note("balance", String(balance))
        context.note("sync waited", String(syncWaited))
        context.note("await waited", String(awaitWaited))
        context.note("which waited", syncWaited && awaitWaited ? "A" : awaitWaited ? "B" : syncWaited ? "?" : "C")
        context.say(Localized(
            """
            1) With the actor busy for \(busy) ms:
               logLine(for:) → "\(line)" in \(formatMicros(syncMicros)), without await;
               await account.currentBalance → \(balance) after \(Int(awaitMillis)) ms\(awaitWaited ? ": it waited for the busy job." : ".")
            """,
            ja: """
            1) アクターが \(busy) ms 忙しい間に:
               logLine(for:) → "\(line)"、\(formatMicros(syncMicros))、await なし。
               await account.currentBalance → \(balance)、\(Int(awaitMillis)) ms 後\(awaitWaited ? "。忙しいジョブを待ちました。" : "。")
            """))
        context.say(Localized("2) What the compiler refuses:", ja: "2) コンパイラが拒むもの:"))
        for diagnostic in nonisolatedDiagnostics { context.show(diagnostic) }
    }
}
