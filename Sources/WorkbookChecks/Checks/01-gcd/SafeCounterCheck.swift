import ExerciseKit
import WorkbookCore

/// Checks exercise 01-gcd/SafeCounter on real threads.
///
/// 0. No data race: two threads take turns calling every method (`runInTurns`), so a read or a
///    write of `counts` outside the queue is an unordered pair that ThreadSanitizer reports,
///    every run, without the calls ever overlapping.
/// 1. Reads see prior writes: four threads each increment their own page and read it back at
///    once; a read that misses the thread's own increment is a stale read — unless a read a
///    moment later still misses it: then the increment never counted (a lost update).
/// 2. No lost update. First on purpose (Linux runners): one increment is paused right after
///    its 1st, 2nd, … release (a `sync` returning, a lock unlocked) while another increment of
///    the same page runs whole; a read-modify-write split over two steps loses one, every run.
///    Then up to six rounds of four threads incrementing two shared pages 2,000
///    times each (under ThreadSanitizer each call is slow enough to span scheduler time slices);
///    each round's counts are tallied, and the first wrong total is reported with what was seen:
///    how many were missing, and whether a later read found them (a read that did not wait for
///    the queue) or not (lost updates), or saw none at all (counts kept per thread).
public enum SafeCounterCheck {
    public static let readsSeeWrites = Property(
        id: "stale-read",
        name: Localized("reads see all prior writes", ja: "読み取りはそれ以前の書き込みをすべて反映する"),
        rule: Localized("A thread that increments a page and then reads it sees its own increment; a page never incremented reads 0.",
                        ja: "あるページを増やしたスレッドがその後に読むと、自分の増分が見える。一度も増やしていないページは 0 と読める。"))
    public static let noLostUpdate = Property(
        id: "lost-update",
        name: Localized("no lost update", ja: "更新が失われない"),
        rule: Localized("After threads increment concurrently, the count equals the number of increments.",
                        ja: "複数スレッドが同時に増やした後、カウントは増やした回数と等しい。"))
    public static let properties = [readsSeeWrites, noLostUpdate, Property.finishes]

    /// Needs a pause right after an increment's release (`probeIncrementInterrupted`).
    public static let platformProbes = [
        PlatformProbe("increment-interrupted", Localized(
            "an increment paused between its locked steps while another runs whole",
            ja: "ロックした区間の間で止めた increment の途中に、別の increment を最後まで実行する"), needs: [.releasePoints]),
    ]

    /// This run's page names: fresh in every run (each check runs in a process of its own), so an
    /// answer cannot count only the names a check happens to use — one counter per expected name
    /// passes a check whose names are fixed.
    static let pages = PageNames.fresh()

    struct PageNames {
        let home, about, unseen, warm: String
        private let tag: String
        func numbered(_ number: Int) -> String { "/\(tag)/\(number)" }

