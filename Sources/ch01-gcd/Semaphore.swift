import Dispatch
import WorkbookCore

extension Chapter01 {
    /// DispatchSemaphore as a limit: at most `width` pieces of work in flight at once.
    static let semaphore = Scenario(
        slug: "semaphore",
        title: Localized("DispatchSemaphore: at most N in flight", ja: "DispatchSemaphore: 同時に N 個まで"),
        narration: Localized(
            """
            A semaphore created with value `width` hands out `width` permits. \
            Before starting each of `tasks` requests the caller takes a permit with `wait()`; each request gives its permit back with `signal()` when it completes, \
            so at most `width` are ever in flight. A request stands in for a network call: its reply arrives about 2 ms later on another thread. \
            Each lane of the timeline is one permit (slot 1 … width): a new request starts on a slot right after the previous one ended there. \
            A lock-protected counter measures the most requests in flight; it never exceeds `width`. \
            Note where the waiting happens: on the caller's own thread. Calling `wait()` inside blocks on a global queue instead parks pool threads, \
            and GCD may answer by starting more and more threads (thread explosion). (For CPU-bound blocks GCD already caps concurrency at the core count.)
            """,
            ja: """
            値 `width` で作ったセマフォは `width` 枚の許可証を配ります。\
            呼び出し元は `tasks` 個のリクエストそれぞれの前に `wait()` で許可証を取り、リクエストは完了時に `signal()` で返すので、同時に進行中のリクエストは `width` を超えません。\
            リクエストはネットワーク通信の代役で、約 2 ms 後に別のスレッドへ応答が届きます。\
            タイムラインの各レーンが許可証 1 枚分（枠 1 … `width`）で、ある枠でリクエストが終わるとすぐ次がそこで始まります。\
            ロックで守ったカウンタで進行中の最大数を測ります。`width` を超えることはありません。\
            待つのは呼び出し元自身のスレッドだという点に注目してください。\
            代わりにグローバルキューのブロックの中で `wait()` するとプールのスレッドが待ちで止まり、GCD がスレッドを増やし続ける（スレッド爆発）おそれがあります。\
            （CPU を使うだけのブロックなら、GCD がすでにコア数で同時実行を抑えています。）
            """),
        knobs: [
            .init("tasks", default: 12, range: 1...200, help: Localized("requests to run", ja: "実行するリクエストの数")),
            .init("width", default: 3, range: 1...16, help: Localized("permits: the most requests in flight at once", ja: "許可証の枚数（同時に進行できるリクエストの最大数）")),
        ]
    ) { context in
        try await blocking { try runSemaphore(context) }
    }

    /// The permits in use, for the timeline's lanes and the in-flight count.
    private struct Slots {
        var free: [Int]
        var inFlight = 0
        var maxInFlight = 0
    }

    /// How long a simulated request takes to answer.
    private static let requestLatency: DispatchTimeInterval = .milliseconds(2)

    /// The safe way to limit work in flight: the submitting thread waits for a permit before it
    /// starts each request, and each request returns its permit when it completes.
    ///
    /// The tempting way, `queue.async { permits.wait(); work(); permits.signal() }` for every
    /// task, also limits the work, but every waiting block parks a pool thread, and GCD may
    /// start more threads to make up for them.
    private static func runSemaphore(_ context: ScenarioContext) throws {
        let tasks = context.knob("tasks"), width = context.knob("width")
        let permits = DispatchSemaphore(value: width)
        let slots = Locked(Slots(free: Array(1...width)))
        let group = DispatchGroup()
        context.trace.record(Localized("start", ja: "開始"))

        for index in 1...tasks {
            // Waits on this (the caller's) thread while `width` requests are in flight.
            try wait(for: permits, Localized("no permit came back", ja: "許可証が戻ってきませんでした"))
            let slot = slots.withLock { state -> Int in
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                return state.free.removeFirst()
            }
            let lane = context.text(Localized("slot \(slot)", ja: "枠 \(slot)")), label = Localized("task \(index)", ja: "タスク \(index)")
            context.trace.begin(label, lane: lane)
            group.enter()
            // The request: its reply comes back later, on some other thread.
            DispatchQueue.global().asyncAfter(deadline: .now() + requestLatency) {
                context.trace.end(label, lane: lane)
                slots.withLock { state in
                    state.inFlight -= 1
                    state.free.append(slot)
                    state.free.sort()
                }
                permits.signal()  // after the bookkeeping, so the next request finds a free slot
                group.leave()
            }
        }
        try wait(for: group, Localized("the requests did not finish", ja: "リクエストが終わりませんでした"))

        let most = slots.current.maxInFlight
        context.note("max in flight", String(most))
        context.say(Localized(
            "\(tasks) requests, width \(width): at most \(most) were in flight at once.",
            ja: "リクエスト \(tasks) 個、width \(width): 同時に進行中だったのは最大 \(most) 個でした。"))
    }
}
