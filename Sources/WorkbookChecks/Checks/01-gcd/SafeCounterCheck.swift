import ExerciseKit
import WorkbookCore

/// Checks exercise 01-gcd/SafeCounter on real threads.
///
/// 0. No data race: two threads take turns calling every method (`runInTurns`), so a read or a
///    write of `counts` outside the queue is an unordered pair that ThreadSanitizer reports,
///    every run, without the calls ever overlapping.
/// 1. Reads see prior writes: four threads each increment their own page and read it back at
///    once; a read that misses the thread's own increment is a stale read.
/// 2. No lost update: up to twenty rounds of four threads incrementing two shared pages 5,000
///    times each (long enough to span several scheduler time slices on a loaded machine); each round's counts are tallied, and the first total below the number of
///    increments is reported as a lost update.
public enum SafeCounterCheck {
    public static let readsSeeWrites = Property(
        id: "stale-read",
        name: Localized("reads see all prior writes", ja: "読み取りはそれ以前の書き込みをすべて反映する"),
        rule: Localized("A thread that increments a page and then reads it sees its own increment.",
                        ja: "あるページを増やしたスレッドが直後に読むと、自分の増分が見える。"))
    public static let noLostUpdate = Property(
        id: "lost-update",
        name: Localized("no lost update", ja: "更新が失われない"),
        rule: Localized("After threads increment concurrently, the count equals the number of increments.",
                        ja: "複数スレッドが同時に増やした後、カウントは増やした回数と等しい。"))
    public static let properties = [readsSeeWrites, noLostUpdate, Property.finishes]

    static let threads = 4
    static let readBackIterations = 300
    static let rounds = 20
    static let incrementsPerThread = 5_000

    public static func run(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions = .init()) -> CheckResult {
        if let failure = probeRaces(make, options: options)
            ?? checkReadsSeeWrites(make(), options: options) ?? checkNoLostUpdate(make, options: options) {
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
            warm.increment("home"); _ = warm.count(of: "home"); _ = warm.snapshot()
        }) else { return .deadlock(trace: Trace(), options: options, doing: "increment / count(of:) / snapshot()") }
        let counter = make()
        let trace = Trace()
        let calls: [(thread: Int, label: String, body: @Sendable () -> Void)] = [
            (0, "increment(\"home\")", { counter.increment("home") }),
            (1, "count(of: \"home\")", { _ = counter.count(of: "home") }),
            (1, "increment(\"home\")", { counter.increment("home") }),
            (0, "snapshot()", { _ = counter.snapshot() }),
            (0, "increment(\"about\")", { counter.increment("about") }),
            (1, "snapshot()", { _ = counter.snapshot() }),
            (0, "count(of: \"about\")", { _ = counter.count(of: "about") }),
        ]
        let stuck = runInTurns(threads: 2, deadlineSeconds: options.deadlockSeconds, steps: calls.map { call in
            (call.thread, { trace.span(call.label) { call.body() } })
        })
        guard let stuck else { return nil }
        return .deadlock(trace: trace, options: options, doing: calls[stuck].label)
    }

    static func checkReadsSeeWrites(_ counter: any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        let trace = Trace()
        let firstStale = Locked<(sequence: Int, text: Localized)?>(nil)
        let finished = runOnThreads(threads, deadlineSeconds: options.deadlockSeconds) { index in
            let page = "page\(index + 1)"
            for expected in 1...readBackIterations {
                trace.span("increment(\(page))") { counter.increment(page) }
                let seen = trace.span("count(of: \(page))") { counter.count(of: page) }
                let fromSnapshot = expected % 50 == 0 ? counter.snapshot()[page, default: 0] : expected
                guard seen != expected || fromSnapshot != expected else { continue }
                let (call, value) = seen != expected ? ("count(of: \"\(page)\")", seen) : ("snapshot()[\"\(page)\"]", fromSnapshot)
                trace.record("\(call) → \(value), expected \(expected)")
                let sequence = trace.events.count - 1
                firstStale.withLock { stale in
                    if stale == nil {
                        stale = (sequence, Localized(
                            "A thread incremented \"\(page)\" for the \(expected)th time and then \(call) returned \(value). Only that thread writes \"\(page)\", so the read missed a write that had already returned.",
                            ja: "あるスレッドが \"\(page)\" を \(expected) 回目に増やした直後、\(call) が \(value) を返しました。\"\(page)\" に書くのはそのスレッドだけなので、すでに戻った書き込みを読み取りが見落としています。"))
                    }
                }
                return
            }
        }
        if let stale = firstStale.current {
            return CheckFailure(readsSeeWrites, observed: stale.text, events: traceWindow(trace.events, around: stale.sequence))
        }
        if !finished { return .deadlock(trace: trace, options: options, doing: "increment / count(of:)") }
        return nil
    }

    static func checkNoLostUpdate(_ make: @escaping @Sendable () -> any SafeCounterProtocol, options: CheckOptions) -> CheckFailure? {
        let expected = threads / 2 * incrementsPerThread
        var tally = OutcomeTally { $0 == "home=\(expected) about=\(expected)" ? .acceptable : .forbidden }
        var failingTrace: [Trace.Event] = []
        for _ in 0..<rounds {
            let counter = make()
            let trace = Trace()
            let finished = runOnThreads(threads, deadlineSeconds: options.deadlockSeconds) { index in
                let page = index % 2 == 0 ? "home" : "about"
                trace.span("increment(\"\(page)\") ×\(incrementsPerThread)") {
                    for _ in 0..<incrementsPerThread { counter.increment(page) }
                }
            }
            guard finished else { return .deadlock(trace: trace, options: options, doing: "increment") }
            guard let counts = withDeadline(seconds: options.deadlockSeconds, { counter.snapshot() }) else {
                return .deadlock(trace: trace, options: options, doing: "snapshot()")
            }
            let home = counts["home", default: 0], about = counts["about", default: 0]
            trace.record("snapshot: home=\(home) about=\(about)")
            var outcome = "home=\(home) about=\(about)"
            if home != expected || about != expected { outcome += "  (\(2 * expected - home - about) lost)" }
            tally.record(outcome)
            if tally.verdict(of: outcome) == .forbidden {
                failingTrace = trace.events
                break
            }
        }
        guard tally.forbiddenCount > 0 else { return nil }
        return CheckFailure(
            noLostUpdate,
            observed: Localized(
                "\(threads) threads each called increment \(incrementsPerThread) times (2 threads per page, so \(expected) per page). In round \(tally.total) a page counted fewer: two threads read the same old value and both wrote old+1.",
                ja: "\(threads) スレッドがそれぞれ increment を \(incrementsPerThread) 回呼びました（1 ページに 2 スレッド、つまり各 \(expected) 回）。\(tally.total) 回目のラウンドで少なく数えられました。2 つのスレッドが同じ古い値を読み、どちらも 古い値+1 を書いたためです。"),
            events: failingTrace,
            tally: tally)
    }
}
