import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/Transfers.
///
/// 1. No lock-order deadlock: one transfer 1 → 2 and one 2 → 1 on two threads, with the
///    accounts' locks armed so each thread, after taking its first lock, waits for the other to
///    take one too. Locks taken "source first" then deadlock every time; with one global order
///    the second thread cannot take its first lock, the wait times out, and both finish.
/// 2. Money is conserved: four threads transfer 10,000 times among three accounts (two of them
///    in opposite directions) while an auditor repeatedly takes every lock, in id order, and
///    adds up the balances; the sum must never change.
public enum TransfersCheck {
    public static let noLockOrderDeadlock = Property(
        id: "lock-order-deadlock",
        name: Localized("no lock-order deadlock", ja: "ロック順序によるデッドロックがない"),
        rule: Localized("Transfers in opposite directions at the same time both finish.",
                        ja: "逆方向の送金を同時に行っても、どちらも完了する。"))
    public static let moneyConserved = Property(
        id: "money-in-flight",
        name: Localized("money is conserved", ja: "お金の総額が保たれる"),
        rule: Localized("Whoever holds every account's lock sees the same total, before, during and after transfers.",
                        ja: "すべての口座のロックを持つ者には、送金の前・途中・後のいつでも同じ総額が見える。"))
    public static let properties = [noLockOrderDeadlock, moneyConserved]

    public static func run(_ make: @escaping @Sendable () -> any TransfersProtocol, options: CheckOptions = .init()) -> CheckResult {
        if let failure = probeOppositeTransfers(make(), options: options) ?? stressTransfers(make(), options: options) {
            return .failed(failure)
        }
        return .passed(properties)
    }

    static func probeOppositeTransfers(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let rendezvous = TrackedLock.Rendezvous(parties: 2, seconds: 0.3)
        let accounts = [Account(id: 1, balance: 100), Account(id: 2, balance: 100)]
        for account in accounts {
            account.lock.trace = trace
            account.lock.rendezvous = rendezvous
        }
        let finished = runOnThreads(2, deadlineSeconds: min(options.deadlockSeconds, 2)) { index in
            let (source, destination) = index == 0 ? (accounts[0], accounts[1]) : (accounts[1], accounts[0])
            trace.span("transfer(10, from: \(source.id), to: \(destination.id))") {
                transfers.transfer(10, from: source, to: destination)
            }
        }
        guard finished else {
            return CheckFailure(
                noLockOrderDeadlock,
                observed: Localized(
                    "One thread transferred 1 → 2 while another transferred 2 → 1. Each took the lock of its source account and then waited forever for the other's: see \"holds account 1\" / \"waits for account 2\" on one lane and the reverse on the other. Take the two locks in one global order, e.g. by account id.",
                    ja: "一方のスレッドが 1 → 2、もう一方が 2 → 1 に送金しました。それぞれ送金元のロックを取り、相手が持つロックを永遠に待っています（あるレーンの \"holds account 1\" / \"waits for account 2\" と、もう一方の逆を見てください）。2 つのロックは全体で 1 つの順序（たとえば口座 id 順）で取りましょう。"),
                events: trace.events)
        }
        return nil
    }

    static func stressTransfers(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let accounts = (1...3).map { Account(id: $0, balance: 1_000) }
        let total = 3_000
        let audits = Locked<[Int]>([])
        let transfersDone = Locked(0)
        let finished = runOnThreads(5, deadlineSeconds: options.deadlockSeconds) { index in
            if index == 4 {
                // The auditor: every lock, in id order, then the sum.
                while transfersDone.current < 4 {
                    for account in accounts { account.lock.lock() }
                    let sum = accounts.reduce(0) { $0 + $1.balance }
                    for account in accounts.reversed() { account.lock.unlock() }
                    audits.withLock { $0.append(sum) }
                }
                return
            }
            for i in 0..<10_000 {
                let (source, destination): (Account, Account) = switch index {
                case 0: (accounts[0], accounts[1])
                case 1: (accounts[1], accounts[0])
                case 2: (accounts[i % 3], accounts[(i + 1) % 3])
                default: (accounts[(i + 2) % 3], accounts[i % 3])
                }
                transfers.transfer(1 + i % 7, from: source, to: destination)
            }
            transfersDone.withLock { $0 += 1 }
        }
        guard finished else {
            let trace = Trace()
            trace.record("4 threads × 10,000 transfers did not finish within \(formatSeconds(options.deadlockSeconds))")
            return CheckFailure(
                noLockOrderDeadlock,
                observed: Localized(
                    "Four threads each made 10,000 transfers among three accounts (two of them in opposite directions) and did not finish within \(formatSeconds(options.deadlockSeconds)): a lock-order deadlock. Take the locks in one global order.",
                    ja: "4 スレッドが 3 口座間でそれぞれ 10,000 回送金しましたが（うち 2 つは逆方向）、\(formatSeconds(options.deadlockSeconds)) 以内に終わりませんでした。ロック順序によるデッドロックです。ロックは全体で 1 つの順序で取りましょう。"),
                events: trace.events)
        }
        let final = accounts.reduce(0) { $0 + $1.balance }
        var tally = OutcomeTally { $0 == "total=\(total)" ? .acceptable : .forbidden }
        for sum in audits.current + [final] { tally.record("total=\(sum)") }
        guard tally.forbiddenCount == 0 else {
            return CheckFailure(
                moneyConserved,
                observed: Localized(
                    "The accounts started with \(total) in all. An auditor holding every account's lock saw other totals \(tally.forbiddenCount) times (final total \(final)). A transfer must hold both locks from before it takes the money out until after it puts the money in.",
                    ja: "口座の総額は最初 \(total) でした。すべての口座のロックを持つ監査役が、それ以外の総額を \(tally.forbiddenCount) 回見ました（最終総額 \(final)）。送金は、お金を引き出す前から入れ終わるまで、両方のロックを持ち続ける必要があります。"),
                tally: tally)
        }
        return nil
    }
}