        static func fresh() -> PageNames {
            func word() -> String { String((0..<6).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! }) }
            return PageNames(home: "/" + word(), about: "/" + word(), unseen: "/" + word(), warm: "/" + word(), tag: word())
        }
    }

    static let threads = 4
    static let readBackIterations = 300
    static let rounds = 6
    static let incrementsPerThread = 2_000

    public static func run(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions = .init()) -> CheckResult {
        if let failure = probeRaces(make, options: options)
            ?? checkReadsSeeWrites(make(), options: options)
            ?? probeIncrementInterrupted(make, options: options) ?? checkNoLostUpdate(make, options: options) {
            return .failed(failure)
        }
        return .passed(properties)
    }

    /// Every method from two threads in turn; with TSan on, an unguarded access stops the run here.
    static func probeRaces(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        // Warm up on this thread first: the first call of a generic function fills the Swift
        // runtime's caches under its own locks, and a lock both probe threads take would order
        // their calls for TSan and hide the race.
        let warm = make()
        guard returnsWithin(seconds: options.deadlockSeconds, {
            warm.increment(pages.home); _ = warm.count(of: pages.home); _ = warm.snapshot()
        }) else { return .deadlock(trace: Trace(), options: options, doing: .verbatim("increment / count(of:) / snapshot()")) }
        let counter = make()
        let trace = Trace()
        let calls: [(thread: Int, label: String, body: @Sendable () -> Void)] = [
            (0, "increment(\"\(pages.home)\")", { counter.increment(pages.home) }),
            (1, "count(of: \"\(pages.home)\")", { _ = counter.count(of: pages.home) }),
            (0, "count(of: \"\(pages.home)\")", { _ = counter.count(of: pages.home) }),
            (1, "increment(\"\(pages.home)\")", { counter.increment(pages.home) }),
            (0, "snapshot()", { _ = counter.snapshot() }),
            (0, "increment(\"\(pages.about)\")", { counter.increment(pages.about) }),
            (1, "snapshot()", { _ = counter.snapshot() }),
            (0, "count(of: \"\(pages.about)\")", { _ = counter.count(of: pages.about) }),
        ]
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: calls.map { call in
            (call.thread, { trace.span(call.label) { call.body() } })
        })
        guard let stuck else { return nil }
        return .deadlock(trace: trace, options: options, doing: .verbatim(calls[stuck].label))
    }

    static func checkReadsSeeWrites(_ counter: any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        // A page nobody incremented: 0 views (`counts[page]!` crashes here, with the line).
        guard let unseen = withDeadline(seconds: options.deadlockSeconds, { counter.count(of: pages.unseen) }) else {
            return .deadlock(trace: trace, options: options, doing: .verbatim("count(of: \"\(pages.unseen)\")"))
        }
        trace.record("count(of: \"\(pages.unseen)\") → \(unseen)", lane: "main")
        guard unseen == 0 else {
            return CheckFailure(readsSeeWrites, observed: Localized(
                "On a new counter, count(of: \"\(pages.unseen)\") returned \(unseen): a page never incremented has 0 views.",
                ja: "新しいカウンタで count(of: \"\(pages.unseen)\") が \(unseen) を返しました。一度も増やしていないページの閲覧数は 0 です。"),
                events: trace.events)
        }
        let firstStale = Locked<(sequence: Int, page: String, expected: Int, call: String, value: Int)?>(nil)
        let finished = runOnThreads(threads, deadlineSeconds: options.deadlockSeconds) { index in
            let page = pages.numbered(index + 1)
            for expected in 1...readBackIterations {
                trace.span("increment(\(page))") { counter.increment(page) }
                let seen = trace.span("count(of: \(page))") { counter.count(of: page) }
                let fromSnapshot = expected % 50 == 0 ? counter.snapshot()[page, default: 0] : expected
                guard seen != expected || fromSnapshot != expected else { continue }
                let (call, value) = seen != expected ? ("count(of: \"\(page)\")", seen) : ("snapshot()[\"\(page)\"]", fromSnapshot)
                trace.record(Localized("\(call) → \(value), expected \(expected)", ja: "\(call) → \(value)（正しくは \(expected)）"))
                let sequence = trace.events.count - 1
                firstStale.withLock { stale in
                    if stale == nil { stale = (sequence, page, expected, call, value) }
                }
                return
            }
        }
        guard let stale = firstStale.current else {
            return finished ? nil : .deadlock(trace: trace, options: options, doing: .verbatim("increment / count(of:)"))
        }
        // Only that thread wrote the page, and it stopped there. Once queued work has had its
        // chance, a read that still falls short tells an increment that never counted from a
        // read that did not wait for it.
        waitForQueuesRound()
        let later = withDeadline(seconds: options.deadlockSeconds) { counter.count(of: stale.page) }
        let nth = Localized.ordinal(stale.expected)
        if stale.value > stale.expected || (later ?? 0) > stale.expected {
            let counted = max(stale.value, later ?? 0)
            return CheckFailure(noLostUpdate, observed: Localized(
                "A thread incremented \"\(stale.page)\" \(stale.expected) time(s), and then \(stale.call) returned \(stale.value)\(later.map { "; a moment later count(of:) returned \($0)" } ?? ""). Only that thread writes \"\(stale.page)\": \(counted - stale.expected) more than the increments made. Each call adds exactly one.",
                ja: "あるスレッドが \"\(stale.page)\" を \(stale.expected) 回増やした直後、\(stale.call) が \(stale.value) を返しました\(later.map { "（少し後の count(of:) は \($0)）" } ?? "")。\"\(stale.page)\" に書くのはそのスレッドだけなので、実際の増分より \(counted - stale.expected) 多く数えています。呼び出し 1 回につき、ちょうど 1 増やしましょう。"),
                events: traceWindow(trace.events, around: stale.sequence))
        }
        if let later, later < stale.expected {
            trace.record(Localized("a moment later: count(of: \"\(stale.page)\") → \(later)", ja: "少し後: count(of: \"\(stale.page)\") → \(later)"))
            return CheckFailure(noLostUpdate, observed: Localized(
                "A thread incremented \"\(stale.page)\" for the \(nth.en) time and then \(stale.call) returned \(stale.value); a moment later count(of: \"\(stale.page)\") still returned \(later). Only that thread writes \"\(stale.page)\", so an increment that returned was never counted. Every call adds one — the first for a page too (`counts[page, default: 0] += 1`).",
                ja: "あるスレッドが \"\(stale.page)\" を \(stale.expected) 回目に増やした直後、\(stale.call) が \(stale.value) を返し、少し後の count(of: \"\(stale.page)\") も \(later) のままでした。\"\(stale.page)\" に書くのはそのスレッドだけなので、戻った increment が数えられていません。ページの最初の 1 回も含め、呼び出しのたびに 1 増やしましょう（`counts[page, default: 0] += 1`）。"),
                events: traceWindow(trace.events, around: stale.sequence))
        }
        return CheckFailure(readsSeeWrites, observed: Localized(
            "A thread incremented \"\(stale.page)\" for the \(nth.en) time and then \(stale.call) returned \(stale.value). Only that thread writes \"\(stale.page)\", so the read missed a write that had already returned.",
            ja: "あるスレッドが \"\(stale.page)\" を \(stale.expected) 回目に増やした直後、\(stale.call) が \(stale.value) を返しました。\"\(stale.page)\" に書くのはそのスレッドだけなので、すでに戻った書き込みを読み取りが見落としています。"),
            events: traceWindow(trace.events, around: stale.sequence))
    }

    /// One increment paused after each of its releases in turn, another one run whole meanwhile.
    static func probeIncrementInterrupted(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        guard ReleasePoint.isAvailable else { return nil }
        for release in 1...6 {
            let counter = make()
            // Warm up elsewhere: the Swift runtime's first-call locks are releases too.
            guard returnsWithin(seconds: options.deadlockSeconds, { counter.increment(pages.warm); _ = counter.count(of: pages.warm) }) else {
                return .deadlock(trace: Trace(), options: options, doing: .verbatim("increment / count(of:)"))
            }
            let outcome = PausedInterleaving.run(pausingFirstAfterRelease: release, deadlineSeconds: options.deadlockSeconds,
                                                 first: { counter.increment(pages.home) }, second: { counter.increment(pages.home) })
            let trace = Trace()
            let nth = Localized.ordinal(release)
            trace.record(Localized("increment(\"\(pages.home)\") paused after its release \(release)",
                                   ja: "increment(\"\(pages.home)\") を \(nth.ja)の解放後に止める"), lane: "T1")
            switch outcome {
            case .notReached: return nil
            case .stuck:
                return .deadlock(trace: trace, options: options, doing: Localized(
                    "increment(\"\(pages.home)\") on two threads, one paused after its release \(release)",
                    ja: "2 本のスレッドの increment(\"\(pages.home)\")（一方は \(nth.ja)の解放後に止めた）"))
            case .interleaved(let secondBlocked):
                trace.record(secondBlocked ? Localized("increment(\"\(pages.home)\") waits for T1", ja: "increment(\"\(pages.home)\") は T1 を待つ")
                                           : Localized("increment(\"\(pages.home)\") returned", ja: "increment(\"\(pages.home)\") が戻る"), lane: "T2")
                trace.record(Localized("increment(\"\(pages.home)\") goes on and returns", ja: "increment(\"\(pages.home)\") を再開、戻る"), lane: "T1")
                guard let count = withDeadline(seconds: options.deadlockSeconds, { counter.count(of: pages.home) }) else {
                    return .deadlock(trace: trace, options: options, doing: Localized(
                        "count(of: \"\(pages.home)\") after two increments", ja: "2 回の increment の後の count(of: \"\(pages.home)\")"))
                }
                trace.record("count(of: \"\(pages.home)\") → \(count)", lane: "main")
                guard count != 2 else { continue }
                let ordinal = Localized.ordinal(release)
                return CheckFailure(
                    noLostUpdate,
                    observed: Localized(
                        "Thread 1's increment(\"\(pages.home)\") was paused right after its \(ordinal.en) release (a `sync` returning or a lock unlocked), and thread 2's increment(\"\(pages.home)\") ran \(secondBlocked ? "until it had to wait" : "whole") meanwhile; then thread 1 went on. count(of: \"\(pages.home)\") returned \(count), not 2. \(count == 1 ? "The increment read the count in one step and wrote it in another, so thread 2's increment was overwritten: do the whole read-modify-write in one block on the queue." : "")",
                        ja: "スレッド 1 の increment(\"\(pages.home)\") を \(ordinal.ja)の解放（`sync` からの復帰やロックの解除）の直後で止め、その間にスレッド 2 の increment(\"\(pages.home)\") を\(secondBlocked ? "待たされるまで" : "最後まで")実行し、その後スレッド 1 を再開しました。count(of: \"\(pages.home)\") は 2 ではなく \(count) を返しました。\(count == 1 ? "increment がカウントの読み取りと書き込みを別々の段階で行っているため、スレッド 2 の増分が上書きされました。読み取り・変更・書き込みをキューの 1 つのブロックで行いましょう。" : "")"),
                    events: trace.events)
            }
        }
        return nil
    }

    static func checkNoLostUpdate(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        let expected = threads / 2 * incrementsPerThread
        var tally = OutcomeTally { $0 == "home=\(expected) about=\(expected)" ? .acceptable : .forbidden }
        var failingTrace: [Trace.Event] = []
        var failingCounts = (home: 0, about: 0), laterCounts = (home: 0, about: 0)
        for _ in 0..<rounds {
            let counter = make()
            let trace = Trace()
            let finished = runOnThreads(threads, deadlineSeconds: options.deadlockSeconds) { index in
                let page = index % 2 == 0 ? pages.home : pages.about
                trace.span("increment(\"\(page)\") ×\(incrementsPerThread)") {
                    for _ in 0..<incrementsPerThread { counter.increment(page) }
                }
            }
            guard finished else { return .deadlock(trace: trace, options: options, doing: .verbatim("increment")) }
            guard let counts = withDeadline(seconds: options.deadlockSeconds, { counter.snapshot() }) else {
                return .deadlock(trace: trace, options: options, doing: .verbatim("snapshot()"))
            }
            let home = counts[pages.home, default: 0], about = counts[pages.about, default: 0]
            trace.record(.verbatim("snapshot() → home=\(home) about=\(about)"))
            // Code-like, so the tally reads the same in every language.
            var outcome = "home=\(home) about=\(about)"
            if home != expected || about != expected { outcome += "  lost=\(2 * expected - home - about)" }
            tally.record(outcome)
            if tally.verdict(of: outcome) == .forbidden {
                failingTrace = trace.events
                failingCounts = (home, about)
                // Look again once queued work has had its chance: tells a read that did not wait
                // from an update that is gone.
                waitForQueuesRound()
                let again = withDeadline(seconds: options.deadlockSeconds) { counter.snapshot() } ?? counts
                laterCounts = (again[pages.home, default: 0], again[pages.about, default: 0])
                break
            }
        }
        guard tally.forbiddenCount > 0 else { return nil }
        let seen = failingCounts
        let later = laterCounts
        let missing = 2 * expected - seen.home - seen.about
        let story: Localized
        if seen.home == 0 && seen.about == 0 {
            story = Localized(
                "snapshot() on another thread saw none of them (home=0 about=0): the increments were not stored where other threads can read them — one shared dictionary, owned by one serial queue, is the point.",
                ja: "別のスレッドからの snapshot() には 1 つも見えませんでした（home=0 about=0）。増分が他のスレッドから読める場所に保存されていません。1 つのシリアルキューが所有する 1 つの共有辞書にすることが肝心です。")
        } else if later.home + later.about == 2 * expected {
            story = Localized(
                "snapshot() right after the threads finished returned home=\(seen.home) about=\(seen.about) (\(missing) missing), but a read a moment later found all of them: snapshot() did not wait for the increments still queued — read on the same queue (queue.sync).",
                ja: "スレッドの終了直後の snapshot() は home=\(seen.home) about=\(seen.about)（\(missing) 件不足）を返しましたが、少し後の読み取りではすべて見えました。snapshot() がキューに残っている増分を待っていません。同じキューで読みましょう（queue.sync）。")
        } else if missing < 0 {
            story = Localized(
                "snapshot() returned home=\(seen.home) about=\(seen.about): \(-missing) more than the increments made.",
                ja: "snapshot() は home=\(seen.home) about=\(seen.about) を返しました。実際の増分より \(-missing) 多く数えています。")
        } else {
            story = Localized(
                "snapshot() returned home=\(seen.home) about=\(seen.about), and a read a moment later home=\(later.home) about=\(later.about): \(2 * expected - later.home - later.about) increments are gone for good. Increments that ran at the same time overwrote each other — do the whole read-modify-write in one block on the queue.",
                ja: "snapshot() は home=\(seen.home) about=\(seen.about) を返し、少し後の読み取りでも home=\(later.home) about=\(later.about) でした。\(2 * expected - later.home - later.about) 件の増分が失われています。同時に実行された増分が互いを上書きしました。読み取り・変更・書き込みをキューの 1 つのブロックで行いましょう。")
        }
        return CheckFailure(
            noLostUpdate,
            observed: Localized(
                "\(threads) threads each called increment \(incrementsPerThread) times (2 threads per page, so \(expected) per page); round \(tally.total) counted wrong. \(story.en)",
                ja: "\(threads) 本のスレッドがそれぞれ increment を \(incrementsPerThread) 回呼びました（1 ページに 2 スレッド、つまり各 \(expected) 回）。\(tally.total) 回目のラウンドで数が合いませんでした。\(story.ja)"),
            events: failingTrace,
            tally: tally)
    }
}
