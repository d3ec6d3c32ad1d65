import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 08-reentrancy/SafeWithdraw under the explorer, on a fresh account per
/// schedule, in virtual time (a fraud check takes 10 ms). Callers come from a `Task {}`, a
/// `Task.detached` and child tasks; an auditor reads the balance while the checks run.
///
/// 1. Balance 100: two withdrawals of 60 at once, both approved.
/// 2. Balance 100: a withdrawal of 60; a deposit of 50 during its check.
/// 3. Balance 100: withdrawals of 30 and 40 at once, both approved.
/// 4. Balance 100: a withdrawal of 80 the fraud check refuses; a deposit of 20 during its check.
/// 5. Balance 100: a refused withdrawal of 30 and an approved one of 50 at once.
public enum SafeWithdrawCheck {
    public static let overdrawn = Property(
        id: "overdrawn",
        name: Localized("never below zero, no money spent twice", ja: "ゼロを下回らず、同じお金を二度使わない"),
        rule: Localized("The balance never goes below zero, and the withdrawals that return true never add up to more than the account had.",
                        ja: "残高はゼロを下回らない。true を返した引き出しの合計が、口座にあった額を超えることもない。"))
    public static let lostUpdate = Property(
        id: "lost-update",
        name: Localized("no deposit or withdrawal lost", ja: "入金も引き出しも失われない"),
        rule: Localized("The balance ends as the start plus the deposits minus the withdrawals that returned true.",
                        ja: "残高は、最初の額に入金を足し、true を返した引き出しを引いた額で終わる。"))
    public static let refusedChanged = Property(
        id: "refused-changed",
        name: Localized("a refused withdrawal changes nothing", ja: "断られた引き出しは何も変えない"),
        rule: Localized("A withdrawal that returns false leaves the balance as if it had never been asked for.",
                        ja: "false を返した引き出しは、頼まれなかったかのように残高をそのままにする。"))
    public static let carriedOut = Property(
        id: "refused-with-funds",
        name: Localized("a covered, approved withdrawal is carried out", ja: "残高で足り、承認された引き出しは実行される"),
        rule: Localized("A withdrawal the balance covers and the fraud check approves returns true, also when another one is waiting for its check.",
                        ja: "残高で足り、不正検査が承認した引き出しは true を返す。ほかの引き出しが検査を待っているときも同じ。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [overdrawn, lostUpdate, refusedChanged, carriedOut, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget.guaranteeing(preemptions: 2)
    static let ok = "ok"

    public typealias Make = @Sendable (Int, FraudCheck) -> any SafeWithdrawProtocol

    /// One thing a case does to the account.
    enum Move: Sendable, CustomStringConvertible {
        case withdraw(Int)
        case deposit(Int)
        var description: String {
            switch self {
            case let .withdraw(amount): "withdraw(\(amount))"
            case let .deposit(amount): "deposit(\(amount))"
            }
        }
    }

    /// What one caller did and got (deposits always "return true").
    struct Answer: Sendable {
        let caller: String
        let move: Move
        let returned: Bool
    }

    static func perform(_ caller: String, _ move: Move, at: Int, _ account: any SafeWithdrawProtocol) async -> Answer {
        await arrive(at: at)
        checkpoint("\(caller): \(move)")
        let returned: Bool
        switch move {
        case let .withdraw(amount): returned = await account.withdraw(amount)
        case let .deposit(amount): await account.deposit(amount); returned = true
        }
        checkpoint("\(caller): \(move) → \(returned)")
        return Answer(caller: caller, move: move, returned: returned)
    }

    struct Case: Sendable {
        let call: Localized
        let refusing: Set<Int>
        /// Every withdrawal must return true.
        let allCarriedOut: Bool
        let moves: [(caller: String, move: Move, at: Int)]
    }

    static let start = 100

    static let cases: [Case] = [
        Case(call: Localized("balance 100: A and B withdraw 60 at once — from a Task {} and a Task.detached; the fraud check approves both",
                             ja: "残高 100: A と B が同時に 60 を引き出す（Task {} と Task.detached から）。不正検査はどちらも承認する"),
             refusing: [], allCarriedOut: false, moves: [("A", .withdraw(60), 0), ("B", .withdraw(60), 0)]),
        Case(call: Localized("balance 100: A withdraws 60; 5 ms later, during its fraud check, B deposits 50",
                             ja: "残高 100: A が 60 を引き出す。5 ms 後、その不正検査の間に B が 50 を入金する"),
             refusing: [], allCarriedOut: false, moves: [("A", .withdraw(60), 0), ("B", .deposit(50), 5)]),
        Case(call: Localized("balance 100: A withdraws 30 and B withdraws 40 at once; the fraud check approves both",
                             ja: "残高 100: A が 30 を、B が 40 を同時に引き出す。不正検査はどちらも承認する"),
             refusing: [], allCarriedOut: true, moves: [("A", .withdraw(30), 0), ("B", .withdraw(40), 0)]),
        Case(call: Localized("balance 100: A withdraws 80, which the fraud check refuses; 5 ms later, during the check, B deposits 20",
                             ja: "残高 100: A が 80 を引き出すが、不正検査が拒否する。5 ms 後、検査の間に B が 20 を入金する"),
             refusing: [80], allCarriedOut: false, moves: [("A", .withdraw(80), 0), ("B", .deposit(20), 5)]),
        Case(call: Localized("balance 100: A withdraws 30, which the fraud check refuses, and B withdraws 50 at once, which it approves",
                             ja: "残高 100: A が 30 を引き出し（不正検査は拒否）、同時に B が 50 を引き出す（承認）"),
             refusing: [30], allCarriedOut: false, moves: [("A", .withdraw(30), 0), ("B", .withdraw(50), 0)]),
    ]

    public static func run(_ make: @escaping Make) -> CheckResult {
        for item in cases {
            let failure = checkExplored(overdrawn, title: item.call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                                        observed: { observed(item.call, $0) }, budget: budget,
                                        classify: { $0 == ok ? .acceptable : .forbidden }) {
                let account = make(start, FraudCheck(refusing: item.refusing))
                let (first, second) = (item.moves[0], item.moves[1])
                nameNextTasks(BilingualLabel.join("\(first.caller) (Task {})", "\(first.caller)（Task {}）"),
                              BilingualLabel.join("\(second.caller) (Task.detached)", "\(second.caller)（Task.detached）"))
                let a = Task { await perform(first.caller, first.move, at: first.at, account) }
                let b = Task.detached { await perform(second.caller, second.move, at: second.at, account) }
                nameNextTasks(BilingualLabel.join("auditor", "監査"))
                async let audit: Int = {
                    try? await ExplorerClock().sleep(for: .milliseconds(7))
                    return await account.balance
                }()
                let answers = [await a.value, await b.value]
                let during = await audit
                await untilQuiet()  // work the account left running ends before the final balance is read
                return judge(item, answers, during: during, final: await account.balance)
            }
            if let failure { return .failed(failure) }
        }
        return .passed(properties)
    }

    static func judge(_ item: Case, _ answers: [Answer], during: Int, final: Int) -> String {
        let moves = answers.map { "\($0.caller): \($0.move) → \($0.returned)" }.joined(separator: ", ")
        var deposits = 0, taken = 0, refused = 0
        for answer in answers {
            switch answer.move {
            case let .deposit(amount): deposits += amount
            case let .withdraw(amount): if answer.returned { taken += amount } else { refused += amount }
            }
        }
        if during < 0 || final < 0 {
            return brokenOutcome(overdrawn, Localized(
                "the balance went to \(min(during, final)) (\(moves))",
                ja: "残高が \(min(during, final)) になった（\(moves)）"))
        }
        if taken > start + deposits {
            return brokenOutcome(overdrawn, Localized(
                "withdrawals of \(taken) in all returned true from a balance of \(start)\(deposits > 0 ? " plus \(deposits)" : ""), which ended at \(final) (\(moves))",
                ja: "残高 \(start)\(deposits > 0 ? " に \(deposits) を足した額" : "") から合計 \(taken) の引き出しが true を返し、残高は \(final) で終わった（\(moves)）"))
        }
        let expected = start + deposits - taken
        if final != expected {
            if refused > 0 && final == expected - refused {
                return brokenOutcome(refusedChanged, Localized(
                    "the balance ended at \(final), not \(expected): the refused withdrawal took its \(refused) all the same (\(moves))",
                    ja: "残高は \(expected) ではなく \(final) で終わった。断られた引き出しが \(refused) を取ったまま（\(moves)）"))
            }
            return brokenOutcome(lostUpdate, Localized(
                "the balance ended at \(final), not \(start)\(deposits > 0 ? " + \(deposits)" : "") − \(taken) = \(expected) (\(moves))",
                ja: "残高は \(start)\(deposits > 0 ? " + \(deposits)" : "") − \(taken) = \(expected) ではなく \(final) で終わった（\(moves)）"))
        }
        if item.allCarriedOut, let refusedOne = answers.first(where: { !$0.returned }) {
            return brokenOutcome(carriedOut, Localized(
                "\(refusedOne.caller)'s \(refusedOne.move) returned false, although the balance covered both and the fraud check approved it (\(moves))",
                ja: "残高は両方に足り、不正検査も承認したのに、\(refusedOne.caller) の \(refusedOne.move) は false を返した（\(moves)）"))
        }
        return ok
    }

    static let leftWaiting = Localized(
        "A call never came back: a withdrawal or a deposit waits for something nobody does — a continuation nobody resumes, or a call that waits for another that waits for it.",
        ja: "呼び出しが戻りませんでした。引き出しか入金が、誰もしないことを待っています（誰も再開しない継続、互いに待ち合う呼び出し）。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case overdrawn.id:
                Localized("While `withdraw` waits for the fraud check, other calls run on the account: a balance checked before the `await` is not true after it. Take the money before the `await` (and give it back if refused), or check the balance again after it, with no `await` between that check and the debit.",
                          ja: "`withdraw` が不正検査を待っている間に、ほかの呼び出しが口座で動きます。`await` の前に確かめた残高は、その後では正しくありません。`await` の前にお金を取る（断られたら戻す）か、`await` の後でもう一度残高を確かめ、その確認と引き落としの間に `await` を挟まないようにしましょう。")
            case lostUpdate.id:
                Localized("The debit wrote a balance computed from a value read before the `await` — a deposit made meanwhile is lost. Change the balance relative to what it is now (`balance -= amount`, `balance += amount`), never by assigning a value read earlier.",
                          ja: "引き落としが、`await` の前に読んだ値から計算した残高を書きました。その間の入金が失われます。残高は今の値に対して変えましょう（`balance -= amount`、`balance += amount`）。前に読んだ値を代入してはいけません。")
            case refusedChanged.id:
                Localized("Money held before the fraud check must go back when it refuses: add the amount back on that path.",
                          ja: "不正検査の前に確保したお金は、検査が拒否したら戻さなければなりません。その経路で金額を足し戻しましょう。")
            case carriedOut.id:
                Localized("A withdrawal should not be refused just because another is waiting for its check: hold the money each one needs, or re-check the balance after the `await`, instead of turning callers away while one is in progress.",
                          ja: "ほかの引き出しが検査を待っているというだけで、引き出しを断ってはいけません。進行中のものがあるからと呼び出し元を追い返すのではなく、それぞれが必要なお金を確保するか、`await` の後で残高を確かめ直しましょう。")
            default:
                nil
            }
        }
    }
}
