import WorkbookCore
import WorkbookExplorer

/// A fake of UIKit's modal presentation, on the main actor: one screen at a time. Presenting
/// while a screen is up is refused — UIKit logs "already presenting" and calls nothing back — so
/// a flow that awaits the refused screen's dismissal never resumes. The user closes each screen
/// 10 ms after it appears.
@MainActor final class ScreenPresenter {
    private let clock = ExplorerClock()
    private(set) var shown: [String] = []
    private(set) var refused: [String] = []
    private var onScreen: CheckedContinuation<Void, Never>?
    /// The refused screens' continuations: nobody will resume them (until `cleanUp`).
    private var neverDismissed: [CheckedContinuation<Void, Never>] = []

    nonisolated init() {}

    /// Presents `screen` and returns once the user has dismissed it.
    func present(_ screen: String) async {
        await withCheckedContinuation { dismissed in
            guard onScreen == nil else {
                refused.append(screen)
                neverDismissed.append(dismissed)
                checkpoint(Localized("\(screen) refused: already presenting", ja: "\(screen) は拒否された: すでに表示中"))
                return
            }
            onScreen = dismissed
            shown.append(screen)
            checkpoint(Localized("\(screen) on screen", ja: "\(screen) を表示"))
            Task {
                nameTask(Localized("user", ja: "ユーザー"))
                try? await clock.sleep(for: .milliseconds(10))
                checkpoint(Localized("user closes \(screen)", ja: "ユーザーが \(screen) を閉じる"))
                onScreen?.resume()
                onScreen = nil
            }
        }
    }

    var summary: String {
        "shown=\(shown.joined(separator: ",")) refused=\(refused.isEmpty ? "none" : refused.joined(separator: ",")) stuck=\(neverDismissed.count)"
    }

    /// Resumes the flows left waiting, so that a run leaves nothing behind.
    func cleanUp() {
        for continuation in neverDismissed { continuation.resume() }
        neverDismissed = []
    }
}

/// The racy way: each gift starts a flow — a rank-up screen, then a reward screen — in a task
/// stored in `task`, overwriting the one running. Two flows then run at once on the main actor,
/// interleaving at every `await`.
@MainActor final class GiftScreen {
    private let presenter: ScreenPresenter
    private var task: Task<Void, Never>?

    nonisolated init(presenter: ScreenPresenter) { self.presenter = presenter }

    func giftArrived(_ gift: Int) {
        task = Task { await showRankUp(gift) }           // the previous flow keeps running
    }

    private func showRankUp(_ gift: Int) async {
        nameTask(Localized("flow \(gift)", ja: "フロー \(gift)"))
        await presenter.present("rankup\(gift)")
        await presenter.present("reward\(gift)")
    }
}

/// The safe way: triggers are queued. Each flow's task awaits the one before it, so one flow
/// runs at a time, in the order the gifts arrived.
@MainActor final class QueuedGiftScreen {
    private let presenter: ScreenPresenter
    private var task: Task<Void, Never>?

    nonisolated init(presenter: ScreenPresenter) { self.presenter = presenter }

    func giftArrived(_ gift: Int) {
        task = Task { [previous = task] in
            await previous?.value                         // the flow before this one ends first
            await showRankUp(gift)
        }
    }

    private func showRankUp(_ gift: Int) async {
        nameTask(Localized("flow \(gift)", ja: "フロー \(gift)"))
        await presenter.present("rankup\(gift)")
        await presenter.present("reward\(gift)")
    }
}

extension Chapter08 {
    /// Gift 1 arrives at 0 ms; gift 2 at 10 ms, as the user closes the first screen. Returns
    /// `shown=… refused=… stuck=…`.
    static func giftsArrive(queued: Bool) async -> String {
        let presenter = ScreenPresenter()
        let arrived: @Sendable (Int) async -> Void
        if queued {
            let screen = QueuedGiftScreen(presenter: presenter)
            arrived = { await screen.giftArrived($0) }
        } else {
            let screen = GiftScreen(presenter: presenter)
            arrived = { await screen.giftArrived($0) }
        }
        nameTask(Localized("gifts", ja: "ギフト"))
        checkpoint(Localized("gift 1 arrives", ja: "ギフト 1 が届く"))
        await arrived(1)
        try? await ExplorerClock().sleep(for: .milliseconds(10))
        checkpoint(Localized("gift 2 arrives", ja: "ギフト 2 が届く"))
        await arrived(2)
        await untilQuiet()                                  // every flow done, or stuck
        let summary = await presenter.summary
        // Not part of the story: nothing in an app would resume a refused screen's flow.
        checkpoint(Localized("outcome taken; the scenario now frees stuck flows", ja: "結果を記録。以後はシナリオが止まったフローを解放"))
        await presenter.cleanUp()
        await untilQuiet()
        return summary
    }

