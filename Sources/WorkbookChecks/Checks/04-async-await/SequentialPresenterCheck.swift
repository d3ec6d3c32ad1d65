import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 04-async-await/SequentialPresenter under the explorer, on a fresh host and a
/// fresh answer per schedule. The host's users dismiss each screen after its reading time
/// (virtual time), so a cancel that comes at the same moment as a dismissal is tried on both
/// sides of it; the check waits until nothing else can run (`untilQuiet`) before it judges the
/// host's record.
///
/// 1. `present(A)`: A is presented once and the call returns only after A was dismissed.
/// 2. `presentAll([A, B, C])`: present A, A dismissed, present B, …, nothing else; one screen up
///    at a time; the call returns after C was dismissed.
/// 3. `presentAll` cancelled at once, when A's user dismisses it, while B is up, inside
///    `host.present(B)` before B goes up (as a cancel from another thread can land between the
///    answer's last look and the screen going up), and while C (the last) is up; `present(A)`
///    cancelled while A is up: no screen is presented after the cancel; the screen up then is dismissed by the code, not left for its
///    user; nothing stays up; the call throws `CancellationError`.
public enum SequentialPresenterCheck {
    public static let oneAtATime = Property(
        id: "overlap",
        name: Localized("one screen at a time", ja: "画面は一度に 1 つ"),
        rule: Localized("A screen is presented only after the one before it was dismissed: never two up at once.",
                        ja: "画面は、前の画面が閉じられてから表示される。2 つが同時に表示されることはない。"))
    public static let inOrder = Property(
        id: "out-of-order",
        name: Localized("every screen, once, in order", ja: "すべての画面を 1 回ずつ順に"),
        rule: Localized("Not cancelled, `presentAll` presents each screen once, in the order given.",
                        ja: "キャンセルされなければ、`presentAll` は各画面を渡された順に 1 回ずつ表示する。"))
    public static let waitsForDismissal = Property(
        id: "returned-early",
        name: Localized("returns once the screen is dismissed", ja: "画面が閉じられてから戻る"),
        rule: Localized("`present` returns only after its screen was dismissed, `presentAll` only after the last one was.",
                        ja: "`present` は画面が閉じられた後にだけ戻り、`presentAll` は最後の画面が閉じられた後にだけ戻る。"))
    public static let stopsWhenCancelled = Property(
        id: "shown-after-cancel",
        name: Localized("no screen after a cancel", ja: "キャンセル後に画面を表示しない"),
        rule: Localized("Once the task is cancelled, no further screen is presented — except the one already on its way as the cancel landed, which the code dismisses at once.",
                        ja: "タスクがキャンセルされたら、それ以上の画面は表示されない。例外は、キャンセルが届いた時点で表示しかけていた画面で、コードがすぐに閉じる。"))
    public static let dismissesOnCancel = Property(
        id: "left-on-screen",
        name: Localized("a cancel dismisses the screen that is up", ja: "キャンセルで表示中の画面を閉じる"),
        rule: Localized("The screen up when the task is cancelled is dismissed by the code at once — not left until its user closes it — and nothing stays up.",
                        ja: "タスクがキャンセルされた時に表示中の画面は、コードによってすぐに閉じられる（ユーザーが閉じるまで残さない）。表示されたままの画面はない。"))
    public static let cancellationThrown = Property(
        id: "cancel-lost",
        name: Localized("a cancelled call throws CancellationError", ja: "キャンセルされた呼び出しは CancellationError をスローする"),
        rule: Localized("A call cancelled before its last screen was dismissed throws `CancellationError`.",
                        ja: "最後の画面が閉じられる前にキャンセルされた呼び出しは `CancellationError` をスローする。"))
    public static let neverLeftWaiting = Property(
        id: "left-waiting",
        name: Localized("no path leaves the caller waiting", ja: "呼び出し元を待たせたままにする経路がない"),
        rule: Localized("Every dismissal — by the user or by the code — resumes the waiting call: it returns or throws on every path.",
                        ja: "ユーザーによるものもコードによるものも、すべての閉じる操作が待っている呼び出しを再開する。どの経路でも戻るかスローする。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [oneAtATime, inOrder, waitsForDismissal, stopsWhenCancelled, dismissesOnCancel, cancellationThrown,
                                    neverLeftWaiting, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget(maxSchedules: 3_000, maxSeconds: 0.2, foreignWaitSeconds: 0.5)
    static let screens = [Screen("A", readingTime: .milliseconds(10)), Screen("B", readingTime: .milliseconds(20)),
                          Screen("C", readingTime: .milliseconds(10))]
    static let ok = "ok"

    public static func run(_ make: @escaping @Sendable (ScreenHost) -> any SequentialPresenterProtocol) -> CheckResult {
        let failure = checkPresentOne(make)
            ?? checkPresentAll(make)
            ?? checkCancelled(make, .atOnce)
            ?? checkCancelled(make, .asTheUserDismissesA)
            ?? checkCancelled(make, .whileBIsUp)
            ?? checkCancelled(make, .asBIsPresented)
            ?? checkCancelled(make, .whileCIsUp)
            ?? checkCancelled(make, .whileTheOnlyScreenIsUp)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: Cases

    static func checkPresentOne(_ make: @escaping @Sendable (ScreenHost) -> any SequentialPresenterProtocol) -> CheckFailure? {
        explore(.verbatim("`try await present(A)`")) {
            let host = ScreenHost()
            do {
                try await make(host).present(screens[0])
            } catch {
                return brokenOutcome(inOrder, notCancelledButThrew(error))
            }
            checkpoint("present(A) ↩")
            let atReturn = host.events
            await untilQuiet()
            return judgeUncancelled(host.events, atReturn: atReturn, expected: [screens[0]])
        }
    }

    static func checkPresentAll(_ make: @escaping @Sendable (ScreenHost) -> any SequentialPresenterProtocol) -> CheckFailure? {
        explore(.verbatim("`try await presentAll([A, B, C])`")) {
            let host = ScreenHost()
            do {
                try await make(host).presentAll(screens)
            } catch {
                return brokenOutcome(inOrder, notCancelledButThrew(error))
            }
            checkpoint("presentAll([A, B, C]) ↩")
            let atReturn = host.events
            await untilQuiet()
            return judgeUncancelled(host.events, atReturn: atReturn, expected: screens)
        }
    }

    /// Not cancelled: each screen presented, then dismissed by its user, in order; the call
    /// returned after the last dismissal.
    static func judgeUncancelled(_ events: [ScreenHost.Event], atReturn: [ScreenHost.Event], expected: [Screen]) -> String {
        if let overlap = overlap(events) { return brokenOutcome(oneAtATime, overlap) }
        let presented = events.filter { $0.kind == .presented }.map(\.screen)
        if presented != expected.map(\.name) { return brokenOutcome(inOrder, Localized("presented \(presented.joined(separator: ", "))", ja: "\(presented.joined(separator: ", ")) を表示した")) }
        if let up = shownAt(atReturn).first { return brokenOutcome(waitsForDismissal, Localized("returned while \(up) was up", ja: "\(up) の表示中に戻った")) }
        return ok
    }

    enum CancelMoment {
        case atOnce, asTheUserDismissesA, whileBIsUp, asBIsPresented, whileCIsUp, whileTheOnlyScreenIsUp
        var call: Localized {
            let all = "`let task = Task { try await presentAll([A, B, C]) }`"
            switch self {
            case .atOnce: return .verbatim("`let task = Task { try await presentAll([A, B, C]) }; task.cancel()`")
            case .asTheUserDismissesA: return Localized("\(all), `task.cancel()` as A's user dismisses it (10 ms)", ja: "\(all)、A のユーザーが閉じる瞬間（10 ms）に `task.cancel()`")
            case .whileBIsUp: return Localized("\(all), `task.cancel()` while B is up", ja: "\(all)、B の表示中に `task.cancel()`")
            case .asBIsPresented: return Localized("\(all), `task.cancel()` landing inside `host.present(B)`, before B goes up", ja: "\(all)、B が表示される前の `host.present(B)` の中で `task.cancel()`")
            case .whileCIsUp: return Localized("\(all), `task.cancel()` while C, the last, is up", ja: "\(all)、最後の C の表示中に `task.cancel()`")
            case .whileTheOnlyScreenIsUp: return Localized("`let task = Task { try await present(A) }`, `task.cancel()` while A is up", ja: "`let task = Task { try await present(A) }`、A の表示中に `task.cancel()`")
            }
        }
        /// The screens the call shows when not cancelled.
        var screens: [Screen] { self == .whileTheOnlyScreenIsUp ? [SequentialPresenterCheck.screens[0]] : SequentialPresenterCheck.screens }
    }

    static func checkCancelled(_ make: @escaping @Sendable (ScreenHost) -> any SequentialPresenterProtocol, _ moment: CancelMoment) -> CheckFailure? {
        explore(moment.call, budget: moment == .asBIsPresented ? .onceFromAnotherThread : budget) {
            let host = ScreenHost()
            let presenter = make(host)
            let task: Task<Void, any Error>
            if moment == .whileTheOnlyScreenIsUp {
                nameNextTasks("present")
                task = Task { try await presenter.present(screens[0]) }
            } else {
                nameNextTasks("presentAll")
                task = Task { try await presenter.presentAll(screens) }
            }
            let landing = CancelLanding()
            if moment == .asBIsPresented {
                // Also between the last look at `isCancelled` and the screen going up.
                host.whenPresenting("B") { cancelFromAnotherThread(task, landing: landing) }
            }
            switch moment {
            case .atOnce, .asBIsPresented: break
            case .asTheUserDismissesA: try? await ExplorerClock().sleep(for: .milliseconds(10))
            case .whileBIsUp: await host.untilShown("B")
            case .whileCIsUp: await host.untilShown("C")
            case .whileTheOnlyScreenIsUp: await host.untilShown("A")
            }
            let before: [ScreenHost.Event]
            if moment == .asBIsPresented {
                await host.untilShown("B")
                before = Array(host.events.prefix { $0 != ScreenHost.Event(screen: "B", kind: .presented) })
            } else {
                before = host.events
                checkpoint("task.cancel()")
                task.cancel()
            }
            let result = await task.result
            checkpoint("task.result")
            await untilQuiet()
            if let blocked = landing.blockedOutcome(inside: "host.present(B)") { return blocked }
            return judgeCancelled(host.events, before: before.count, upAtCancel: shownAt(before), result: result, onScreen: host.onScreen)
        }
    }

    static func judgeCancelled(_ events: [ScreenHost.Event], before: Int, upAtCancel: [String], result: Result<Void, any Error>,
                               onScreen: [String]) -> String {
        if let overlap = overlap(events) { return brokenOutcome(oneAtATime, overlap) }
        let after = Array(events[before...])
        // The screen on its way as the cancel landed may still appear, if the code takes it
        // down again at once (the next event); no other may.
        let late = after.indices.filter { after[$0].kind == .presented }
        if let first = late.first {
            let screen = after[first].screen
            let takenDown = first + 1 < after.count && after[first + 1] == ScreenHost.Event(screen: screen, kind: .dismissedByCode)
            if late.count > 1 || !upAtCancel.isEmpty || !takenDown {
                let shown = late.count > 1 || !upAtCancel.isEmpty ? after[late.last!].screen : screen
                return brokenOutcome(stopsWhenCancelled, takenDown
                    ? Localized("presented \(shown) after the cancel", ja: "キャンセルの後に \(shown) を表示した")
                    : Localized("presented \(shown) after the cancel and left it up", ja: "キャンセルの後に \(shown) を表示し、表示したままにした"))
            }
        }
        for screen in upAtCancel {
            let next = after.first { $0.screen == screen }
            if next?.kind != .dismissedByCode {
                return brokenOutcome(dismissesOnCancel, next == nil
                    ? Localized("\(screen) was up at the cancel and was never dismissed", ja: "キャンセル時に表示中だった \(screen) が閉じられなかった")
                    : Localized("\(screen) was up at the cancel and stayed until its user dismissed it", ja: "キャンセル時に表示中だった \(screen) が、ユーザーが閉じるまで残った"))
            }
        }
        if let up = onScreen.first { return brokenOutcome(dismissesOnCancel, Localized("\(up) is still up", ja: "\(up) が表示されたまま")) }
        switch result {
        case let .failure(error) where error is CancellationError: return ok
        case let .failure(error): return brokenOutcome(cancellationThrown, Localized("threw \(errorName(error))", ja: "\(errorName(error)) をスローした"))
        case .success: return brokenOutcome(cancellationThrown, Localized("returned normally", ja: "普通に戻った"))
        }
    }

    // MARK: Exploring

    static func explore(_ call: Localized, budget: Explorer.Budget = budget, _ body: @escaping Explorer.Body) -> CheckFailure? {
        checkExplored(inOrder, title: call, broken: brokenProperty(in: properties), deadlock: neverLeftWaiting, leftWaiting: leftWaiting, observed: { outcome in
            observed(call, outcome)
        }, budget: budget, classify: { $0 == ok ? .acceptable : .forbidden }) {
            return try await body()
        }
    }

    static let leftWaiting = Localized(
        "A screen's dismissal must resume the continuation — whoever dismisses it, the user or your cancellation handler.",
        ja: "画面が閉じられたら、閉じたのがユーザーでもキャンセルハンドラでも、継続を再開する必要があります。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case oneAtATime.id:
                Localized("Await each screen's dismissal before presenting the next: `try await present(screen)` in a plain `for` loop, not in a task group or `Task {}` each.",
                          ja: "次の画面を表示する前に、各画面が閉じられるのを待ちましょう。タスクグループや画面ごとの `Task {}` ではなく、普通の `for` ループで `try await present(screen)` します。")
            case inOrder.id:
                Localized("Present every screen once, in the order given, and throw only when cancelled.",
                          ja: "すべての画面を渡された順に 1 回ずつ表示し、スローするのはキャンセルされたときだけにしましょう。")
            case waitsForDismissal.id:
                Localized("Resume the continuation in the dismiss handler — `host.present(screen) { continuation.resume() }` — not right after presenting.",
                          ja: "継続は、表示した直後ではなく、`host.present` に渡すハンドラ（画面が閉じられたときに呼ばれる）で再開しましょう: `host.present(screen) { continuation.resume() }`。")
            case stopsWhenCancelled.id:
                Localized("Check `try Task.checkCancellation()` before presenting each screen — a cancel that came while nothing was up is seen only there — and look at `Task.isCancelled` right after `host.present`: a cancel that lands just before it finds nothing up in `onCancel`, so dismiss that screen yourself.",
                          ja: "各画面を表示する前に `try Task.checkCancellation()` で確かめましょう（何も表示されていない間に来たキャンセルは、そこでしか分かりません）。さらに `host.present` の直後に `Task.isCancelled` を見ます。その直前に届いたキャンセルでは、`onCancel` の時点で閉じる画面がまだないので、その画面は自分で閉じます。")
            case dismissesOnCancel.id:
                Localized("Wrap the wait in `withTaskCancellationHandler { … } onCancel: { host.dismiss(screen) }`: the handler runs as soon as the task is cancelled, and the dismissal it makes resumes your continuation through the dismiss handler.",
                          ja: "待機を `withTaskCancellationHandler { … } onCancel: { host.dismiss(screen) }` で包みましょう。ハンドラはタスクがキャンセルされるとすぐに実行され、それによる画面の閉じる操作が、画面が閉じられたときに呼ばれるハンドラ経由で継続を再開します。")
            case cancellationThrown.id:
                Localized("After a screen comes back, `try Task.checkCancellation()` throws if the task was cancelled meanwhile; let it reach the caller.",
                          ja: "画面から戻った後の `try Task.checkCancellation()` は、その間にタスクがキャンセルされていればスローします。それをそのまま呼び出し元に届けましょう。")
            default:
                nil
            }
        }
    }

    // MARK: Reading the host's record

    /// The screens up after `events`.
    static func shownAt(_ events: [ScreenHost.Event]) -> [String] {
        var up: [String] = []
        for event in events {
            if event.kind == .presented { up.append(event.screen) } else { up.removeAll { $0 == event.screen } }
        }
        return up
    }

    /// "present B while A was up", if it happened.
    static func overlap(_ events: [ScreenHost.Event]) -> Localized? {
        for (index, event) in events.enumerated() where event.kind == .presented {
            if let other = shownAt(Array(events[..<index])).first {
                return Localized("presented \(event.screen) while \(other) was up", ja: "\(other) の表示中に \(event.screen) を表示した")
            }
        }
        return nil
    }

    static func notCancelledButThrew(_ error: any Error) -> Localized {
        Localized("threw \(errorName(error)) though nothing was cancelled", ja: "何もキャンセルしていないのに \(errorName(error)) をスローした")
    }
}
