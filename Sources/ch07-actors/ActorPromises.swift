import Dispatch
import Foundation
import WorkbookCore

/// Counts how many bodies are inside at once: the highest number is what part 1 reports.
final class InFlight: Sendable {
    private let state = Locked((now: 0, most: 0))
    func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
    var most: Int { state.current.most }
}

/// Part 1: the same body in an actor and in a plain class. The body's 1 ms of "work" is a sleep,
/// so that a body waiting inside lets any other caller in — and shows whether something keeps it out.
actor PrinterActor {
    private let executor = QueueExecutor(label: "printer")   // the sleeping job parks this queue's thread, not the pool's
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func job(_ inFlight: InFlight) {
        inFlight.enter()
        usleep(1_000)
        inFlight.leave()
    }
}

final class PrinterClass: Sendable {
    func job(_ inFlight: InFlight) {
        inFlight.enter()
        usleep(1_000)
        inFlight.leave()
    }
}

/// Part 2: jobs enqueued on an actor while it is busy, at different priorities.
actor PriorityLog {
    private(set) var order: [String] = []

    /// Creates four tasks while this method holds the actor. Each uses `self`, so each is
    /// isolated to this actor: its first job waits in the actor's queue until the method returns.
    func enqueueWhileBusy() -> [Task<Void, Never>] {
        [(".low 1", TaskPriority.low), (".medium", .medium), (".high", .high), (".low 2", .low)].map { name, priority in
            Task(priority: priority) { self.order.append(name) }
        }
    }
}

/// Part 3: a method that awaits inside the actor.
actor PhotoLibrary {
    private(set) var log: [String] = []

    func load(_ name: String, network: OneShotSignal, started: OneShotSignal? = nil) async throws {
        log.append("\(name): start")
        started?.fire()
        try await network.wait(Localized("the network did not answer", ja: "ネットワークが応答しませんでした"))  // suspends: the actor is free
        log.append("\(name): end")
    }
}

/// Part 4: a method that waits for a continuation nobody resumes, and one that blocks its thread.
actor Downloader {
    private var pending: CheckedContinuation<Void, Never>?
    private let executor = QueueExecutor(label: "downloader")   // the blocking job parks this queue's thread, not the pool's
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func waitForReply() async {
        await withCheckedContinuation { pending = $0 }   // nobody resumes it (until the scenario cleans up)
    }

    func ping() -> String { "pong" }

    /// Blocks the thread that runs this job: the actor can run nothing else meanwhile.
    func holdThread(until gate: DispatchSemaphore, entered: OneShotSignal) {
        entered.fire()
        _ = gate.wait(timeout: .now() + 5)
    }

    func cleanUp() {
        pending?.resume()
        pending = nil
    }
}

