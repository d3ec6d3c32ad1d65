import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 07-actors/BankAccountActor under the explorer, on fresh accounts per schedule.
/// Each case's callers are made the ways app code makes them — a `Task {}`, a `Task.detached`, a
/// child task — and run at once; when all have returned, the check reads the balances and judges
/// them against what the calls returned.
///
/// 1. Deposits from three callers at once lose nothing (while another task reads `description`).
/// 2. Three withdrawals of which the balance covers only one: exactly one succeeds.
/// 3. A deposit is in the balance when it returns: the same task withdraws it at once.
/// 4. A transfer's money is in the other account when it returns: it can be withdrawn there at once.
/// 5. Transfers both ways and a withdrawal at once keep the total, and overdraw nothing.
/// 6. A transfer the balance does not cover is refused, and moves nothing.
public enum BankAccountActorCheck {
    public static let lostUpdate = Property(
        id: "lost-update",
        name: Localized("every deposit and withdrawal counts", ja: "入金と出金がすべて反映される"),
        rule: Localized("The balance is the opening balance plus every deposit minus every withdrawal that returned true, however the calls from many tasks interleave.",
                        ja: "残高は、開始時の残高に、すべての入金を足し、true を返した出金をすべて引いたものになる。多くのタスクからの呼び出しがどう入り混じっても同じ。"))
    public static let overdrawn = Property(
        id: "overdrawn",
        name: Localized("a withdrawal never overdraws", ja: "出金で残高がマイナスにならない"),
        rule: Localized("`withdraw` (and `transfer`) takes the amount when the balance covers it, and otherwise returns false and takes nothing: no balance ever goes below zero.",
                        ja: "`withdraw`（と `transfer`）は、残高が足りるときはその額を引き、足りないときは false を返して何も引かない。どの残高もゼロを下回らない。"))
    public static let appliedOnReturn = Property(
        id: "not-applied-on-return",
        name: Localized("a call's change is there when it returns", ja: "呼び出しが戻った時点で変更が反映されている"),
        rule: Localized("When `deposit` or `transfer` returns, its money is in the balance it changed: the next call — from the same task or any other — sees it.",
                        ja: "`deposit` や `transfer` が戻った時点で、そのお金は変更した残高に入っている。次の呼び出し（同じタスクからでも、ほかのタスクからでも）はそれを見る。"))
    public static let totalKept = Property(
        id: "total-changed",
        name: Localized("a transfer keeps the total", ja: "送金で合計が変わらない"),
        rule: Localized("Money moved by `transfer(_:to:)` leaves one account and arrives in the other: the accounts add up to what they did before, with nothing lost or made on the way.",
                        ja: "`transfer(_:to:)` で動かしたお金は、一方の口座から出て、もう一方に入る。途中で消えたり増えたりせず、口座の合計は前と同じになる。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [lostUpdate, overdrawn, appliedOnReturn, totalKept, Property.finishes, Property.freshState]

    /// A few callers, each bug one preemption away at most: every such schedule runs, however
    /// loaded the machine; the rest of a short search is a margin.
    static let budget = Explorer.Budget.guaranteeing(preemptions: 1)
    static let ok = "ok"

    public static func run<Account: BankAccountProtocol>(_ account: Account.Type) -> CheckResult {
        let cases: [(Localized, @Sendable () async -> String)] = [
            (Localized("three callers deposit into Aiko's account (0) at once: 10 then 1 from a `Task {}`, 20 from a `Task.detached`, 30 from a child task, while another task reads `description`",
                       ja: "3 つの呼び出し元が Aiko の口座（0）に同時に入金する。`Task {}` から 10 と 1、`Task.detached` から 20、子タスクから 30。その間に別のタスクが `description` を読む"),
             { await depositsAtOnce(Account.self) }),
            (Localized("three withdrawals from Aiko's 100 at once — 60 from a `Task {}`, 70 from a `Task.detached`, 50 from a child task: the balance covers only one",
                       ja: "Aiko の 100 から同時に 3 回出金する。`Task {}` から 60、`Task.detached` から 70、子タスクから 50。残高で足りるのは 1 回だけ"),
             { await withdrawalsAtOnce(Account.self) }),
            (Localized("a `Task {}` deposits 50 into Aiko's account (0), then withdraws 50 at once, while a `Task.detached` deposits 25",
                       ja: "`Task {}` が Aiko の口座（0）に 50 を入金し、すぐに 50 を出金する。その間に `Task.detached` が 25 を入金する"),
             { await depositThenWithdraw(Account.self) }),
            (Localized("a `Task {}` transfers all 60 of Aiko's balance to Ben (0), then Ben withdraws 60 at once, while a `Task.detached` deposits 5 into Ben",
                       ja: "`Task {}` が Aiko の残高 60 をすべて Ben（0）へ送金し、すぐに Ben から 60 を出金する。その間に `Task.detached` が Ben に 5 を入金する"),
             { await transferThenWithdraw(Account.self) }),
            (Localized("at once: Aiko (100) → Ben 80 from a `Task {}`, Ben (50) → Aiko 100 from a `Task.detached`, Aiko withdraws 30 in a child task",
                       ja: "同時に: `Task {}` から Aiko（100）→ Ben へ 80、`Task.detached` から Ben（50）→ Aiko へ 100、子タスクで Aiko から 30 を出金"),
             { await transfersBothWays(Account.self) }),
            (Localized("a `Task {}` asks Ben (50) to transfer 100 to Aiko (0), while a `Task.detached` deposits 20 into Ben: the balance never covers it",
                       ja: "`Task {}` が Ben（50）から Aiko（0）へ 100 の送金を頼む。その間に `Task.detached` が Ben に 20 を入金する。残高では一度も足りない"),
             { await transferNotCovered(Account.self) }),
        ]
        for (call, body) in cases {
            let failure = checkExplored(lostUpdate, title: call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) { await body() }
            if let failure { return .failed(failure) }
        }
        return .passed(properties)
    }

    // MARK: The cases

    static func depositsAtOnce<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 0)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"),
                      BilingualLabel.join("reader", "読み手"))
        let first = Task { await aiko.deposit(10); await aiko.deposit(1) }
        let second = Task.detached { await aiko.deposit(20) }
        let reader = Task.detached { aiko.description }
        nameNextTasks(BilingualLabel.join("child task", "子タスク"))
        async let third: Void = aiko.deposit(30)
        await first.value
        await second.value
        await third
        let description = await reader.value
        let balance = await aiko.balance
        if balance != 61 {
            return brokenOutcome(lostUpdate, Localized("deposits of 10, 1, 20 and 30 into 0 left a balance of \(balance), not 61",
                                                       ja: "0 に 10、1、20、30 を入金した残高が 61 ではなく \(balance) になった"))
        }
        if description != "Account #1 (Aiko)" {
            return brokenOutcome(lostUpdate, Localized("`description` read \"\(description)\", not \"Account #1 (Aiko)\"",
                                                       ja: "`description` が \"Account #1 (Aiko)\" ではなく \"\(description)\" を返した"))
        }
        return ok
    }

    static func withdrawalsAtOnce<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 100)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"))
        let first = Task { await withdrawal(60, from: aiko) }
        let second = Task.detached { await withdrawal(70, from: aiko) }
        nameNextTasks(BilingualLabel.join("child task", "子タスク"))
        async let third = withdrawal(50, from: aiko)
        let taken = [await first.value, await second.value, await third].filter { $0 > 0 }
        let balance = await aiko.balance
        let what = Localized("withdrawals of 60, 70 and 50 from 100: \(succeeded(taken).en), balance \(balance)",
                             ja: "100 から 60、70、50 を出金: \(succeeded(taken).ja)、残高 \(balance)")
        if balance < 0 || taken.count > 1 { return brokenOutcome(overdrawn, what) }
        if taken.isEmpty { return brokenOutcome(overdrawn, Localized("\(what.en) — the first of them was covered", ja: "\(what.ja)。最初の 1 回は残高で足りていた")) }
        if balance != 100 - taken.reduce(0, +) { return brokenOutcome(lostUpdate, what) }
        return ok
    }

    static func depositThenWithdraw<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 0)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"))
        let depositor = Task { () -> (seen: Int, withdrew: Bool) in
            await aiko.deposit(50)
            checkpoint(Localized("deposit(50) returned", ja: "deposit(50) が戻った"))
            let seen = await aiko.balance
            checkpoint(Localized("balance → \(seen)", ja: "残高 → \(seen)"))
            return (seen, await aiko.withdraw(50))
        }
        let other = Task.detached { await aiko.deposit(25) }
        let (seen, withdrew) = await depositor.value
        await other.value
        let balance = await aiko.balance
        // Only deposits run meanwhile: a balance seen after `deposit(50)` returned stays covered.
        if seen < 50 {
            return brokenOutcome(appliedOnReturn, Localized("`deposit(50)` into 0 returned, but the balance read right after it in the same task was \(seen)",
                                                            ja: "0 への `deposit(50)` は戻ったのに、同じタスクで直後に読んだ残高は \(seen) だった"))
        }
        if !withdrew {
            return brokenOutcome(overdrawn, Localized("the balance was \(seen), but `withdraw(50)` returned false", ja: "残高は \(seen) だったのに、`withdraw(50)` が false を返した"))
        }
        if balance != 25 {
            return brokenOutcome(lostUpdate, Localized("deposits of 50 and 25 and a withdrawal of 50 from 0 left a balance of \(balance), not 25",
                                                       ja: "0 に 50 と 25 を入金して 50 を出金した残高が 25 ではなく \(balance) になった"))
        }
        return ok
    }

    static func transfersBothWays<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 100)
        let ben = Account(id: 2, owner: "Ben", balance: 50)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"))
        let toBen = Task { await transfer(80, from: aiko, to: ben) }
        let toAiko = Task.detached { await transfer(100, from: ben, to: aiko) }
        nameNextTasks(BilingualLabel.join("child task", "子タスク"))
        async let withdrawn = withdrawal(30, from: aiko)
        let (movedToBen, movedToAiko, withdrew) = (await toBen.value, await toAiko.value, await withdrawn > 0)
        let (a, b) = (await aiko.balance, await ben.balance)
        let calls = Localized(
            "Aiko → Ben 80: \(movedToBen), Ben → Aiko 100: \(movedToAiko), Aiko withdraws 30: \(withdrew); balances Aiko \(a), Ben \(b)",
            ja: "Aiko → Ben 80: \(movedToBen)、Ben → Aiko 100: \(movedToAiko)、Aiko から 30 出金: \(withdrew)。残高 Aiko \(a)、Ben \(b)")
        if a < 0 || b < 0 { return brokenOutcome(overdrawn, calls) }
        let total = a + b + (withdrew ? 30 : 0)
        if total != 150 {
            return brokenOutcome(totalKept, Localized("\(calls.en): together \(a + b)\(withdrew ? " + 30 withdrawn" : ""), not 150",
                                                      ja: "\(calls.ja)。合計 \(a + b)\(withdrew ? "（と出金 30）" : "")で、150 ではない"))
        }
        let expectedAiko = 100 - (movedToBen ? 80 : 0) + (movedToAiko ? 100 : 0) - (withdrew ? 30 : 0)
        if a != expectedAiko { return brokenOutcome(lostUpdate, calls) }
        return ok
    }

    static func transferThenWithdraw<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 60)
        let ben = Account(id: 2, owner: "Ben", balance: 0)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"))
        let mover = Task { () -> (moved: Bool, seen: Int, withdrew: Bool) in
            let moved = await aiko.transfer(60, to: ben)
            checkpoint(Localized("transfer(60) → \(moved)", ja: "transfer(60) → \(moved)"))
            let seen = await ben.balance
            checkpoint(Localized("Ben's balance → \(seen)", ja: "Ben の残高 → \(seen)"))
            return (moved, seen, await ben.withdraw(60))
        }
        let depositor = Task.detached { await ben.deposit(5) }
        let (moved, seen, withdrew) = await mover.value
        await depositor.value
        let (a, b) = (await aiko.balance, await ben.balance)
        if !moved {
            return brokenOutcome(overdrawn, Localized("Aiko had 60, but `transfer(60, to: ben)` returned false", ja: "Aiko の残高は 60 だったのに、`transfer(60, to: ben)` が false を返した"))
        }
        // Only a deposit runs meanwhile: a balance seen after the transfer returned stays covered.
        if seen < 60 {
            return brokenOutcome(appliedOnReturn, Localized(
                "`transfer(60, to: ben)` returned true, but Ben's balance read right after it in the same task was \(seen) (at the end: Aiko \(a), Ben \(b))",
                ja: "`transfer(60, to: ben)` は true を返したのに、同じタスクで直後に読んだ Ben の残高は \(seen) だった（最後: Aiko \(a)、Ben \(b)）"))
        }
        if !withdrew {
            return brokenOutcome(overdrawn, Localized("Ben's balance was \(seen), but `withdraw(60)` returned false", ja: "Ben の残高は \(seen) だったのに、`withdraw(60)` が false を返した"))
        }
        if a + b != 5 {
            return brokenOutcome(totalKept, Localized("after the transfer, Ben's withdrawal of 60 and a deposit of 5, Aiko has \(a) and Ben \(b): together \(a + b), not 5",
                                                      ja: "送金、Ben の 60 の出金、5 の入金の後、Aiko は \(a)、Ben は \(b)。合計 \(a + b) で、5 ではない"))
        }
        if a != 0 || b != 5 {
            return brokenOutcome(lostUpdate, Localized("after the transfer of 60, Ben's withdrawal of 60 and a deposit of 5: Aiko \(a) (not 0), Ben \(b) (not 5)",
                                                       ja: "60 の送金、Ben の 60 の出金、5 の入金の後: Aiko \(a)（0 ではない）、Ben \(b)（5 ではない）"))
        }
        return ok
    }

    static func transferNotCovered<Account: BankAccountProtocol>(_: Account.Type) async -> String {
        let aiko = Account(id: 1, owner: "Aiko", balance: 0)
        let ben = Account(id: 2, owner: "Ben", balance: 50)
        nameNextTasks(BilingualLabel.join("Task {}", "Task {}"), BilingualLabel.join("Task.detached", "Task.detached"))
        let mover = Task { await transfer(100, from: ben, to: aiko) }
        let depositor = Task.detached { await ben.deposit(20) }
        let moved = await mover.value
        await depositor.value
        let (a, b) = (await aiko.balance, await ben.balance)
        if moved || b < 0 {
            return brokenOutcome(overdrawn, Localized("Ben had at most 70, yet `transfer(100, to: aiko)` returned \(moved) (balances at the end: Aiko \(a), Ben \(b))",
                                                      ja: "Ben の残高は多くても 70 なのに、`transfer(100, to: aiko)` が \(moved) を返した（最後の残高: Aiko \(a)、Ben \(b)）"))
        }
        if a != 0 || b != 70 {
            return brokenOutcome(totalKept, Localized("a refused transfer of 100 and a deposit of 20 into Ben (50) left Aiko \(a) (not 0) and Ben \(b) (not 70)",
                                                      ja: "断られた 100 の送金と Ben（50）への 20 の入金の後、Aiko が \(a)（0 ではない）、Ben が \(b)（70 ではない）になった"))
        }
        return ok
    }

    /// A withdrawal that names its result in the schedule: the amount taken, or 0.
    static func withdrawal<Account: BankAccountProtocol>(_ amount: Int, from account: Account) async -> Int {
        let taken = await account.withdraw(amount)
        checkpoint(Localized("\(account.owner).withdraw(\(amount)) → \(taken)", ja: "\(account.owner).withdraw(\(amount)) → \(taken)"))
        return taken ? amount : 0
    }

    /// A transfer that names its result in the schedule.
    static func transfer<Account: BankAccountProtocol>(_ amount: Int, from source: Account, to destination: Account) async -> Bool {
        let moved = await source.transfer(amount, to: destination)
        checkpoint(Localized("\(source.owner) → \(destination.owner) \(amount): \(moved)", ja: "\(source.owner) → \(destination.owner) \(amount): \(moved)"))
        return moved
    }

    static func succeeded(_ taken: [Int]) -> Localized {
        taken.isEmpty ? Localized("none succeeded", ja: "どれも成功しなかった")
            : Localized("\(taken.map(String.init).joined(separator: " and ")) succeeded", ja: "\(taken.map(String.init).joined(separator: " と ")) が成功した")
    }

    static let leftWaiting = Localized(
        "A call on the account never returned: something in it waits for what never comes — a continuation nobody resumes, a task that waits for this same call. Deposits, withdrawals and transfers need no waiting of their own: an actor method runs when the actor is free.",
        ja: "口座の呼び出しが戻りませんでした。その中で、決して来ないものを待っています（誰も再開しない継続、この呼び出し自身を待つタスク）。入金・出金・送金に独自の待機は要りません。アクターのメソッドは、アクターが空いたときに実行されます。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case lostUpdate.id:
                Localized("Two calls changed the balance from the same old value, or a change never landed. In an actor, each method body runs alone from one `await` to the next: read and write the balance in one synchronous stretch.",
                          ja: "2 つの呼び出しが同じ古い値から残高を変えたか、変更が反映されませんでした。アクターでは、メソッドの本体は `await` から次の `await` まで単独で実行されます。残高の読み書きは、1 つの同期的なひと続きの中で行いましょう。")
            case overdrawn.id:
                Localized("Check the balance and take the money with no `await` between them: across an `await`, other calls run on the actor and the balance you checked is gone.",
                          ja: "残高の確認とお金を引く処理の間に `await` を挟まないようにしましょう。`await` をまたぐと、その間にアクター上でほかの呼び出しが実行され、確認した残高はもう当てになりません。")
            case appliedOnReturn.id:
                Localized("Make the change before the method returns — not in a `Task {}` started inside it, which runs later: a `Task {}` inside an actor method runs on the actor, but only after the current call and whatever is queued before it.",
                          ja: "変更はメソッドが戻る前に行いましょう。メソッドの中で始めた `Task {}` は後で実行されます。アクターのメソッド内の `Task {}` はアクター上で実行されますが、今の呼び出しと、その前に並んでいるものの後になります。")
            case totalKept.id:
                Localized("Take the money from this account and `await other.deposit(amount)` within the same call, and only if the withdrawal succeeded: every amount taken arrives, and nothing arrives that was not taken.",
                          ja: "この口座からお金を引き、同じ呼び出しの中で `await other.deposit(amount)` しましょう。引けたときだけです。引いた額は必ず届き、引いていない額は届きません。")
            default:
                nil
            }
        }
    }
}