    @Sendable static func overwrittenTaskFlows() async throws -> String { await giftsArrive(queued: false) }

    static func classifyFlows(_ outcome: String) -> OutcomeTally.Verdict {
        outcome.contains("refused=none stuck=0") ? .acceptable : .forbidden
    }

    static let presentationFlow = Scenario(
        slug: "main-actor-presentation",
        title: Localized("Main-actor reentrancy: a second flow while the first is presenting", ja: "メインアクターでの再入: 1 つ目の表示中に始まる 2 つ目のフロー"),
        narration: Localized(
            """
            A `@MainActor` screen shows a rank-up flow for each gift: a rank-up screen, then a reward screen, each awaited until the user closes it (10 ms). \
            The presenter shows one screen at a time and refuses another while one is up (`already presenting`), calling nothing back. \
            Gift 1 arrives at 0 ms; gift 2 at 10 ms, as the user closes the first screen. \
            1) `self.task = Task { … }` for each gift, without cancelling the one running. 2) Triggers queued: each flow's task awaits the previous one. Both explored.
            """,
            ja: """
            `@MainActor` の画面が、ギフトごとにランクアップのフローを表示します。ランクアップの画面、次に報酬の画面を表示し、それぞれユーザーが閉じる（10 ms）まで await します。\
            表示役は一度に 1 つの画面しか表示せず、表示中は別の画面を拒否し（`already presenting`）、何もコールバックしません。\
            ギフト 1 は 0 ms に、ギフト 2 はユーザーが最初の画面を閉じる 10 ms に届きます。\
            1) ギフトごとに `self.task = Task { … }`。実行中のタスクはキャンセルしない。2) きっかけを順に並べる: 各フローのタスクが前のタスクを await する。どちらも探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: gift 2's flow starts while gift 1's flow is still running on the main actor. Everything is on one actor. Can a screen be refused, and its flow wait for ever? A) no: the main actor runs one flow at a time B) yes: the two flows interleave at their awaits",
                ja: "パート 1: ギフト 1 のフローがまだメインアクターで動いている間に、ギフト 2 のフローが始まります。すべて 1 つのアクターの上です。画面が拒否され、そのフローが永遠に待つことはある？ A) ない。メインアクターはフローを 1 つずつ実行する B) ある。2 つのフローが await のところで交互に進む"),
            explanation: Localized(
                "B. The main actor runs one job at a time, and each `await present(…)` ends a job. Gift 2's flow ran between gift 1's screens; whichever presented second was refused, and the flow that awaited it never resumed. Queue the flows, or cancel the previous one and let it finish before the next presents.",
                ja: "B です。メインアクターは一度に 1 つのジョブを実行し、`await present(…)` のたびにジョブが終わります。ギフト 2 のフローがギフト 1 の画面の間に動き、後から表示しようとした方が拒否され、それを待ったフローは二度と再開しませんでした。フローを順に並べるか、前のフローをキャンセルし、それが終わってから次を表示します。"),
            observe: { ($0.noted("overwritten forbidden") ?? "0") == "0" ? "A" : "B" },
            isPossible: { $0 == "B" })
    ) { context in
        let racy = await explore(classify: classifyFlows, overwrittenTaskFlows)
        context.show(racy, Localized("1) `self.task = Task { … }` per gift", ja: "1) ギフトごとに `self.task = Task { … }`"), game: 5, key: "overwritten")
        let queued = await explore(classify: classifyFlows) { await giftsArrive(queued: true) }
        context.show(queued, Localized("2) Each flow awaits the previous one", ja: "2) 各フローが前のフローを await する"), key: "queued")
        context.say(Localized(
            "   The refused flow's continuation was never resumed: its task waits for ever and keeps what it captured (`self`, the screen) alive. Cancelling the previous task instead works only if the flow stops presenting when cancelled, and the next one waits for it to wind down.",
            ja: "   拒否されたフローの継続は再開されませんでした。そのタスクは永遠に待ち、キャプチャしたもの（`self`、画面）を生かし続けます。代わりに前のタスクをキャンセルする方法は、キャンセルされたフローが表示をやめ、次のフローがそれの終わるのを待つときにだけ正しく動きます。"))
    }
}
