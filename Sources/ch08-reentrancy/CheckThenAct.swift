import WorkbookCore
import WorkbookExplorer

/// The fraud check of scenario 3: a remote service that approves a withdrawal after 10 ms of
/// virtual time (and refuses one over `limit`).
final class FraudCheck: Sendable {
    private let clock = ExplorerClock()
    private let limit: Int

    init(limit: Int = 1_000) { self.limit = limit }

    func approve(_ amount: Int) async -> Bool {
        try? await clock.sleep(for: .milliseconds(10))
        return amount <= limit
    }
}

/// The racy way: the balance is checked before the `await` and debited after it. Another
/// withdrawal that runs while this one waits for the fraud check passes the same check.
actor CheckThenActAccount {
    private let fraud: FraudCheck
    private(set) var balance = 100

    init(fraud: FraudCheck) { self.fraud = fraud }

    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }
        guard await fraud.approve(amount) else { return false }   // suspends: other calls run
        balance -= amount                                          // the check above may be stale
        return true
    }
}

/// Also racy: the balance read before the `await` is written back after it. No overdraft check
/// is skipped, but a withdrawal that ran meanwhile is overwritten: a lost update.
actor ReadThenWriteBackAccount {
    private let fraud: FraudCheck
    private(set) var balance = 100

    init(fraud: FraudCheck) { self.fraud = fraud }

    func withdraw(_ amount: Int) async -> Bool {
        let current = balance
        guard current >= amount else { return false }
        guard await fraud.approve(amount) else { return false }
        balance = current - amount                                 // writes back a stale value
        return true
    }
}

/// The safe way: check again after the `await`, and act in the same synchronous stretch as the
/// check. A refused withdrawal returns before touching the balance.
actor SafeAccount {
    private let fraud: FraudCheck
    private(set) var balance = 100

    init(fraud: FraudCheck) { self.fraud = fraud }

    func withdraw(_ amount: Int) async -> Bool {
        guard balance >= amount else { return false }              // a quick refusal, nothing more
        guard await fraud.approve(amount) else { return false }
        guard balance >= amount else { return false }              // check again: it may have changed
        balance -= amount                                          // no await between check and act
        return true
    }
}

extension Chapter08 {
    /// Withdrawals A (80) at 0 ms and B (30) at 10 ms, when A's fraud check answers, from a balance
    /// of 100. Returns `A=… B=… balance=…`.
    static func twoWithdrawals(withdraw: @escaping @Sendable (Int) async -> Bool,
                               balance: @escaping @Sendable () async -> Int) async -> String {
        let clock = ExplorerClock()
        nameNextTasks("A", "B")
        async let a: Bool = {
            checkpoint(Localized("A: withdraw(80)", ja: "A: withdraw(80)"))
            let done = await withdraw(80)
            checkpoint(Localized("A: withdraw(80) returned \(done)", ja: "A: withdraw(80) は \(done) を返した"))
            return done
        }()
        async let b: Bool = {
            try? await clock.sleep(for: .milliseconds(10))
            checkpoint(Localized("B: withdraw(30)", ja: "B: withdraw(30)"))
            let done = await withdraw(30)
            checkpoint(Localized("B: withdraw(30) returned \(done)", ja: "B: withdraw(30) は \(done) を返した"))
            return done
        }()
        let (first, second) = await (a, b)
        return "A=\(first) B=\(second) balance=\(await balance())"
    }

    @Sendable static func checkThenActWithdrawals() async throws -> String {
        let account = CheckThenActAccount(fraud: FraudCheck())
        return await twoWithdrawals(withdraw: { await account.withdraw($0) }, balance: { await account.balance })
    }

    /// The balance must never go below zero, and must be 100 minus what was withdrawn.
    static func classifyWithdrawals(_ outcome: String) -> OutcomeTally.Verdict {
        let fields = Dictionary(uniqueKeysWithValues: outcome.split(separator: " ").compactMap { field -> (String, String)? in
            let parts = field.split(separator: "=")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        })
        guard let balance = fields["balance"].flatMap({ Int($0) }) else { return .forbidden }
        let taken = (fields["A"] == "true" ? 80 : 0) + (fields["B"] == "true" ? 30 : 0)
        return balance >= 0 && balance == 100 - taken ? .acceptable : .forbidden
    }

