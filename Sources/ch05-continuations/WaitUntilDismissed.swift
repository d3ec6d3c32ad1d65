import Foundation
import WorkbookCore

/// A screen of a fake UI (no UIKit). The UI calls `onDismiss` once, when the screen goes.
@MainActor
final class FakeScreen {
    let title: String
    var onDismiss: (() -> Void)?
    /// Like UIKit's `viewDidDisappear(_:)`: runs each time the screen leaves the window — when it
    /// is dismissed, and also when a full-screen screen covers it. Not a "dismissed" signal.
    var onDisappear: (() -> Void)?
    /// Like UIKit's `isBeingDismissed`: true only while the screen is going away for good.
    fileprivate(set) var isBeingDismissed = false
    /// Like `presentingViewController != nil`: the presentation took place and has not ended.
    fileprivate(set) var isPresented = false

    init(title: String) { self.title = title }
}

/// A fake presenter shaped like UIKit's: `present(_:animated:completion:)` puts a screen up and
/// calls `completion` once it is on screen; `dismiss` takes it down and calls the screen's
/// `onDismiss`, once. Everything on the main actor, as UIKit is.
@MainActor
final class FakePresenter {
    typealias Log = @Sendable (_ label: Localized, _ lane: Localized) -> Void
    static let uiLane = Localized("main actor (UI)", ja: "メインアクター（UI）")

    private(set) var presented: FakeScreen?
    /// A full-screen screen presented over `presented`.
    private(set) var covering: FakeScreen?
    /// How many times `presentAndWaitUntilGone` has resumed its continuation.
    private(set) var resumesWhenGone = 0
    /// Fired each time a screen is on screen, so the scenario's "user" acts only then.
    private(set) var shown = OneShotSignal()
    private let log: Log

    init(log: @escaping Log) { self.log = log }

    /// Refused, as UIKit refuses it, while another screen is up: no completion, and the screen
    /// never appears, so it never disappears either.
    func present(_ screen: FakeScreen, animated: Bool, completion: (() -> Void)? = nil) {
        if presented != nil {  // UIKit logs "…which is already presenting…"
            log(Localized("present(\(screen.title)) refused", ja: "present(\(screen.title)) は拒否"), Self.uiLane)
            return
        }
        presented = screen
        screen.isPresented = true
        log(.verbatim("present(\(screen.title))"), Self.uiLane)
        completion?()
        shown.fire()
    }

    /// Presents `top` full screen over the presented screen, which leaves the window.
    func cover(with top: FakeScreen) {
        guard let under = presented, covering == nil else { return }
        covering = top
        log(Localized("present(\(top.title)), full screen", ja: "present(\(top.title))、フルスクリーン"), Self.uiLane)
        disappear(under)
    }

    func dismissCover() {
        guard let top = covering else { return }
        covering = nil
        log(.verbatim("dismiss(\(top.title))"), Self.uiLane)
    }

    private func disappear(_ screen: FakeScreen) {
        guard let handler = screen.onDisappear else { return }
        log(.verbatim("viewDidDisappear(\(screen.title))"), Self.uiLane)
        handler()
    }

    /// Takes the screen down (if it is the one on screen) and calls its `onDismiss`.
    func dismiss(_ screen: FakeScreen, animated: Bool) {
        guard presented === screen else { return }
        presented = nil
        screen.isPresented = false
        shown = OneShotSignal()
        log(.verbatim("dismiss(\(screen.title))"), Self.uiLane)
        screen.isBeingDismissed = true
        disappear(screen)
        screen.isBeingDismissed = false
        let handler = screen.onDismiss
        screen.onDismiss = nil                                  // once
        handler?()
        log(Localized("dismiss returns", ja: "dismiss() から戻る"), Self.uiLane)
    }

