import Foundation
import WorkbookCore

extension Chapter03 {
    /// `Thread.sleep` blocks for at least the time asked; `sleep(until:)` keeps a steady rate;
    /// `Thread.exit()` ends a thread on the spot, skipping its `defer`s.
    static let sleepAndExit = Scenario(
        slug: "sleep-and-exit",
        title: Localized("sleep(forTimeInterval:), sleep(until:) and Thread.exit()", ja: "sleep(forTimeInterval:)、sleep(until:)、Thread.exit()"),
        narration: Localized(
            """
            Part one: `Thread.sleep(forTimeInterval:)` five times for `milliseconds` ms, timed with a monotonic clock. \
            A sleep lasts at least the time asked, and a little more: the thread must be woken and scheduled again. \
            Part two: a loop that should tick every `milliseconds` ms and does 3 ms of work per tick. \
            Sleeping the interval after the work drifts: each tick is late by the work and the wake-up. \
            Sleeping until a deadline (`Thread.sleep(until:)` with start + n × interval) does not: the lateness of one tick is not carried into the next. \
            Part three: a thread takes a lock, has a `defer` to release it, and calls `Thread.exit()`. \
            The thread ends at once: the lines after the call never run, and neither does the `defer`, so the lock stays locked for ever. \
            `Thread.exit()` is almost never what you want; return from the closure instead. \
            (Sleeping to wait for another thread is a guess, never a synchronisation: the scenarios here use semaphores and conditions for that.)
            """,
            ja: """
            パート 1: `Thread.sleep(forTimeInterval:)` で `milliseconds` ms のスリープを 5 回、単調時計で測ります。\
            スリープは少なくとも指定した時間は続き、さらに少しだけ余分にかかります。スレッドを起こし、もう一度スケジュールする時間が要るからです。\
            パート 2: `milliseconds` ms ごとに刻み、1 回ごとに 3 ms の処理をするループです。\
            処理の後に間隔ぶんスリープすると、ずれが積み重なります。毎回、処理と起床の分だけ遅れるからです。\
            期限までスリープする（`Thread.sleep(until:)` に開始時刻 + n × 間隔を渡す）と、ずれは積み重なりません。1 回の遅れが次に持ち越されないからです。\
            パート 3: スレッドがロックを取り、解放する `defer` を書いたうえで `Thread.exit()` を呼びます。\
            スレッドはその場で終わります。呼び出しの後の行は動かず、`defer` も動かないので、ロックは永遠にかかったままです。\
            `Thread.exit()` が必要な場面はまずありません。クロージャから戻ってください。\
            （別のスレッドを待つためにスリープするのは当て推量であって、決して同期にはなりません。このワークブックのシナリオでは、そのためにセマフォや条件変数を使っています。）
            """),
        knobs: [
            .init("milliseconds", default: 10, range: 1...200, help: Localized("the sleep and the tick interval, in ms", ja: "スリープする時間と刻みの間隔（ms）")),
        ]
    ) { context in
        try await blocking { try runSleepAndExit(context) }
    }