    static let checkThenAct = Scenario(
        slug: "check-then-act",
        title: Localized("Check, await, act: a withdrawal that overdraws", ja: "確かめて、await して、実行する: 残高を超える引き出し"),
        narration: Localized(
            """
            An account actor with a balance of 100. `withdraw(_:)` checks the balance, awaits a fraud check (10 ms), then debits. \
            A withdraws 80 at 0 ms; B withdraws 30 at 10 ms, as A's check answers. Rule: the balance never goes below zero and equals 100 minus what was withdrawn. \
            1) Check before the `await`, debit after it. 2) Read the balance before the `await`, write it back after. 3) Check again after the `await`, and debit in the same stretch. All explored.
            """,
            ja: """
            残高 100 の口座のアクターです。`withdraw(_:)` は残高を確かめ、不正チェック（10 ms）を await し、それから引き落とします。\
            A が 0 ms に 80 を、B が A のチェックが応答する 10 ms に 30 を引き出します。規則: 残高は 0 を下回らず、100 から引き出した額を引いたものに等しい。\
            1) `await` の前に確かめ、後で引き落とす。2) `await` の前に残高を読み、後で書き戻す。3) `await` の後でもう一度確かめ、同じ区間で引き落とす。どれも探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: A checks 100 ≥ 80 and awaits the fraud check; B's withdraw(30) runs in some schedules while A waits. Can the balance go below zero? A) no: the actor runs one withdrawal at a time B) yes: B's check passes too, and both debit",
                ja: "パート 1: A は 100 ≥ 80 を確かめて不正チェックを await します。スケジュールによっては、A が待つ間に B の withdraw(30) が動きます。残高が 0 を下回ることはある？ A) ない。アクターは引き出しを 1 つずつ実行する B) ある。B の確認も通り、両方が引き落とす"),
            explanation: Localized(
                "B. The check was true when A made it; by the time A debits, B has checked the same 100 and debited 30, and A's 80 takes the balance to -10. Within an actor a check holds only until the next `await`: check again after it, in the stretch that acts.",
                ja: "B です。A が確かめたときは真でしたが、A が引き落とすまでに B が同じ 100 を確かめて 30 を引き落とし、A の 80 で残高は -10 になります。アクターの中でも、確認が有効なのは次の `await` までです。`await` の後、実行するのと同じ区間でもう一度確かめます。"),
            observe: { ($0.noted("check then act forbidden") ?? "0") == "0" ? "A" : "B" },
            isPossible: { $0 == "B" })
    ) { context in
        let racy = await explore(classify: classifyWithdrawals, checkThenActWithdrawals)
        context.show(racy, Localized("1) Check, await, debit", ja: "1) 確かめ、await し、引き落とす"), game: 3, key: "check then act")
        let writeBack = await explore(classify: classifyWithdrawals) {
            let account = ReadThenWriteBackAccount(fraud: FraudCheck())
            return await twoWithdrawals(withdraw: { await account.withdraw($0) }, balance: { await account.balance })
        }
        context.show(writeBack, Localized("2) Read, await, write back", ja: "2) 読み、await し、書き戻す"), key: "write back")
        let safe = await explore(classify: classifyWithdrawals) {
            let account = SafeAccount(fraud: FraudCheck())
            return await twoWithdrawals(withdraw: { await account.withdraw($0) }, balance: { await account.balance })
        }
        context.show(safe, Localized("3) Check, await, check again and debit", ja: "3) 確かめ、await し、もう一度確かめて引き落とす"), key: "safe")
        context.say(Localized(
            "   An actor keeps the balance free of data races; it does not keep a check true across an `await`. Re-check after the suspension, or change the state before it (reserve the amount, give it back if refused).",
            ja: "   アクターは残高をデータ競合から守りますが、確認を `await` の向こうまで真に保つことはしません。サスペンドの後でもう一度確かめるか、サスペンドの前に状態を変えます（額を確保し、拒否されたら戻す）。"))
    }
}