    /// Presents `screen` and returns once it has been dismissed, by whomever.
    ///
    /// The completion handler of `present` is not the moment to resume: the screen has just
    /// appeared. The dismiss handler is: this fake calls it once, when the screen goes for good.
    /// (UIKit's `viewDidDisappear` is not such a signal: see `presentAndWaitUntilGone`.)
    func presentAndWait(_ screen: FakeScreen) async {
        await withCheckedContinuation { continuation in
            screen.onDismiss = { [log] in
                log(.verbatim("onDismiss → resume()"), Self.uiLane)
                continuation.resume()
            }
            present(screen, animated: true)
        }
    }

    /// Resumes from the disappear hook, as code written against UIKit's `viewDidDisappear` does —
    /// but safely: a disappearance that is not a dismissal is ignored, the hook is cleared before
    /// the one resume, and a refused presentation (no hook will ever run) ends the wait at once.
    /// Returns whether the screen was shown.
    ///
    /// The unsafe way resumes on every call of the hook and never checks the presentation:
    ///
    ///     screen.onDisappear = { continuation.resume() }   // covered: resumes too early;
    ///     present(screen, animated: true)                  // dismissed later: resumes again (traps);
    ///                                                      // refused: never resumes
    func presentAndWaitUntilGone(_ screen: FakeScreen) async -> Bool {
        await withCheckedContinuation { continuation in
            screen.onDisappear = { [unowned screen, unowned self] in
                guard screen.isBeingDismissed else { return }     // covered, not gone: keep waiting
                screen.onDisappear = nil                          // clear first: resume once
                resumesWhenGone += 1
                continuation.resume(returning: true)
            }
            present(screen, animated: true)
            if !screen.isPresented {                              // refused: nothing will call the hook
                screen.onDisappear = nil
                continuation.resume(returning: false)
            }
        }
    }

    /// The same, ended by cancellation too: `onCancel` is not on the main actor (it runs on the
    /// canceller's thread), so it hops there to dismiss the screen, whose handler then resumes.
    func presentAndWaitCancellable(_ screen: FakeScreen) async {
        await withTaskCancellationHandler {
            await presentAndWait(screen)
        } onCancel: { [log] in
            log(.verbatim("onCancel"), Localized("caller", ja: "呼び出し元"))
            Task { @MainActor in self.dismiss(screen, animated: true) }
        }
    }
}

