import WorkbookCore
import WorkbookExplorer

extension Chapter06 {
    /// `debounce`, written small: a value is passed on once `interval` has passed with no newer
    /// value; a newer value drops the one waiting. When the input finishes, the one waiting goes.
    static func debounce(_ input: AsyncStream<String>, for interval: Duration, clock: ExplorerClock) -> AsyncStream<String> {
        let (output, continuation) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            var waiting: Task<Void, Never>?
            for await value in input {
                waiting?.cancel()                                   // a newer value: drop the older
                waiting = Task {
                    guard (try? await clock.sleep(for: interval)) != nil else { return }
                    continuation.yield(value)
                }
            }
            await waiting?.value
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return output
    }

    /// The search screen's view model, on the main actor: the text field feeds `queryChanged`;
    /// `run()` is the endless loop that searches each debounced query.
    @MainActor
    final class SearchViewModel {
        private(set) var results: [String] = []
        private let queries: AsyncStream<String>
        private let input: AsyncStream<String>.Continuation
        private let interval: Duration
        private let log: VirtualLog
        let loopEnded = Locked(false)

        init(interval: Duration, log: VirtualLog) {
            (queries, input) = AsyncStream.makeStream(of: String.self)
            self.interval = interval
            self.log = log
        }

        func queryChanged(_ query: String) { input.yield(query) }

        /// Never ends on its own: only when its task is cancelled (or the input finishes).
        func run() async {
            let clock = ExplorerClock(), lane = Localized("search", ja: "検索")
            for await query in debounce(queries, for: interval, clock: clock) {
                let start = log.nanoseconds
                try? await clock.sleep(for: .milliseconds(20))              // the search service
                results = ["\(query) 1", "\(query) 2"]
                log.span(.verbatim("search(\"\(query)\")"), lane: lane, from: start)
            }
            loopEnded.withLock { $0 = true }
        }
    }

    /// What the user types, and when (virtual ms).
    static let typingScript: [(Int, String)] = [(0, "s"), (100, "sw"), (200, "swi"), (1_000, "swif"), (1_100, "swift")]

    /// A screen types `typingScript` and closes at 2000 ms. `keepsTask`: the screen keeps the
    /// loop's task and cancels it when it closes; otherwise the loop runs in a `Task {}` that
    /// nobody keeps. Returns `searches=… loopEnded=… viewModelFreed=…`.
    static func searchScreen(keepsTask: Bool, interval: Int, log: VirtualLog) async -> String {
        let clock = ExplorerClock(), start = ExplorerClock().now
        let typing = Localized("typing", ja: "入力"), screen = Localized("screen", ja: "画面")
        var model: SearchViewModel? = await SearchViewModel(interval: .milliseconds(interval), log: log)
        let freed = WeakReference(model)
        let loopEnded = model!.loopEnded
        let task: Task<Void, Never>
        if keepsTask {
            task = Task { [model] in await model?.run() }   // the screen keeps this
        } else {
            Task { [model] in await model?.run() }          // nobody keeps it: the screen cannot stop it
            task = Task {}
        }
        for (time, text) in typingScript {
            try? await clock.sleep(until: start.advanced(by: .milliseconds(time)))
            log.point(.verbatim("\"\(text)\""), lane: typing)
            await model?.queryChanged(text)
        }
        try? await clock.sleep(until: start.advanced(by: .milliseconds(2_000)))
        log.point(Localized(keepsTask ? "closed: task.cancel()" : "closed", ja: keepsTask ? "閉じた: task.cancel()" : "閉じた"), lane: screen)
        task.cancel()
        await task.value
        model = nil
        try? await clock.sleep(for: .milliseconds(100))
        let searches = log.labels(on: Localized("search", ja: "検索")).count
        return "searches=\(searches) loopEnded=\(loopEnded.current) viewModelFreed=\(freed.object == nil)"
    }

    static let searchDebounce = Scenario(
        slug: "search-debounce",
        title: Localized("A search field: debounce, and a loop the screen owns", ja: "検索欄: `debounce` と、画面が持つループ"),
        narration: Localized(
            """
            The user types "s", "sw", "swi" 100 ms apart, pauses, then "swif", "swift"; the screen closes at 2000 ms. In virtual time (`ExplorerClock`). \
            The view model is `@MainActor`: the results it sets are UI state. Its `run()` is a `for await` over the debounced queries: \
            a query is searched only after `interval` ms without typing, so one search per pause. \
            That loop never ends on its own: the query stream stays open as long as the view model lives. \
            1) The screen keeps the loop's task and cancels it when it closes (SwiftUI's `.task {}` does the same): the loop ends and the view model is freed. \
            2) The loop runs in a `Task {}` nobody keeps: after the screen closed, the loop still waits, and the task still holds the view model.
            """,
            ja: """
            ユーザーが "s"、"sw"、"swi" を 100 ms 間隔で入力し、少し止まってから "swif"、"swift" を入力します。画面は 2000 ms に閉じます。仮想時間（`ExplorerClock`）で実行します。\
            ビューモデルは `@MainActor` です。設定する結果は UI の状態だからです。その `run()` は `debounce` したクエリに対する `for await` です。\
            クエリは入力が `interval` ms 止まってから検索されるので、止まるたびに検索は 1 回です。\
            このループは自分では終わりません。ビューモデルが生きている限り、クエリのストリームは開いたままだからです。\
            1) 画面がループのタスクを持ち、閉じる時にキャンセルします（SwiftUI の `.task {}` も同じことをします）。ループが終わり、ビューモデルは解放されます。\
            2) ループを誰も持たない `Task {}` で動かします。画面が閉じた後もループは待ち続け、タスクはビューモデルを保持したままです。
            """),
        knobs: [.init("interval", default: 500, range: 50...900, help: Localized("debounce interval, ms", ja: "`debounce` の間隔（ms）"))]
    ) { context in
        let interval = context.knob("interval")
        let kept = VirtualLog(), loose = VirtualLog()
        let owned = await inVirtualTime { await searchScreen(keepsTask: true, interval: interval, log: kept) }
        let unowned = await inVirtualTime { await searchScreen(keepsTask: false, interval: interval, log: loose) }
        draw(kept.events, on: context.trace)
        context.note("kept task", owned.outcomeText)
        context.note("loose task", unowned.outcomeText)
        context.note("searched", kept.labels(on: Localized("search", ja: "検索")).joined(separator: " "))
        context.say(Localized(
            """
            Searched: \(searchedList(kept, ", ", none: "nothing")).
            1) The screen keeps the task and cancels it: \(owned.outcomeText).
            2) A Task {} nobody keeps: \(unowned.outcomeText).
            """,
            ja: """
            検索したもの: \(searchedList(kept, "、", none: "なし"))。
            1) 画面がタスクを持ち、キャンセルする: \(owned.outcomeText)。
            2) 誰も持たない `Task {}`: \(unowned.outcomeText)。
            """))
    }
}

/// The queries searched, as the scenario's summary lists them.
private func searchedList(_ log: VirtualLog, _ separator: String, none: String) -> String {
    let searched = log.labels(on: Localized("search", ja: "検索"))
    return searched.isEmpty ? none : searched.joined(separator: separator)
}

/// Watches an object without keeping it alive (`weak let` needs Swift 6.2).
private final class WeakReference<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object?) { self.object = object }
}
