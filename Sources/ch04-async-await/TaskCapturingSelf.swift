import ExerciseKit
import Foundation
import WorkbookCore

/// Counts a task's ticks and lets the scenario wait for the n-th one, so it drops its reference
/// or cancels at a known tick instead of after a guessed sleep.
private final class Ticks: Sendable {
    private let state = Locked((count: 0, signals: [Int: OneShotSignal]()))

    var count: Int { state.withLock { $0.count } }

    private func signal(_ number: Int) -> OneShotSignal {
        state.withLock { state in
            if let signal = state.signals[number] { return signal }
            let signal = OneShotSignal()
            state.signals[number] = signal
            return signal
        }
    }

    /// Counts one tick and returns its number.
    func tick() -> Int {
        let number = state.withLock { state -> Int in
            state.count += 1
            return state.count
        }
        signal(number).fire()
        return number
    }

    func wait(for number: Int) async throws {
        try await signal(number).wait(Localized("the task did not tick \(number) times", ja: "タスクが \(number) 回動きませんでした"))
    }
}

/// A screen's model that starts tasks on itself, in four ways; its `deinit` is logged on its lane.
@MainActor
private final class GalleryModel {
    private let lane: Localized
    private let context: ScenarioContext
    private let ticks: Ticks
    private let gone: OneShotSignal
    private(set) var image: ImageData?

    init(lane: Localized, context: ScenarioContext, ticks: Ticks, gone: OneShotSignal) {
        self.lane = lane
        self.context = context
        self.ticks = ticks
        self.gone = gone
    }

    deinit {
        context.trace.record(Localized("deinit", ja: "解放された"), lane: lane)
        gone.fire()
    }

    /// One refresh: counts a tick, shown by its number.
    private func refresh() {
        let number = ticks.tick()
        context.trace.record(.verbatim("\(number)"), lane: lane)
    }

    /// Loads once. The task keeps `self` until it ends, and then lets go: no `[weak self]` needed.
    func load(from server: ThumbnailServer) -> Task<Void, Never> {
        Task {
            context.trace.begin(Localized("load", ja: "読み込み"), lane: lane)
            do {
                image = try await server.data(for: "cat").0
            } catch {
                image = nil
            }
            context.trace.end(Localized("load", ja: "読み込み"), lane: lane)
        }
    }