    private static func runSleepAndExit(_ context: ScenarioContext) throws {
        let interval = context.knob("milliseconds")
        let lane = context.trace.currentThreadLane()

        // Part one: how long a sleep really lasts.
        context.say(Localized("1) Thread.sleep(forTimeInterval: \(interval) ms), five times:",
                              ja: "1) Thread.sleep(forTimeInterval: \(interval) ms) を 5 回:"))
        // On the timeline each part starts with its name, and its sleeps or ticks are numbered: one
        // word per span would stretch them, and here their lengths and spacing are the lesson.
        var overslept: [Double] = []
        context.trace.record(Localized("sleeps", ja: "スリープ"), lane: lane)
        for count in 1...5 {
            let before = MonotonicClock.now()
            context.trace.span("\(count)", lane: lane) { Thread.sleep(forTimeInterval: Double(interval) / 1_000) }
            overslept.append(Double(MonotonicClock.now() &- before) / 1_000_000 - Double(interval))
        }
        let least = overslept.min() ?? 0, most = overslept.max() ?? 0
        context.note("shortest oversleep ms", String(format: "%.3f", least))
        context.say(Localized(
            "  each sleep lasted \(String(format: "%.2f", least))–\(String(format: "%.2f", most)) ms longer than asked; never shorter.",
            ja: "  どのスリープも、指定した時間より \(String(format: "%.2f", least))〜\(String(format: "%.2f", most)) ms 長く続きました。短くなることはありません。"))

        // Part two: a steady tick, by interval and by deadline.
        let ticks = 5
        context.say(Localized("2) \(ticks) ticks of 3 ms work, every \(interval) ms:", ja: "2) \(interval) ms ごとに 3 ms の処理を \(ticks) 回:"))
        func drift(byDeadline: Bool) -> Double {
            let start = MonotonicClock.now(), startDate = Date()
            context.trace.record(byDeadline ? Localized("ticks by deadline", ja: "期限で刻む") : Localized("ticks by interval", ja: "間隔で刻む"), lane: lane)
            for tick in 1...ticks {
                context.trace.span("\(tick)", lane: lane) { spin(microseconds: 3_000) }
                if byDeadline {
                    Thread.sleep(until: startDate.addingTimeInterval(Double(tick * interval) / 1_000))
                } else {
                    Thread.sleep(forTimeInterval: Double(interval) / 1_000)
                }
            }
            return Double(MonotonicClock.now() &- start) / 1_000_000 - Double(ticks * interval)
        }
        let byInterval = drift(byDeadline: false), byDeadline = drift(byDeadline: true)
        context.note("drift by interval ms", String(format: "%.1f", byInterval))
        context.note("drift by deadline ms", String(format: "%.1f", byDeadline))
        context.say(Localized(
            """
              sleep(forTimeInterval:) after the work: \(ticks) ticks took \(String(format: "%.1f", byInterval)) ms more than \(ticks) × \(interval) ms.
              sleep(until: start + n × \(interval) ms):   \(ticks) ticks took \(String(format: "%.1f", byDeadline)) ms more.
            """,
            ja: """
              処理の後に sleep(forTimeInterval:): \(ticks) 回で \(ticks) × \(interval) ms より \(String(format: "%.1f", byInterval)) ms 長くかかりました。
              sleep(until: 開始 + n × \(interval) ms):   \(ticks) 回で \(String(format: "%.1f", byDeadline)) ms 長くかかりました。
            """))

        // Part three: Thread.exit() skips the rest, defers included.
        context.say(Localized("3) A thread takes a lock, defers the unlock, and calls Thread.exit():",
                              ja: "3) スレッドがロックを取り、解放を `defer` に書いて Thread.exit() を呼ぶ:"))
        let lock = NSLock()
        let reached = Locked<[String]>([])
        let aboutToExit = DispatchSemaphore(value: 0)
        let exiting = StartedThread {
            let lane = context.trace.currentThreadLane()
            lock.lock()
            defer {
                lock.unlock()
                reached.withLock { $0.append("defer") }
            }
            reached.withLock { $0.append("before exit") }
            context.trace.record("Thread.exit()", lane: lane)
            aboutToExit.signal()
            Thread.exit()
            reached.withLock { $0.append("after exit") }
        }
        try wait(for: aboutToExit, Localized("the thread did not reach Thread.exit()", ja: "スレッドが Thread.exit() に到達しませんでした"))
        // The thread's closure never returns, so `join` cannot tell; Foundation's flag can.
        let giveUp = MonotonicClock.now() + 2_000_000_000
        while !exiting.thread.isFinished && MonotonicClock.now() < giveUp { spin(microseconds: 100) }
        let lockFree = lock.lock(before: Date().addingTimeInterval(0.1))
        if lockFree { lock.unlock() }
        let ran = reached.current
        let shownParts = [
            "before exit": Localized("before exit", ja: "Thread.exit() の前"), "defer": .verbatim("defer"),
            "after exit": Localized("after exit", ja: "Thread.exit() の後"),
        ]
        let shownRan = Localized(ran.map { shownParts[$0]?.en ?? $0 }.joined(separator: ", "),
                                 ja: ran.map { shownParts[$0]?.ja ?? $0 }.joined(separator: "、"))
        context.note("after exit ran", String(ran.contains("after exit")))
        context.note("defer ran", String(ran.contains("defer")))
        context.note("lock free after exit", String(lockFree))
        context.say(Localized(
            """
              ran: \(shownRan.en). isFinished = \(exiting.thread.isFinished).
              The defer ran: \(ran.contains("defer")). Could T1 take the lock within 100 ms (lock(before:))? \(lockFree).
            """,
            ja: """
              動いた部分: \(shownRan.ja)。isFinished = \(exiting.thread.isFinished)。
              `defer` は動いたか: \(ran.contains("defer"))。T1 は 100 ms 以内にロックを取れたか（lock(before:)）: \(lockFree)。
            """))
        if !lockFree {
            context.say(Localized("  The lock is held by a thread that no longer exists: anyone who calls lock() now waits for ever.",
                                  ja: "  ロックはもう存在しないスレッドが持ったままです。これから lock() を呼ぶスレッドは永遠に待ちます。"))
        }
    }
}