extension Chapter07 {
    static let actorPromises = Scenario(
        slug: "what-an-actor-promises",
        title: Localized("What an actor promises, and what it does not", ja: "アクターが約束すること、しないこと"),
        narration: Localized(
            """
            An actor runs one job at a time on its state. It does not promise first-in, first-out, it is reentrant, and it cannot save a caller from a wait that never ends. \
            1) One at a time: the same body (a 1 ms sleep standing for work) called `callers` times at once, in an actor (from tasks) and in a plain class (from threads released together); the most bodies inside at the same moment. \
            2) Not FIFO: four jobs enqueued on a busy actor at priorities `.low`, `.medium`, `.high`, `.low`; the order they ran. \
            3) Reentrant: A's `load()` awaits the network inside the actor; B calls `load()` meanwhile. \
            4) A continuation nobody resumes: the caller waits for ever, although the actor is free; and a blocking wait inside an actor holds it for everyone.
            """,
            ja: """
            アクターは自分の状態に対して一度に 1 つのジョブしか実行しません。ただし先入れ先出しは約束せず、再入可能で、終わらない待ちから呼び出し元を救うこともできません。\
            1) 一度に 1 つ: 同じ処理（仕事の代わりの 1 ms のスリープ）を同時に `callers` 回、アクター（タスクから）と普通のクラス（同時に走らせたスレッドから）で呼びます。同時に中にいた処理の最大数を見ます。\
            2) FIFO ではない: 忙しいアクターに優先度 `.low`、`.medium`、`.high`、`.low` の順で 4 つのジョブを積み、実行された順序を見ます。\
            3) 再入: A の `load()` がアクターの中でネットワークを await している間に、B が `load()` を呼びます。\
            4) 誰も再開しない継続: アクターは空いているのに、呼び出し元は永遠に待ちます。また、アクターの中でのブロッキング待ちは、全員を止めます。
            """),
        knobs: [.init("callers", default: 8, range: 2...64, help: Localized("calls of the body made at once", ja: "同時に行う処理の呼び出しの数"))],
        prediction: .init(
            question: Localized(
                "Part 3: A's load() awaits the network inside the actor; meanwhile B calls load() on the same actor. What happens? A) B waits until A's load() returns B) B runs while A is suspended, and A ends after it C) they deadlock",
                ja: "パート 3: A の load() がアクターの中でネットワークを await しています。その間に B が同じアクターの load() を呼びます。どうなる？ A) B は A の load() が戻るまで待つ B) A がサスペンドしている間に B が動き、A はその後に終わる C) デッドロックする"),
            explanation: Localized(
                "B. An `await` inside an actor method gives the actor up until the awaited work is done: other calls run in between (reentrancy). That avoids deadlocks between actors, but the state A saw before its `await` may have changed when it resumes — chapter 08 is about that.",
                ja: "B です。アクターのメソッド内の `await` は、待っている処理が終わるまでアクターを手放します。その間に他の呼び出しが動きます（再入）。これでアクター同士のデッドロックは避けられますが、A が `await` の前に見た状態は、再開したときには変わっているかもしれません。第 08 章はそれを扱います。"),
            observe: { $0.noted("reentrancy letter") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        await oneAtATime(context)
        await notFIFO(context)
        try await reentrant(context)
        try await waitsThatNeverEnd(context)
    }

    // MARK: 1) One at a time

    private static func oneAtATime(_ context: ScenarioContext) async {
        let callers = context.knob("callers")
        let actorInFlight = InFlight(), classInFlight = InFlight()
        let printer = PrinterActor(), plain = PrinterClass()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<callers { group.addTask { await printer.job(actorInFlight) } }
        }
        try? await blocking {   // threads of their own, released together
            let arrived = Locked(0)
            let group = DispatchGroup()
            for _ in 0..<callers {
                group.enter()
                Thread.detachNewThread {
                    arrived.withLock { $0 += 1 }
                    let giveUp = MonotonicClock.now() + 100_000_000
                    while arrived.current < callers && MonotonicClock.now() < giveUp {}
                    plain.job(classInFlight)
                    group.leave()
                }
            }
            group.wait()
        }
        context.note("actor most in flight", String(actorInFlight.most))
        context.note("class most in flight", String(classInFlight.most))
        context.say(Localized(
            "1) \(callers) callers at once: inside the actor's job (called from \(callers) tasks) at the same moment, at most \(actorInFlight.most); inside the plain class's method (called from \(callers) threads released together, on \(ProcessInfo.processInfo.activeProcessorCount) cores), at most \(classInFlight.most).",
            ja: "1) \(callers) 個の呼び出し元が同時に: アクターのジョブ（\(callers) 個のタスクから）の中に同時にいたのは最大 \(actorInFlight.most)。普通のクラスのメソッド（同時に走らせた \(callers) 本のスレッドから。コアは \(ProcessInfo.processInfo.activeProcessorCount) 個）の中では最大 \(classInFlight.most)。"))
        context.trace.record(Localized("actor: at most \(actorInFlight.most) inside", ja: "アクター: 同時に最大 \(actorInFlight.most)"), lane: Localized("one at a time", ja: "一度に 1 つ"))
    }

    // MARK: 2) Not FIFO

    private static func notFIFO(_ context: ScenarioContext) async {
        let log = PriorityLog()
        let tasks = await log.enqueueWhileBusy()
        for task in tasks { await task.value }
        let order = await log.order
        context.note("priority order", order.joined(separator: ", "))
        context.say(Localized(
            "2) Enqueued on the busy actor: .low 1, .medium, .high, .low 2. Ran: \(order.joined(separator: ", ")). The actor picks the waiting job of highest priority; SE-0306 promises no order at all.",
            ja: "2) 忙しいアクターに積んだ順: .low 1、.medium、.high、.low 2。実行された順: \(order.joined(separator: "、"))。アクターは待っているジョブのうち優先度の最も高いものを選びます。SE-0306 は順序を何も約束していません。"))
        let lane = Localized("busy actor", ja: "忙しいアクター")
        for name in order { context.trace.record(.verbatim(name), lane: lane) }
    }

    // MARK: 3) Reentrant

    private static func reentrant(_ context: ScenarioContext) async throws {
        let library = PhotoLibrary()
        let networkA = OneShotSignal(), networkB = OneShotSignal(), startedA = OneShotSignal()
        networkB.fire()   // B's network answers at once
        let a = Task { try await library.load("A", network: networkA, started: startedA) }
        try await startedA.wait(Localized("A did not start", ja: "A が始まりませんでした"))
        let b = Task { try await library.load("B", network: networkB) }
        try await b.value        // B runs to its end while A is suspended inside the actor
        networkA.fire()
        try await a.value
        let log = await library.log
        context.note("reentrancy log", log.joined(separator: ", "))
        context.note("reentrancy letter", log == ["A: start", "B: start", "B: end", "A: end"] ? "B" : log.first == "A: start" && log.dropFirst().first == "A: end" ? "A" : "?")
        let logJa = log.map { $0.replacingOccurrences(of: ": start", with: ": 開始").replacingOccurrences(of: ": end", with: ": 終了") }
        context.say(Localized("3) The actor's log: \(log.joined(separator: ", ")). B ran between A's start and A's end: A's `await` let it in.",
                              ja: "3) アクターのログ: \(logJa.joined(separator: "、"))。B は A の開始と終了の間に動きました。A の `await` が B を入れたのです。"))
        let lanes = ["A": Localized("load A", ja: "A の load()"), "B": Localized("load B", ja: "B の load()")]
        for entry in log {
            let name = String(entry.prefix(1))
            let ja = entry.hasSuffix("start") ? "\(name): 開始" : "\(name): 終了"
            context.trace.record(Localized(entry, ja: ja), lane: lanes[name] ?? .verbatim(name))
        }
    }

    // MARK: 4) Waits that never end

    private static func waitsThatNeverEnd(_ context: ScenarioContext) async throws {
        let downloader = Downloader()
        let lane = Localized("caller", ja: "呼び出し元")
        let returned = Locked(false)
        let waiting = Task {
            await downloader.waitForReply()
            returned.withLock { $0 = true }
        }
        context.trace.begin(Localized("await waitForReply()", ja: "waitForReply() を await"), lane: lane)
        // The actor stays free: a ping answers while the first caller is still waiting.
        var pingTimes: [Double] = []
        var pingAnswer = ""
        for _ in 0..<5 {
            let start = MonotonicClock.now()
            pingAnswer = await downloader.ping()
            pingTimes.append(microseconds(from: start, to: MonotonicClock.now()))
        }
        try? await Task.sleep(for: .milliseconds(200))   // a wait that should have ended long ago
        let stillWaiting = !returned.current
        context.note("never resumed: still waiting", String(stillWaiting))
        context.say(Localized(
            "4) A caller awaits a continuation nobody resumes. After 200 ms it is still waiting: \(stillWaiting). Meanwhile ping() answered \"\(pingAnswer)\" in \(formatMicros(median(pingTimes))): the actor is free; only the caller is stuck, for ever.",
            ja: "4) 呼び出し元が、誰も再開しない継続を await します。200 ms 後もまだ待っている: \(stillWaiting)。その間 ping() は \(formatMicros(median(pingTimes))) で \"\(pingAnswer)\" と答えました。アクターは空いていて、止まっているのは呼び出し元だけです。永遠に。"))
        await downloader.cleanUp()   // the scenario resumes it, so nothing leaks
        await waiting.value
        context.trace.end(Localized("await waitForReply()", ja: "waitForReply() を await"), lane: lane)

        // A blocking wait inside an actor job holds the actor: the next call waits for it.
        let gate = DispatchSemaphore(value: 0)
        let entered = OneShotSignal()
        let holder = Task { await downloader.holdThread(until: gate, entered: entered) }
        try await entered.wait(Localized("the holder did not start", ja: "ブロックする側が始まりませんでした"))  // it holds the actor now
        // The gate opens 100 ms after the ping is about to be sent, however late that is.
        let aboutToPing = OneShotSignal()
        openGate(gate, milliseconds: 100, after: aboutToPing)
        aboutToPing.fire()
        let pingStart = MonotonicClock.now()
        _ = await downloader.ping()
        let blockedFor = microseconds(from: pingStart, to: MonotonicClock.now()) / 1_000
        await holder.value
        context.note("ping behind a blocking job ms", String(Int(blockedFor)))
        context.say(Localized(
            "   A job that blocks its thread (a semaphore wait of 100 ms) holds the actor: a ping sent meanwhile answered after \(Int(blockedFor)) ms. Actors avoid deadlocks between actor calls by being reentrant; they do not make a wait end.",
            ja: "   スレッドをブロックするジョブ（100 ms のセマフォ待ち）はアクターを占有します。その間に送った `ping()` が答えたのは \(Int(blockedFor)) ms 後でした。アクターは再入可能にすることでアクター呼び出し同士のデッドロックを避けますが、待ちを終わらせてはくれません。"))
        context.trace.record(Localized("ping() after \(Int(blockedFor)) ms", ja: "\(Int(blockedFor)) ms 後に ping() が応答"), lane: lane)
    }
}

/// `0.4 µs`, `12 µs`, or `1.2 ms` from a millisecond up.
func formatMicros(_ value: Double) -> String {
    if value < 10 { return String(format: "%.1f µs", value) }
    return value < 1_000 ? String(format: "%.0f µs", value) : String(format: "%.1f ms", value / 1_000)
}