    /// Wrong: refreshes until cancelled, holding `self` strongly all that time. Dropping every
    /// other reference to the model does not end it; only `cancel()` does.
    func refreshHoldingSelf(every interval: Duration) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                self.refresh()
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
    }

    /// Also wrong: `[weak self]`, but made strong once, before the loop, and held by the loop.
    func refreshStrongBeforeLoop(every interval: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            guard let self else { return }
            while !Task.isCancelled {
                self.refresh()
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
    }

    /// Right: `[weak self]`, made strong inside each iteration only. Once the model is gone,
    /// the next iteration finds `nil` and the loop ends by itself.
    func refreshStrongPerIteration(every interval: Duration) -> Task<Void, Never> {
        let context = self.context, lane = self.lane
        return Task { [weak self] in
            while !Task.isCancelled {
                guard let self else {
                    context.trace.record(Localized("self is nil: stop", ja: "nil なので終了"), lane: lane)
                    return
                }
                self.refresh()
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
    }
}

extension Chapter04 {
    /// A task holds what its closure captures until the task ends: for a task that ends, that is
    /// fine; for a task that loops, `self` lives as long as the loop.
    ///
    /// The leak:
    ///
    ///     Task {
    ///         while !Task.isCancelled { self.refresh(); try await Task.sleep(for: .seconds(1)) }
    ///     }
    ///
    /// The fix, if nothing cancels the task when the owner goes (scenario 10 cancels it instead):
    ///
    ///     Task { [weak self] in
    ///         while !Task.isCancelled {
    ///             guard let self else { return }     // strong for this iteration only
    ///             self.refresh()
    ///             try await Task.sleep(for: .seconds(1))
    ///         }
    ///     }
    static let taskCapturingSelf = Scenario(
        slug: "task-captures-self",
        title: Localized("A Task capturing self: when it leaks", ja: "`self` をキャプチャする Task: リークするのはどんなときか"),
        narration: Localized(
            """
            A task keeps everything its closure captures until the task ends. A `@MainActor` model starts a task on itself in four ways; \
            each time the caller then drops its only reference (`viewModel = nil`), and the model's `deinit` is logged on its lane. \
            1) The task loads once and ends: `deinit` is logged right after the load finishes. \
            No leak and no `[weak self]` needed: the task lets go of `self` when it ends, and keeping the model until the load lands is usually what you want. \
            2) The task refreshes every `interval` ms until it is cancelled, using `self`: after `viewModel = nil` it goes on ticking, \
            and `deinit` does not come for `ticks` more ticks, nor ever, until the caller cancels the task. \
            If the model also kept the task in a property, that would be a reference cycle, broken only by the task's end. \
            3) `[weak self]`, then `guard let self` before the loop: `self` is strong again for the whole loop, the same leak. \
            4) `[weak self]` and `guard let self` inside the loop: strong for one iteration at a time. \
            The model goes as soon as the caller lets go (at the end of an iteration at the latest), and the next iteration finds `nil` and ends the loop. \
            Better still, the owner cancels the task when it goes away (scenario 10).
            """,
            ja: """
            タスクは、クロージャがキャプチャしたものを、タスクが終わるまで保持します。`@MainActor` のモデルが自分自身を使うタスクを 4 通りの書き方で始めます。\
            そのたびに呼び出し元は唯一の参照を手放し（`viewModel = nil`）、モデルの `deinit` をそのレーンに記録します。\
            1) 1 回だけ読み込んで終わるタスク: 読み込みが終わった直後に `deinit` が記録されます。\
            リークはなく、`[weak self]` も要りません。タスクは終わるときに `self` を手放しますし、読み込みが届くまでモデルを生かしておくのはたいてい望ましい動きです。\
            2) キャンセルされるまで `interval` ms ごとに `self` を使って更新するタスク: `viewModel = nil` の後も動き続け、\
            `ticks` 回動いても `deinit` は来ません。呼び出し元がタスクをキャンセルするまで、いつまでも来ません。\
            モデルがそのタスクをプロパティにも保持していれば循環参照になり、タスクが終わるまで解消されません。\
            3) `[weak self]` の後、ループの前で `guard let self`: ループの間ずっと `self` が強参照に戻り、同じリークになります。\
            4) `[weak self]` とループの中での `guard let self`: 強参照になるのは 1 回の繰り返しの間だけです。\
            呼び出し元が手放すとモデルはすぐに（遅くともその繰り返しの終わりに）解放され、次の繰り返しが `nil` を見てループを終えます。\
            さらによいのは、持ち主がいなくなるときにタスクをキャンセルすることです（シナリオ 10）。
            """),
        knobs: [
            .init("ticks", default: 3, range: 1...20, help: Localized("ticks to wait for a deinit after viewModel = nil", ja: "`viewModel = nil` の後、`deinit` を待つ回数")),
            .init("interval", default: 2, range: 1...50, help: Localized("milliseconds between two refreshes", ja: "更新の間隔（ミリ秒）")),
        ]
    ) { context in
        try await runTaskCapturingSelf(context)
    }

    private enum Loop: String, CaseIterable {
        case holdingSelf = "2", strongBeforeLoop = "3", strongPerIteration = "4"
    }

    @MainActor
    private static func runTaskCapturingSelf(_ context: ScenarioContext) async throws {
        let caller = Localized("caller", ja: "呼び出し元")
        let goneTooLate = Localized("the model's deinit did not come", ja: "モデルの `deinit` が来ませんでした")

        // 1) A task that ends.
        context.say(Localized("1) A task that loads once and sets `self.image`, then `viewModel = nil`:",
                              ja: "1) 1 回読み込んで `self.image` に入れるタスクの後に `viewModel = nil`:"))
        let loaded = OneShotSignal()
        var viewModel: GalleryModel? = GalleryModel(lane: Localized("model 1", ja: "モデル 1"), context: context, ticks: Ticks(), gone: loaded)
        let server = ThumbnailServer(replies: ["cat": .image], latency: .milliseconds(5))
        let load = viewModel?.load(from: server)
        context.trace.record(.verbatim("viewModel = nil"), lane: caller)
        viewModel = nil
        await load?.value
        try await loaded.wait(goneTooLate)
        let events = context.trace.events
        let loadEnd = events.last { $0.label == "load" && $0.kind == .end }?.sequence ?? Int.max
        let deinitAt = events.last { $0.label == "deinit" }?.sequence ?? -1
        context.note("1 deinit after task ended", String(deinitAt > loadEnd))
        context.say(Localized("  `deinit` came after the task ended: \(deinitAt > loadEnd).",
                              ja: "  `deinit` はタスクが終わった後に来た: \(deinitAt > loadEnd)。"))

        // 2) to 4) Tasks that loop.
        let extra = context.knob("ticks")
        let interval = Duration.milliseconds(context.knob("interval"))
        for loop in Loop.allCases {
            let ticks = Ticks(), gone = OneShotSignal()
            let lane = Localized("model \(loop.rawValue)", ja: "モデル \(loop.rawValue)")
            viewModel = GalleryModel(lane: lane, context: context, ticks: ticks, gone: gone)
            let task: Task<Void, Never>?
            switch loop {
            case .holdingSelf:
                context.say(Localized("2) A loop that calls `self.refresh()` until the task is cancelled:",
                                      ja: "2) タスクがキャンセルされるまで `self.refresh()` を呼ぶループ:"))
                task = viewModel?.refreshHoldingSelf(every: interval)
            case .strongBeforeLoop:
                context.say(Localized("3) The same loop with `[weak self]`, and `guard let self` before the loop:",
                                      ja: "3) 同じループで `[weak self]`、ループの前で `guard let self`:"))
                task = viewModel?.refreshStrongBeforeLoop(every: interval)
            case .strongPerIteration:
                context.say(Localized("4) The same loop with `[weak self]`, and `guard let self` inside the loop:",
                                      ja: "4) 同じループで `[weak self]`、ループの中で `guard let self`:"))
                task = viewModel?.refreshStrongPerIteration(every: interval)
            }
            defer { task?.cancel() }  // never leave a loop running, whatever happens below
            try await ticks.wait(for: 1)
            context.trace.record(.verbatim("viewModel = nil"), lane: caller)
            viewModel = nil

            if loop == .strongPerIteration {
                try await gone.wait(goneTooLate)
                await task?.value
                let after = ticks.count - 1
                context.note("4 ticks after drop", String(after))
                context.note("4 ended by itself", "true")
                context.say(Localized(
                    "  `deinit` came without a cancel(), after \(after) more tick(s); the next iteration found `self` nil and ended the loop.",
                    ja: "  cancel() なしで `deinit` が来た（その後の更新は \(after) 回）。次の繰り返しが `self` を nil と見てループを終えた。"))
                continue
            }
            try await ticks.wait(for: 1 + extra)
            let leaked = !gone.hasFired
            context.note("\(loop.rawValue) leaked for ticks", String(leaked))
            context.trace.record(.verbatim("task.cancel()"), lane: caller)
            task?.cancel()
            await task?.value
            try await gone.wait(goneTooLate)
            context.note("\(loop.rawValue) deinit after cancel", "true")
            context.say(Localized(
                "  After `viewModel = nil`: \(ticks.count - 1) more ticks, `deinit` \(leaked ? "not yet" : "already"); the scenario then cancelled the task, and `deinit` came.",
                ja: "  `viewModel = nil` の後: さらに \(ticks.count - 1) 回更新、`deinit` は\(leaked ? "まだ来ない" : "すでに来た")。そこでシナリオがタスクをキャンセルすると、`deinit` が来た。"))
        }
    }
}
