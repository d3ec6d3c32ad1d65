import Foundation
import ExerciseKit
import WorkbookCore

/// Checks exercise 03-threads/Transfers.
///
/// 0. No data race: two threads take turns making transfers between the same accounts
///    (`runInTurns`), so a balance touched without both locks held — a lock released early, a
///    lock never taken — is an unordered pair that ThreadSanitizer reports every run.
/// 1. No lock-order deadlock: one transfer 1 → 2 and one 2 → 1 on two threads, with the
///    accounts' locks armed so each thread, after taking its first lock, waits for the other to
///    take one too. Locks taken "source first" then deadlock every time; with one global order
///    (any order, as long as every thread uses it) the second thread has to wait for its first
///    lock, which ends the rendezvous, and both finish. The balances must then be exactly what
///    the two transfers leave.
/// 2. No money in flight: each transfer is paused right after every lock it takes and every
///    lock it releases, and at each pause an auditor tries to take every account's lock. When it
///    gets them all — the transfer holds none — the total must be the starting total.
/// 3. Under load: four threads make transfers among three accounts (two of them in opposite
///    directions) while an auditor keeps trying every lock; all finish, every audited total is
///    the starting total, and each final balance is exactly what the transfers add up to.
/// The auditor never waits for a lock (it tries them all and backs off), so it cannot deadlock
/// with an answer whatever consistent order the answer takes its locks in. Amounts and starting
/// balances change every run.
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
                        ja: "すべての口座のロックを持つスレッドには、送金の前・途中・後のいつでも同じ総額が見える。"))
    public static let exactBalances = Property(
        id: "wrong-balance",
        name: Localized("every transfer moves exactly its amount", ja: "各送金はちょうどその金額を動かす"),
        rule: Localized("After the transfers, each account holds its starting balance plus what it received minus what it sent.",
                        ja: "送金の後、各口座の残高は、最初の残高に受け取った額を足し、送った額を引いたものになる。"))
    public static let changesUnderLock = Property(
        id: "balance-without-lock",
        name: Localized("balances change only under their account's lock", ja: "残高はその口座のロックを持っているときだけ変わる"),
        rule: Localized("A transfer changes each account's balance while holding that account's own lock.",
                        ja: "送金は、各口座の残高をその口座自身のロックを持ったまま変える。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [noLockOrderDeadlock, moneyConserved, exactBalances, changesUnderLock, Property.finishes]

    static let stressThreads = 4
    static let transfersPerThread = 400

    public static func run(_ make: @escaping @Sendable () -> any TransfersProtocol, options: CheckOptions = .init()) -> CheckResult {
        let failure = probeRaces(make, options: options)
            ?? checkChangesUnderLock(make(), options: options)
            ?? probeOppositeTransfers(make(), options: options)
            ?? auditEveryStep(make(), options: options)
            ?? stressTransfers(make(), options: options)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    static func amount(_ range: ClosedRange<Int> = 1...60) -> Int { Int.random(in: range) }

    /// The check holds both accounts' locks and starts a transfer on another thread. A transfer
    /// that takes the accounts' own locks waits; one that uses a lock of its own — one global lock
    /// for all transfers — moves the money under the check's hands and returns. Waiting for what
    /// must not happen uses the load-adaptive window, after the transfer has started.
    static func checkChangesUnderLock(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let accounts = freshAccounts(2)
        let start = accounts.map(\.balance)
        let trace = Trace()
        let sent = amount()
        guard accounts.allSatisfy({ $0.lock.auditorTry() }) else { return nil }
        let started = DispatchSemaphore(value: 0), returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            started.signal()
            trace.span("transfer(\(sent), from: 1, to: 2)") { transfers.transfer(sent, from: accounts[0], to: accounts[1]) }
            returned.signal()
        }
        _ = started.wait(timeout: .now() + options.deadlockSeconds)
        observationWindow(margin: 0.05)
        let cameBack = returned.wait(timeout: .now()) == .success
        let seen = accounts.map(\.balance)
        let balances = seen.map(String.init).joined(separator: ", ")
        trace.record(Localized("the check holds both accounts' locks: balances \(balances)", ja: "チェックが両口座のロックを保持: 残高 \(balances)"))
        for account in accounts { account.lock.auditorUnlock() }
        if !cameBack, returned.wait(timeout: .now() + options.deadlockSeconds) == .timedOut {
            return .deadlock(trace: trace, options: options, doing: Localized(
                "transfer(_:from:to:) after the check released the locks", ja: "チェックがロックを解放した後の transfer(_:from:to:)"))
        }
        guard cameBack || seen != start else { return nil }
        return CheckFailure(
            changesUnderLock,
            observed: Localized(
                "The check held the locks of accounts 1 and 2, then called transfer(\(sent), from: 1, to: 2) on another thread. It \(cameBack ? "returned" : "ran") without waiting for them, and the balances went from \(start) to \(seen) under the check's hands: the transfer does not take the accounts' own locks.",
                ja: "チェックが口座 1 と 2 のロックを持った状態で、別スレッドから transfer(\(sent), from: 1, to: 2) を呼びました。送金はそれらを待たずに\(cameBack ? "戻り" : "進み")、チェックがロックを持っている間に、残高が \(start) から \(seen) に変わりました。送金が口座自身のロックを取っていません。"),
            events: trace.events)
    }

    /// Accounts 1…`count` with starting balances nobody can guess.
    static func freshAccounts(_ count: Int) -> [Account] {
        (1...count).map { Account(id: $0, balance: Int.random(in: 500...1_500)) }
    }

    /// Compares each account with what it should hold; a failure names every account that differs.
    static func checkBalances(_ accounts: [Account], expected: [Int], after what: Localized, events: [Trace.Event] = []) -> CheckFailure? {
        let actual = accounts.map(\.balance)
        guard actual != expected else { return nil }
        let differences = accounts.indices.filter { actual[$0] != expected[$0] }.map { index in
            "account \(accounts[index].id): \(actual[index]) (expected \(expected[index]))"
        }
        let differencesJa = accounts.indices.filter { actual[$0] != expected[$0] }.map { index in
            "口座 \(accounts[index].id): \(actual[index])（正しくは \(expected[index])）"
        }
        return CheckFailure(exactBalances, observed: Localized(
            "After \(what.en), the balances were wrong — \(differences.joined(separator: ", ")). A transfer takes `amount` from the source and adds it to the destination.",
            ja: "\(what.ja) の後、残高が違いました — \(differencesJa.joined(separator: "、"))。送金は送金元から `amount` を引き、送金先に足します。"),
            events: events)
    }

    // MARK: 0. Data races

    /// Transfers between the same accounts from two threads in turn; with TSan on, a balance
    /// touched outside its account's lock stops the run here.
    static func probeRaces(_ make: @escaping @Sendable () -> any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        // Warm up on this thread first: the first call of a generic function fills the Swift
        // runtime's caches under its own locks, and a lock both probe threads take would order
        // their calls for TSan and hide the race.
        let warm = make(), warmAccounts = freshAccounts(2)
        guard returnsWithin(seconds: options.deadlockSeconds, {
            warm.transfer(1, from: warmAccounts[0], to: warmAccounts[1])
            warm.transfer(1, from: warmAccounts[1], to: warmAccounts[0])
        }) else {
            return .deadlock(trace: Trace(), options: options, doing: Localized(
                "transfer(1, from: 1, to: 2), then 2 → 1, on one thread", ja: "1 本のスレッドでの transfer(1, from: 1, to: 2) と 2 → 1"))
        }
        let transfers = make()
        let accounts = freshAccounts(3)
        let moves: [(thread: Int, from: Int, to: Int, amount: Int)] = [
            (0, 0, 1, amount()), (1, 1, 0, amount()), (1, 2, 1, amount()),
            (0, 1, 2, amount()), (0, 2, 0, amount()), (1, 0, 2, amount()),
        ]
        let labels = moves.map { "transfer(\($0.amount), from: \(accounts[$0.from].id), to: \(accounts[$0.to].id))" }
        // The probe threads record nothing while they take turns: TSan's ignore annotations
        // (which the trace uses) next to the racing calls hid a race in some runs.
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: moves.map { move in
            (move.thread, { transfers.transfer(move.amount, from: accounts[move.from], to: accounts[move.to]) })
        })
        guard let stuck else { return nil }
        let trace = Trace()
        for index in moves.indices.prefix(stuck + 1) { trace.record(labels[index], lane: "T\(moves[index].thread + 1)") }
        return .deadlock(trace: trace, options: options, doing: Localized(
            "\(labels[stuck]) (one transfer at a time)", ja: "\(labels[stuck])（一度に 1 件ずつの送金）"))
    }

    // MARK: 1. Opposite transfers at once

    static func probeOppositeTransfers(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        // The rendezvous ends early when a thread must wait for its first lock, so a correct
        // answer never waits it out; the limit only matters for an answer that blocks on something else first.
        let rendezvous = TrackedLock.Rendezvous(parties: 2, seconds: 1)
        let accounts = freshAccounts(2)
        let start = accounts.map(\.balance)
        let there = amount(), back = amount()
        for account in accounts {
            account.lock.trace = trace
            account.lock.rendezvous = rendezvous
        }
        defer {
            for account in accounts {
                account.lock.trace = nil
                account.lock.rendezvous = nil
            }
        }
        let finished = runOnThreads(2, deadlineSeconds: min(options.deadlockSeconds, 3)) { index in
            let (source, destination, sum) = index == 0 ? (accounts[0], accounts[1], there) : (accounts[1], accounts[0], back)
            trace.span("transfer(\(sum), from: \(source.id), to: \(destination.id))") {
                transfers.transfer(sum, from: source, to: destination)
            }
        }
        guard finished else {
            let holding = describeWaits(trace.events, accounts: accounts)
            return CheckFailure(
                noLockOrderDeadlock,
                observed: Localized(
                    "One thread transferred 1 → 2 while another transferred 2 → 1, and neither finished: \(holding.en). Each holds the lock the other waits for, so neither can go on. Take the two locks in one global order, e.g. by account id.",
                    ja: "一方のスレッドが 1 → 2、もう一方が 2 → 1 に送金し、どちらも終わりませんでした: \(holding.ja)。互いに相手が待つロックを持っているので、どちらも先へ進めません。2 つのロックは全体で 1 つの順序（たとえば口座 id 順）で取りましょう。"),
                events: trace.events)
        }
        return checkBalances(accounts, expected: [start[0] - there + back, start[1] + there - back],
                             after: Localized("transfer(\(there), from: 1, to: 2) and transfer(\(back), from: 2, to: 1)",
                                              ja: "transfer(\(there), from: 1, to: 2) と transfer(\(back), from: 2, to: 1)"),
                             events: trace.events)
    }

    /// "T1 holds account 1 and waits for account 2; T2 …", from the lock events on the trace
    /// (matched in English; each account named in the learner's language).
    static func describeWaits(_ events: [Trace.Event], accounts: [Account]) -> Localized {
        let names = Dictionary(accounts.map { ($0.lock.name.en, $0.lock.name) }, uniquingKeysWith: { first, _ in first })
        func ja(_ name: String) -> String { names[name]?.ja ?? name }
        var lanes: [String] = []
        var held: [String: [String]] = [:], waiting: [String: String] = [:]
        for event in events where event.kind == .point {
            if !lanes.contains(event.lane) { lanes.append(event.lane) }
            if event.label.hasPrefix("holds ") {
                let name = String(event.label.dropFirst("holds ".count))
                held[event.lane, default: []].append(name)
                if waiting[event.lane] == name { waiting[event.lane] = nil }
            } else if event.label.hasPrefix("releases ") {
                let name = String(event.label.dropFirst("releases ".count))
                held[event.lane, default: []].removeAll { $0 == name }
            } else if event.label.hasPrefix("waits for ") {
                waiting[event.lane] = String(event.label.dropFirst("waits for ".count))
            }
        }
        let en = lanes.map { lane in
            let holds = held[lane, default: []].isEmpty ? "holds no account lock" : "holds \(held[lane, default: []].joined(separator: " and "))"
            return "\(lane) \(holds)" + (waiting[lane].map { " and waits for \($0)" } ?? "")
        }
        let ja = lanes.map { lane in
            let holds = held[lane, default: []].isEmpty ? "口座のロックを持たず" : "\(held[lane, default: []].map(ja).joined(separator: " と ")) を持ち"
            return "\(lane) は\(holds)" + (waiting[lane].map { "、\(ja($0)) を待っています" } ?? "")
        }
        return Localized(en.joined(separator: "; "), ja: ja.joined(separator: "。"))
    }

    // MARK: 2. Money in flight, at every step

    /// One transfer at a time, paused after each lock taken and each lock released; at every
    /// pause the auditor tries to take every account's lock and, if it gets them all, counts.
    static func auditEveryStep(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let accounts = freshAccounts(3)
        let total = accounts.reduce(0) { $0 + $1.balance }
        var expected = accounts.map(\.balance)
        let trace = Trace()
        let moves = [(0, 1, amount()), (2, 0, amount()), (1, 2, amount())]
        let paused = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let step = Locked<TrackedLock.Step?>(nil)
        for account in accounts {
            account.lock.stepper = { event in
                step.withLock { $0 = event }
                paused.signal()
                _ = resume.wait(timeout: .now() + 5)
            }
        }
        defer { for account in accounts { account.lock.stepper = nil } }
        for (from, to, sum) in moves {
            let label = "transfer(\(sum), from: \(accounts[from].id), to: \(accounts[to].id))"
            let call = BlockingCall(label, trace: trace) { transfers.transfer(sum, from: accounts[from], to: accounts[to]) }
            while true {
                // Either the transfer pauses at its next lock step, or it returns.
                var event: TrackedLock.Step?
                let deadline = MonotonicClock.now() + UInt64(options.deadlockSeconds * 1e9)
                while event == nil && !call.hasReturned {
                    if paused.wait(timeout: .now() + 0.001) == .success { event = step.current }
                    if MonotonicClock.now() > deadline {
                        return .deadlock(trace: trace, options: options, doing: Localized(
                            "\(label) with no other transfer running", ja: "ほかに送金がないときの \(label)"))
                    }
                }
                guard let event else { break }
                let moment: Localized = switch event {
                case let .took(name): Localized("right after it took \(name.en)", ja: "\(name.ja) を取った直後")
                case let .released(name): Localized("right after it released \(name.en)", ja: "\(name.ja) を解放した直後")
                }
                trace.record(Localized("paused \(moment.en)", ja: "\(moment.ja)で止める"))
                if let seen = audit(accounts) {
                    trace.record(Localized("auditor holds every lock: total \(seen.reduce(0, +)) \(seen)",
                                           ja: "監査役が全ロックを保持: 総額 \(seen.reduce(0, +)) \(seen)"))
                    if seen.reduce(0, +) != total {
                        resume.signal()
                        _ = call.waitForReturn(seconds: options.deadlockSeconds)
                        let balances = zip(accounts, seen).map { "account \($0.id): \($1)" }.joined(separator: ", ")
                        let balancesJa = zip(accounts, seen).map { "口座 \($0.id): \($1)" }.joined(separator: "、")
                        return CheckFailure(moneyConserved, observed: Localized(
                            "The accounts held \(total) in all. \(label) was paused \(moment.en); it held no account lock then, so an auditor took every lock and counted \(seen.reduce(0, +)) (\(balances)): \(total - seen.reduce(0, +)) was in flight, in no account. Hold both locks from before the money leaves the source until after it reaches the destination.",
                            ja: "口座の総額は \(total) でした。\(label) を\(moment.ja)で止めました。そのときどの口座のロックも持っていなかったので、監査役がすべてのロックを取って数えると \(seen.reduce(0, +))（\(balancesJa)）で、\(total - seen.reduce(0, +)) がどの口座にもない「移動中」でした。お金が送金元を出る前から送金先に入るまで、両方のロックを持ち続けましょう。"),
                            events: trace.events)
                    }
                } else {
                    trace.record(Localized("auditor: a lock is held, no count", ja: "監査役: 使用中のロックあり、数えない"))
                }
                resume.signal()
            }
            guard call.waitForReturn(seconds: options.deadlockSeconds) else {
                return .deadlock(trace: trace, options: options, doing: .verbatim(label))
            }
            expected[from] -= sum
            expected[to] += sum
            if let failure = checkBalances(accounts, expected: expected,
                                           after: Localized(label, ja: label), events: trace.events) {
                return failure
            }
        }
        return nil
    }

    /// The balances, read holding every account's lock — or nil if any lock is taken. Never
    /// waits, so it cannot deadlock with any order of locking.
    static func audit(_ accounts: [Account]) -> [Int]? {
        var taken: [Account] = []
        defer { for account in taken.reversed() { account.lock.auditorUnlock() } }
        for account in accounts {
            guard account.lock.auditorTry() else { return nil }
            taken.append(account)
        }
        return accounts.map(\.balance)
    }

    // MARK: 3. Under load

    /// The transfers thread `index` makes, the same every time it is asked: (source, destination, amount).
    static func plan(thread index: Int, step i: Int, base: Int) -> (Int, Int, Int) {
        let sum = base + i % 7
        return switch index {
        case 0: (0, 1, sum)
        case 1: (1, 0, sum)
        case 2: (i % 3, (i + 1) % 3, sum)
        default: ((i + 2) % 3, i % 3, sum)
        }
    }

    static func stressTransfers(_ transfers: any TransfersProtocol, options: CheckOptions) -> CheckFailure? {
        let accounts = freshAccounts(3)
        let total = accounts.reduce(0) { $0 + $1.balance }
        let base = amount(1...9)
        var expected = accounts.map(\.balance)
        for index in 0..<stressThreads {
            for i in 0..<transfersPerThread {
                let (from, to, sum) = plan(thread: index, step: i, base: base)
                expected[from] -= sum
                expected[to] += sum
            }
        }
        let audits = Locked<[Int]>([])
        let transfersDone = Locked(0)
        let finished = runOnThreads(stressThreads + 1, deadlineSeconds: options.deadlockSeconds) { index in
            if index == stressThreads {
                // The auditor: try every lock; on any busy one, let go of all and try again later.
                while transfersDone.current < stressThreads {
                    if let seen = audit(accounts) {
                        audits.withLock { $0.append(seen.reduce(0, +)) }
                    }
                    usleep(100)
                }
                return
            }
            for i in 0..<transfersPerThread {
                let (from, to, sum) = plan(thread: index, step: i, base: base)
                transfers.transfer(sum, from: accounts[from], to: accounts[to])
            }
            transfersDone.withLock { $0 += 1 }
        }
        let made = stressThreads * transfersPerThread
        guard finished else {
            let trace = Trace()
            trace.record(Localized("\(stressThreads) threads × \(transfersPerThread) transfers did not finish within \(formatSeconds(options.deadlockSeconds).en)",
                                   ja: "\(stressThreads) 本 × \(transfersPerThread) 回の送金が \(formatSeconds(options.deadlockSeconds).ja)以内に終わらない"))
            return CheckFailure(
                noLockOrderDeadlock,
                observed: Localized(
                    "\(stressThreads) threads each made \(transfersPerThread) transfers among three accounts (two of them in opposite directions) and did not finish within \(formatSeconds(options.deadlockSeconds).en): a lock-order deadlock, or a transfer that waits for ever. Take the locks in one global order.",
                    ja: "\(stressThreads) 本のスレッドが 3 口座間でそれぞれ \(transfersPerThread) 回送金しましたが（うち 2 つは逆方向）、\(formatSeconds(options.deadlockSeconds).ja)以内に終わりませんでした。ロック順序によるデッドロックか、永久に待つ送金です。ロックは全体で 1 つの順序で取りましょう。"),
                events: trace.events)
        }
        let final = accounts.reduce(0) { $0 + $1.balance }
        var tally = OutcomeTally { $0 == "total=\(total)" ? .acceptable : .forbidden }
        for sum in audits.current + [final] { tally.record("total=\(sum)") }
        if tally.forbiddenCount > 0 {
            return CheckFailure(
                moneyConserved,
                observed: Localized(
                    "The accounts started with \(total) in all. While \(stressThreads) threads made \(made) transfers, an auditor holding every account's lock saw other totals \(tally.forbiddenCount) times (final total \(final)). A transfer must hold both locks from before it takes the money out until after it puts the money in.",
                    ja: "口座の総額は最初 \(total) でした。\(stressThreads) 本のスレッドが \(made) 回送金する間に、すべての口座のロックを持つ監査役が、それ以外の総額を \(tally.forbiddenCount) 回見ました（最終総額 \(final)）。送金は、お金を引き出す前から入れ終わるまで、両方のロックを持ち続ける必要があります。"),
                tally: tally)
        }
        return checkBalances(accounts, expected: expected,
                             after: Localized("\(made) transfers on \(stressThreads) threads", ja: "\(stressThreads) 本のスレッドによる \(made) 回の送金"))
    }
}
