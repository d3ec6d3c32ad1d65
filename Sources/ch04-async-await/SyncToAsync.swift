import ExerciseKit
import Foundation
import WorkbookCore

/// A screen of thumbnails, shaped like a `UIViewController` without UIKit: the system calls its
/// synchronous lifecycle methods, and it starts async work from them.
///
/// The way that lets work outlive the screen starts a task and forgets it:
///
///     func viewDidAppear() { Task { await loadThumbnails() } }
///
/// The way that ties the work to the screen keeps the task and cancels it:
///
///     func viewDidAppear() { loadTask = Task { await loadThumbnails() } }
///     func viewDidDisappear() { loadTask?.cancel(); loadTask = nil }
@MainActor
private final class ThumbnailsViewController {
    private let server: ThumbnailServer
    private let ids: [String]
    private let keepsTask: Bool
    private let context: ScenarioContext
    private let screen: Localized, work: Localized
    /// Fired when this many thumbnails are on screen, so the scenario leaves at a known point.
    private let leaveAfter: Int, enoughShown: OneShotSignal
    /// Fired when the loading task ends, however it ends.
    private let finished: OneShotSignal

    private var loadTask: Task<Void, Never>?
    private var isVisible = false
    private(set) var shownWhileVisible = 0, shownWhileGone = 0
    private(set) var stoppedBy: String?

    init(keepsTask: Bool, server: ThumbnailServer, ids: [String], context: ScenarioContext, part: Int,
         leaveAfter: Int, enoughShown: OneShotSignal, finished: OneShotSignal) {
        self.keepsTask = keepsTask
        self.server = server
        self.ids = ids
        self.context = context
        self.screen = Localized("screen \(part)", ja: "画面 \(part)")
        self.work = Localized("task \(part)", ja: "タスク \(part)")
        self.leaveAfter = leaveAfter
        self.enoughShown = enoughShown
        self.finished = finished
    }

    /// Synchronous, as UIKit calls it: it cannot `await`, so it starts a task and returns.
    func viewDidAppear() {
        context.trace.span(.verbatim("viewDidAppear"), lane: screen) {
            isVisible = true
            if keepsTask {
                loadTask = Task { await loadThumbnails() }
            } else {
                Task { await loadThumbnails() }
            }
        }
    }

    func viewDidDisappear() {
        context.trace.record(.verbatim("viewDidDisappear"), lane: screen)
        isVisible = false
        loadTask?.cancel()
        loadTask = nil
    }

    /// Fetches, decodes and shows each thumbnail in turn. After each `await` the screen may be
    /// gone: `checkCancellation()` stops before touching it if the task was cancelled meanwhile.
    private func loadThumbnails() async {
        defer { finished.fire() }
        for id in ids {
            context.trace.begin(.verbatim(id), lane: work)
            do {
                let (data, _) = try await server.data(for: id)
                let thumbnail = await Picture(data: data)?.thumbnail
                try Task.checkCancellation()
                context.trace.end(.verbatim(id), lane: work)
                if thumbnail != nil { show() }
            } catch {
                context.trace.end(.verbatim(id), lane: work)
                stoppedBy = "\(type(of: error))"
                context.trace.record(.verbatim("\(type(of: error))"), lane: work)
                return
            }
        }
    }

    /// "Puts a thumbnail in a cell": counted by whether the screen was still there.
    private func show() {
        if isVisible { shownWhileVisible += 1 } else { shownWhileGone += 1 }
        if shownWhileVisible + shownWhileGone == leaveAfter { enoughShown.fire() }
    }
}