extension Chapter05 {
    /// "Wait until dismissed": a presentation API with completion handlers becomes one `async`
    /// call that returns when the screen goes.
    ///
    /// The callback way splits the caller in two:
    ///
    ///     screen.onDismiss = { self.reloadSettings() }
    ///     presenter.present(screen, animated: true)
    ///
    /// The async way reads in order: `await presenter.presentAndWait(screen); reloadSettings()`.
    static let waitUntilDismissed = Scenario(
        slug: "wait-until-dismissed",
        title: Localized("Wait until dismissed: a presentAsync for a screen", ja: "閉じられるまで待つ: 画面の presentAsync"),
        narration: Localized(
            """
            A fake UI (no UIKit), on the main actor as UIKit is: `present(_:animated:completion:)` puts a settings screen up and calls its completion once the screen is on screen; \
            when the screen goes, the UI calls the screen's `onDismiss` handler, once. \
            `presentAndWait(_:)` turns that into one `async` call: it stores a dismiss handler that resumes a continuation, then presents. \
            1) A task on the main actor presents the screen and awaits; a simulated user taps Close; the dismiss handler resumes the continuation, and the task continues after its `await`. \
            The timeline shows who presented (the task), who dismissed (the user, through the UI), and when the waiting task went on: only after the dismissal code had returned, \
            since the task needs the main actor, which that code was holding. \
            2) The waiting task is cancelled while the screen is up: nothing happens. A continuation does not listen for cancellation; the task waits until the user closes the screen. \
            3) `presentAndWaitCancellable(_:)` adds `withTaskCancellationHandler`: `onCancel` runs on the canceller's thread, not on the main actor, so it hops to the main actor to dismiss the screen, \
            and the dismiss handler, the one place that resumes, ends the wait. \
            4) The fake's `onDismiss` is a once-only signal; UIKit's `viewDidDisappear(_:)` is not. The screen also has a disappear hook like it, which runs whenever the screen leaves the window. \
            Code that resumes from it is counted here: a passcode screen presented full screen over settings calls it (settings is still up: too early), dismissing settings calls it again (a second resume traps), \
            and a presentation UIKit refuses ("already presenting") never calls it (the caller waits for ever). \
            5) `presentAndWaitUntilGone(_:)` resumes from the same hook safely: only when `isBeingDismissed` is true, after clearing the hook, and at once with `false` when the screen was never presented.
            """,
            ja: """
            フェイクの UI（UIKit なし）で、UIKit と同じくメインアクター上にあります。`present(_:animated:completion:)` が設定画面を表示し、画面が出たところで `completion` を呼びます。\
            画面が閉じられると、UI は画面の `onDismiss` ハンドラを 1 回だけ呼びます。\
            `presentAndWait(_:)` はそれを 1 つの `async` 呼び出しにします。継続を再開する `onDismiss` ハンドラを保存してから、画面を表示します。\
            1) メインアクター上のタスクが画面を表示して待ちます。ユーザー役が「閉じる」をタップし、`onDismiss` ハンドラが継続を再開し、タスクは `await` の後から続きます。\
            タイムラインには、誰が表示したか（タスク）、誰が閉じたか（UI を通してユーザー）、待っていたタスクがいつ先へ進んだかが出ます。\
            タスクはメインアクターを必要とし、閉じる処理がそれを握っているので、先へ進むのはその処理が戻った後です。\
            2) 画面が出ている間に、待っているタスクをキャンセルします。何も起きません。継続はキャンセルに反応しないので、タスクはユーザーが画面を閉じるまで待ちます。\
            3) `presentAndWaitCancellable(_:)` は `withTaskCancellationHandler` を加えます。`onCancel` はメインアクターではなくキャンセルした側のスレッドで動くので、\
            メインアクターへ移って画面を閉じます。そして、再開する唯一の場所である `onDismiss` ハンドラが待ちを終わらせます。\
            4) フェイクの `onDismiss` は 1 回だけ来る合図ですが、UIKit の `viewDidDisappear(_:)` は違います。画面には同じ性質の「消えたときのフック」もあり、画面がウィンドウから外れるたびに呼ばれます。\
            このフックで再開するコードの再開回数を数えます。設定画面の上にパスコード画面をフルスクリーンで表示すると呼ばれ（設定画面はまだ表示中なので早すぎる）、設定画面を閉じるともう一度呼ばれ（2 回目の再開はトラップする）、\
            UIKit が拒否する表示（「すでに別の画面を表示中」）では一度も呼ばれません（呼び出し元はいつまでも待つ）。\
            5) `presentAndWaitUntilGone(_:)` は同じフックから安全に再開します。`isBeingDismissed` が true のときだけ、フックを消してから再開し、画面が表示されなかったときはすぐに `false` で終えます。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: the user taps Close; the dismiss handler calls `continuation.resume()`, then `dismiss` returns. Which runs first: A) the task's line after `await presentAndWait(…)`, or B) the line after `resume()`, back in `dismiss`? (A or B)",
                ja: "パート 1: ユーザーが「閉じる」をタップし、`onDismiss` ハンドラが `continuation.resume()` を呼び、それから `dismiss` が戻ります。先に動くのはどちら？ A) タスクの `await presentAndWait(…)` の次の行、B) `resume()` の後の、`dismiss` に戻った行（A か B）"),
            explanation: Localized(
                "B. `resume()` does not run the waiting task; it makes it ready to run. The task is on the main actor, and the main actor is busy with `dismiss` until it returns, so the task goes on only after that.",
                ja: "B です。`resume()` は待っているタスクを実行するのではなく、実行できる状態にするだけです。タスクはメインアクター上にあり、メインアクターは `dismiss` が戻るまでふさがっているので、タスクが進むのはその後です。"),
            observe: { $0.noted("first after resume") ?? "" },
            isPossible: { $0 == "B" })
    ) { context in
        try await presentThenDismiss(context)
        try await cancelWhilePresented(context)
        try await cancelWithHandler(context)
        await disappearIsNotDismiss(context)
        try await resumeOnceFromDisappear(context)
    }

    private static let presentingTaskLane = Localized("task", ja: "タスク")
    private static let userLane = Localized("user", ja: "ユーザー")
    private static let notShown = Localized("the screen was not presented", ja: "画面が表示されませんでした")

    private static func presenter(_ context: ScenarioContext) async -> FakePresenter {
        await FakePresenter { label, lane in context.trace.record(label, lane: lane) }
    }

    // MARK: 1) Present, then the user dismisses

    private static func presentThenDismiss(_ context: ScenarioContext) async throws {
        context.say(Localized("1) The task presents and awaits; the user taps Close:", ja: "1) タスクが表示して待ち、ユーザーが「閉じる」をタップ:"))
        let presenter = await presenter(context)
        let task = Task { @MainActor in
            let screen = FakeScreen(title: "settings")
            context.trace.begin(.verbatim("await presentAndWait(settings)"), lane: presentingTaskLane)
            await presenter.presentAndWait(screen)
            context.trace.end(.verbatim("await presentAndWait(settings)"), lane: presentingTaskLane)
            context.trace.record(Localized("continues", ja: "続きを実行"), lane: presentingTaskLane)
            return screen
        }
        try await presenter.shown.wait(notShown)
        let screen = await presenter.presented
        context.trace.record(Localized("taps Close", ja: "「閉じる」をタップ"), lane: userLane)
        await MainActor.run {
            if let screen { presenter.dismiss(screen, animated: true) }
        }
        _ = await task.value
        let events = context.trace.events
        func index(_ label: String) -> Int { events.lastIndex { $0.label == label } ?? -1 }
        let taskFirst = index("continues") < index("dismiss returns")
        let order = ["present(settings)", "taps Close", "dismiss(settings)", "onDismiss → resume()", "dismiss returns", "continues"].map(index)
        let inOrder = order.allSatisfy { $0 >= 0 } && order == order.sorted()
        context.note("first after resume", taskFirst ? "A" : "B")
        context.note("dismiss order", String(inOrder))
        context.say(Localized(
            "  present → taps Close → dismiss → onDismiss → resume() → dismiss returns → the task continues: \(inOrder). After resume(), the first to run was \(taskFirst ? "the task" : "the rest of dismiss") (\(taskFirst ? "A" : "B")).",
            ja: "  present(settings) → 「閉じる」をタップ → dismiss(settings) → onDismiss → resume() → dismiss() から戻る → タスクが続く: \(inOrder)。resume() の後に最初に動いたのは、\(taskFirst ? "タスク" : "dismiss() の残り")（\(taskFirst ? "A" : "B")）。"))
    }

    // MARK: 2) Cancelled while presented: nothing happens

    private static func cancelWhilePresented(_ context: ScenarioContext) async throws {
        context.say(Localized("2) The waiting task is cancelled while the screen is up:", ja: "2) 画面が出ている間に、待っているタスクをキャンセル:"))
        let presenter = await presenter(context)
        let continued = Locked(false)
        let task = Task { @MainActor in
            let screen = FakeScreen(title: "settings")
            await presenter.presentAndWait(screen)
            continued.withLock { $0 = true }
            context.trace.record(Localized("continues, isCancelled=\(Task.isCancelled)", ja: "続きを実行、isCancelled=\(Task.isCancelled)"), lane: presentingTaskLane)
            return Task.isCancelled
        }
        try await presenter.shown.wait(notShown)
        context.trace.record(.verbatim("task.cancel()"), lane: Localized("caller", ja: "呼び出し元"))
        task.cancel()
        // A main-actor round trip: anything the cancel set going on the main actor has run by now.
        let stillUp = await MainActor.run { presenter.presented != nil }
        let continuedAfterCancel = continued.current
        context.trace.record(Localized("taps Close", ja: "「閉じる」をタップ"), lane: userLane)
        await MainActor.run {
            if let screen = presenter.presented { presenter.dismiss(screen, animated: true) }
        }
        let sawCancel = await task.value
        context.note("cancelled: screen still up", String(stillUp))
        context.note("cancelled: continued before Close", String(continuedAfterCancel))
        context.note("cancelled: isCancelled after", String(sawCancel))
        context.say(Localized(
            "  After cancel(): the screen was still up: \(stillUp); the task had continued: \(continuedAfterCancel). It continued only when the user closed the screen, and then saw isCancelled=\(sawCancel).",
            ja: "  cancel() の後: 画面はまだ出ていた: \(stillUp)。タスクは先へ進んでいた: \(continuedAfterCancel)。タスクはユーザーが画面を閉じたときにはじめて先へ進み、そこで isCancelled=\(sawCancel) を見た。"))
    }

    // MARK: 3) Cancelled, with a handler that dismisses

    private static func cancelWithHandler(_ context: ScenarioContext) async throws {
        context.say(Localized("3) The same cancel, with presentAndWaitCancellable (onCancel dismisses the screen):",
                              ja: "3) 同じキャンセルを presentAndWaitCancellable で（onCancel が画面を閉じる）:"))
        let presenter = await presenter(context)
        let task = Task { @MainActor in
            let screen = FakeScreen(title: "settings")
            await presenter.presentAndWaitCancellable(screen)
            context.trace.record(Localized("continues, isCancelled=\(Task.isCancelled)", ja: "続きを実行、isCancelled=\(Task.isCancelled)"), lane: presentingTaskLane)
        }
        try await presenter.shown.wait(notShown)
        context.trace.record(.verbatim("task.cancel()"), lane: Localized("caller", ja: "呼び出し元"))
        task.cancel()
        await task.value
        let screenGone = await MainActor.run { presenter.presented == nil }
        let events = context.trace.events
        let last = events.lastIndex { $0.label == "task.cancel()" } ?? 0
        let afterCancel = events[(last + 1)...].filter { !$0.label.hasPrefix("continues") }
        let after = afterCancel.map { $0.label(in: context.language) }
        context.note("handler: screen gone", String(screenGone))
        context.note("handler: order", afterCancel.map(\.label).joined(separator: " → "))
        context.say(Localized(
            "  After cancel(): \(after.joined(separator: " → ")) → the task continues. The screen is gone: \(screenGone).",
            ja: "  cancel() の後: \(after.joined(separator: " → ")) → タスクが続く。画面は閉じられた: \(screenGone)。"))
    }

    // MARK: 4) A disappear hook is not a dismiss signal

    private static let hookLane = Localized("disappear hook", ja: "消えたときのフック")

    /// The hook as code written against UIKit's `viewDidDisappear` often has it —
    /// `screen.onDisappear = { continuation.resume() }` — counted here instead of resuming a real
    /// continuation: a second real resume traps (scenario 3), a missing one waits for ever.
    private static func disappearIsNotDismiss(_ context: ScenarioContext) async {
        context.say(Localized("4) Resuming from a disappear hook (like UIKit's viewDidDisappear); the resumes are counted, not made:",
                              ja: "4) 消えたときのフック（UIKit の viewDidDisappear に相当）で再開すると（再開は数えるだけで、実際にはしない）:"))
        let presenter = await FakePresenter { _, _ in }  // the timeline shows the hook's resumes only
        let (resumes, firstWhileUp, resumesWhenRefused) = await MainActor.run { () -> (Int, Bool, Int) in
            var resumes = 0
            var firstWhileUp = false
            let settings = FakeScreen(title: "settings")
            settings.onDisappear = {
                resumes += 1
                if resumes == 1 { firstWhileUp = settings.isPresented }
                context.trace.record(.verbatim("resume() #\(resumes)"), lane: hookLane)
            }
            presenter.present(settings, animated: true)
            presenter.cover(with: FakeScreen(title: "passcode"))    // full screen over settings
            presenter.dismissCover()
            presenter.dismiss(settings, animated: true)
            settings.onDisappear = nil

            var resumesWhenRefused = 0
            let login = FakeScreen(title: "login")
            let refused = FakeScreen(title: "settings")
            refused.onDisappear = { resumesWhenRefused += 1 }
            presenter.present(login, animated: true)
            presenter.present(refused, animated: true)              // refused: login is up
            presenter.dismiss(login, animated: true)
            refused.onDisappear = nil
            return (resumes, firstWhileUp, resumesWhenRefused)
        }
        context.note("hook: resumes", String(resumes))
        context.note("hook: first resume while shown", String(firstWhileUp))
        context.note("hook: resumes when refused", String(resumesWhenRefused))
        context.say(Localized(
            "  The hook resumed \(resumes) times: when the passcode screen covered settings (settings still shown: \(firstWhileUp) — too early), and when settings was dismissed (a second resume traps). A refused presentation: \(resumesWhenRefused) resumes — the caller would wait for ever.",
            ja: "  フックは \(resumes) 回再開した。パスコード画面が設定画面を覆ったとき（設定画面はまだ表示中: \(firstWhileUp)。早すぎる）と、設定画面が閉じられたとき（2 回目の再開はトラップする）。表示が拒否されたとき: 再開 \(resumesWhenRefused) 回。呼び出し元はいつまでも待つ。"))
    }

    // MARK: 5) Once only, from the dismissal, and never from a refused presentation

    private static func resumeOnceFromDisappear(_ context: ScenarioContext) async throws {
        context.say(Localized("5) presentAndWaitUntilGone: resume only when isBeingDismissed, clear the hook first, and end at once if the presentation is refused:",
                              ja: "5) presentAndWaitUntilGone: isBeingDismissed のときだけ再開し、先にフックを消し、表示が拒否されたらすぐに終える:"))
        let presenter = await FakePresenter { _, _ in }  // the timeline shows the task only
        let continued = Locked(false)
        let task = Task { @MainActor in
            let shown = await presenter.presentAndWaitUntilGone(FakeScreen(title: "settings"))
            continued.withLock { $0 = true }
            context.trace.record(Localized("continues, shown=\(shown)", ja: "続きを実行、shown=\(shown)"), lane: presentingTaskLane)
            return shown
        }
        try await presenter.shown.wait(notShown)
        await MainActor.run { presenter.cover(with: FakeScreen(title: "passcode")) }
        // A main-actor round trip: a task the cover had resumed would have run by now.
        let continuedWhileCovered = await MainActor.run { continued.current }
        await MainActor.run {
            presenter.dismissCover()
            if let settings = presenter.presented { presenter.dismiss(settings, animated: true) }
        }
        let shown = await task.value

        let refusedResult = await MainActor.run { () -> Task<Bool, Never> in
            presenter.present(FakeScreen(title: "login"), animated: true)
            return Task { @MainActor in await presenter.presentAndWaitUntilGone(FakeScreen(title: "settings")) }
        }
        let shownWhenRefused = await refusedResult.value
        await MainActor.run { if let login = presenter.presented { presenter.dismiss(login, animated: true) } }

        let resumes = await presenter.resumesWhenGone
        context.note("once: continued while covered", String(continuedWhileCovered))
        context.note("once: resumes", String(resumes))
        context.note("once: shown", String(shown))
        context.note("once: shown when refused", String(shownWhenRefused))
        context.say(Localized(
            "  Covered by the passcode screen: the task continued: \(continuedWhileCovered). Dismissed: \(resumes) resume, shown=\(shown). Refused (login was up): the call returned at once, shown=\(shownWhenRefused).",
            ja: "  パスコード画面に覆われたとき: タスクは先へ進んだ: \(continuedWhileCovered)。閉じられたとき: 再開 \(resumes) 回、shown=\(shown)。拒否されたとき（ログイン画面が表示中）: 呼び出しはすぐに戻った、shown=\(shownWhenRefused)。"))
    }
}