extension Chapter04 {
    /// Synchronous code (a lifecycle method, a delegate callback) enters async code with
    /// `Task {}`; keeping the task is what lets the same object stop it.
    static let syncToAsync = Scenario(
        slug: "sync-to-async",
        title: Localized("From synchronous code into async: start a Task, keep it, cancel it", ja: "同期コードから async へ: Task を始め、保持し、キャンセルする"),
        narration: Localized(
            """
            UIKit calls `viewDidAppear` and `viewDidDisappear`, and delegates such as `searchBar(_:textDidChange:)`, synchronously: they cannot `await`. \
            To start async work there, they create a `Task {}`, which inherits the main actor, and return at once. \
            The task cannot start before the method returns (it needs the main actor, which the method holds): \
            on the timeline the `viewDidAppear` bar ends before the first request begins. \
            A fake view controller (no UIKit) loads `thumbnails` thumbnails one after another from the chapter's `ThumbnailServer` (10 ms per request), \
            and the screen is left after two are shown. \
            1) The controller keeps its task in a property and cancels it in `viewDidDisappear`: the request in flight throws `CancellationError`, \
            nothing more is shown, and no more requests are made. \
            2) The controller starts the same task and does not keep it: nothing can cancel it. Every remaining request is made and every thumbnail is put on a screen that is gone, \
            and the task keeps the controller alive until it ends (scenario 9). \
            A delegate callback does the same: keep the task, and cancel the previous one before starting the next (`searchTask?.cancel()`). \
            After each `await`, the loop calls `try Task.checkCancellation()` before touching the screen, since the screen may have gone while it waited.
            """,
            ja: """
            UIKit は `viewDidAppear` や `viewDidDisappear`、`searchBar(_:textDidChange:)` のようなデリゲートメソッドを同期的に呼ぶので、その中では `await` できません。\
            そこで非同期の処理を始めるには `Task {}` を作ります。タスクはメインアクターを引き継ぎ、メソッドはすぐに戻ります。\
            タスクはメソッドが戻るまで始まりません（メソッドが握っているメインアクターが必要だからです）。\
            タイムラインでは、`viewDidAppear` のバーが終わってから最初のリクエストが始まります。\
            フェイクのビューコントローラ（UIKit なし）が、本章の `ThumbnailServer` から `thumbnails` 枚のサムネイルを 1 枚ずつ読み込み（1 リクエスト 10 ms）、\
            2 枚表示したところで画面を離れます。\
            1) コントローラがタスクをプロパティに保持し、`viewDidDisappear` でキャンセルする場合: 進行中のリクエストが `CancellationError` をスローし、\
            それ以上は表示されず、リクエストも送られません。\
            2) 同じタスクを始めるが保持しない場合: キャンセルする手段がありません。残りのリクエストはすべて送られ、サムネイルはすべて、もうない画面に表示され、\
            タスクが終わるまでコントローラも解放されません（シナリオ 9）。\
            デリゲートメソッドでも同じです。タスクを保持し、次のタスクを始める前に前のタスクをキャンセルします（`searchTask?.cancel()`）。\
            ループは `await` のたびに、画面に触れる前に `try Task.checkCancellation()` を呼びます。待っている間に画面がなくなっているかもしれないからです。
            """),
        knobs: [
            .init("thumbnails", default: 6, range: 3...20, help: Localized("thumbnails the screen loads", ja: "画面が読み込むサムネイルの枚数")),
        ]
    ) { context in
        try await runSyncToAsync(context)
    }

    @MainActor
    private static func runSyncToAsync(_ context: ScenarioContext) async throws {
        let count = context.knob("thumbnails")
        let ids = (1...count).map { "p\($0)" }
        for (part, keepsTask) in [(1, true), (2, false)] {
            context.say(keepsTask
                ? Localized("1) loadTask = Task { ... } in viewDidAppear, loadTask?.cancel() in viewDidDisappear:",
                            ja: "1) viewDidAppear で loadTask = Task { ... }、viewDidDisappear で loadTask?.cancel():")
                : Localized("2) Task { ... } in viewDidAppear, not kept:", ja: "2) viewDidAppear で Task { ... }、保持しない:"))
            let server = ThumbnailServer(replies: Dictionary(uniqueKeysWithValues: ids.map { ($0, .image) }), latency: .milliseconds(10))
            let enoughShown = OneShotSignal(), finished = OneShotSignal()
            let controller = ThumbnailsViewController(keepsTask: keepsTask, server: server, ids: ids, context: context, part: part,
                                                      leaveAfter: 2, enoughShown: enoughShown, finished: finished)
            let from = context.trace.nextSequence
            controller.viewDidAppear()
            try await enoughShown.wait(Localized("the screen did not show two thumbnails", ja: "画面にサムネイルが 2 枚表示されませんでした"))
            let left = MonotonicClock.now()
            controller.viewDidDisappear()
            try await finished.wait(Localized("the loading task did not end", ja: "読み込みタスクが終わりませんでした"))
            let ranOn = MonotonicClock.now() - left

            let events = context.trace.events.filter { $0.sequence >= from }
            let appearEnd = events.first { $0.label == "viewDidAppear" && $0.kind == .end }?.sequence ?? Int.max
            let firstRequest = events.first { $0.label == "p1" && $0.kind == .begin }?.sequence ?? -1
            let requests = server.requests.count
            context.note("\(part) appear returned first", String(appearEnd < firstRequest))
            context.note("\(part) shown while visible", String(controller.shownWhileVisible))
            context.note("\(part) shown after leaving", String(controller.shownWhileGone))
            context.note("\(part) requests", String(requests))
            context.note("\(part) stopped by", controller.stoppedBy ?? "nothing")
            let stop = controller.stoppedBy.map {
                Localized("the task stopped with \($0) \(formatDuration(nanoseconds: ranOn)) after viewDidDisappear",
                          ja: "タスクは viewDidDisappear の \(formatDuration(nanoseconds: ranOn)) 後に \($0) で止まった")
            } ?? Localized("the task ran on for \(formatDuration(nanoseconds: ranOn)) after viewDidDisappear",
                           ja: "タスクは viewDidDisappear の後も \(formatDuration(nanoseconds: ranOn)) 動き続けた")
            context.say(Localized(
                "  viewDidAppear returned before the task began: \(appearEnd < firstRequest). Shown on screen: \(controller.shownWhileVisible); shown after the screen was gone: \(controller.shownWhileGone); requests: \(requests) of \(count); \(stop.en).",
                ja: "  viewDidAppear はタスクが始まる前に戻った: \(appearEnd < firstRequest)。画面にいる間の表示: \(controller.shownWhileVisible) 枚、画面がなくなった後の表示: \(controller.shownWhileGone) 枚、リクエスト: \(count) 件中 \(requests) 件。\(stop.ja)。"))
        }
    }
}
