import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 07-actors/MainActorViewModel under the explorer, on a fresh client, screen
/// and view model per schedule. The view model is made and asked to load on the main actor, as
/// a screen does; the client answers as the case says (from its own task, at once on the
/// caller's thread, or whichever the explorer picks). When nothing is left to run — the main
/// queue drained too, for an answer sent there — the check reads the screen: what it showed, in
/// order, and whether each change ran on the main actor.
///
/// 1. One load answered at once, inside `fetchProfile`, on the caller's thread (a cache).
/// 2. One load answered at once or from the client's loader task, whichever the schedule makes:
///    code that changes the screen straight from the completion is off the main actor only in
///    some schedules.
/// 3. One load, answered from the client's own task: shown once, on the main actor.
/// 4. One load that fails: the failure shown, on the main actor.
/// 5. A second load 5 ms after the first, whose answer comes first (the older one 20 ms later).
/// 6. Two loads one after the other, both answered at the same moment, in either order.
/// 7. The same profile loaded twice, the older answer last: the newer load wins here too.
/// 8. A newer load, answered at once, at the very moment the older answer arrives: code that asks
///    "still the newest?" and shows in two separate hops shows the older one last.
public enum MainActorViewModelCheck {
    public static let onMainActor = Property(
        id: "ui-off-main",
        name: Localized("every UI change happens on the main actor", ja: "UI の変更はすべてメインアクター上で行う"),
        rule: Localized("`screen.show` and `screen.showError` are called from code isolated to the main actor — however and on whichever thread the client calls back.",
                        ja: "`screen.show` と `screen.showError` は、メインアクターに隔離されたコードから呼ぶ。クライアントがどのように、どのスレッドでコールバックしても同じ。"))
    public static let shownOnce = Property(
        id: "shown-once",
        name: Localized("a load's result is shown once", ja: "1 回の読み込みの結果は 1 回だけ表示する"),
        rule: Localized("Each load ends in exactly one change of the screen: its profile, or its failure.",
                        ja: "読み込みはそれぞれ、画面のちょうど 1 回の変更で終わる。プロフィールか、失敗の表示か。"))
    public static let failureShown = Property(
        id: "failure-not-shown",
        name: Localized("a failure reaches the screen", ja: "失敗が画面に届く"),
        rule: Localized("When the client fails, the screen shows that failure (`screen.showError`), as it would show a profile.",
                        ja: "クライアントが失敗したら、プロフィールと同じように、画面にその失敗を表示する（`screen.showError`）。"))
    public static let newestWins = Property(
        id: "older-shown-last",
        name: Localized("a newer load wins", ja: "新しい読み込みが勝つ"),
        rule: Localized("When `load` is called again before the older answer came, the older answer is never shown after the newer one: the screen ends on the newest load's result.",
                        ja: "古い答えが来る前に `load` がもう一度呼ばれたら、古い答えを新しい答えの後に表示しない。画面は最新の読み込みの結果で終わる。"))
    /// The ThreadSanitizer pass needs the main queue ordered with the explorer's main actor:
    /// without it, an answer that reaches the main actor through `DispatchQueue.main` would be
    /// taken for a race (on Apple platforms the two are one executor, but under the explorer its
    /// main-actor jobs run on its own threads).
    public static let platformProbes = [
        PlatformProbe("race-lane-with-main-queue",
                      Localized("a ThreadSanitizer pass over the explored schedules (it needs the main queue ordered with the explorer's main actor)",
                                ja: "探索したスケジュールに対する ThreadSanitizer の検査（メインキューとエクスプローラのメインアクターの順序づけが必要）"),
                      needs: [.mainQueueOrder]),
    ]

    public static let properties = [onMainActor, shownOnce, failureShown, newestWins, Property.finishes, Property.freshState]

    public typealias Make = @MainActor @Sendable (ProfileClient, ProfileScreen) -> any MainActorViewModelProtocol

    /// A few tasks; each bug one preemption away at most: every such schedule runs, however
    /// loaded the machine. An answer sent to the main queue is waited for (half a second at most).
    static let budget = Explorer.Budget.guaranteeing(preemptions: 1, foreignWaitSeconds: 0.5)
    static let ok = "ok"

    static let aiko = Profile(id: 1, name: "Aiko")
    static let ben = Profile(id: 2, name: "Ben")
    static let chie = Profile(id: 3, name: "Chie")
    static let daiki = Profile(id: 4, name: "Daiki")
    static let aikoRenamed = Profile(id: 1, name: "Aiko Sato")

    struct Case {
        let replies: [Int: [ProfileClient.Reply]]
        /// (ms after the start, id): the loads, in order.
        let loads: [(at: Int, id: Int)]
        /// What the screen may show, in order.
        let shown: [[ProfileScreen.Change]]
        let call: Localized
    }

    static let cases: [Case] = [
        Case(replies: [3: [.atOnce(.success(chie))]], loads: [(0, 3)], shown: [[.profile(chie)]],
             call: Localized("load(id: 3); the client has Chie's profile cached and answers at once, inside fetchProfile, on the caller's thread",
                             ja: "load(id: 3)。クライアントは Chie のプロフィールをキャッシュしていて、fetchProfile の中で、呼び出し元のスレッドですぐに答える")),
        Case(replies: [4: [.whenLoaded(.success(daiki))]], loads: [(0, 4)], shown: [[.profile(daiki)]],
             call: Localized("load(id: 4) while the client's own loader runs: it answers at once if the loader has finished, else from the loader's task",
                             ja: "クライアント自身の読み込みが走っている間に load(id: 4)。読み込みが終わっていればすぐに、まだなら読み込みのタスクから答える")),
        Case(replies: [1: [.later(.success(aiko), after: .milliseconds(10))]], loads: [(0, 1)], shown: [[.profile(aiko)]],
             call: Localized("load(id: 1); the client answers Aiko's profile 10 ms later, from its own task",
                             ja: "load(id: 1)。クライアントは 10 ms 後に、自分のタスクから Aiko のプロフィールを返す")),
        Case(replies: [2: [.later(.failure(.offline), after: .milliseconds(10))]], loads: [(0, 2)], shown: [[.error(.offline)]],
             call: Localized("load(id: 2); the client fails with .offline 10 ms later, from its own task",
                             ja: "load(id: 2)。クライアントは 10 ms 後に、自分のタスクから .offline で失敗する")),
        Case(replies: [1: [.later(.success(aiko), after: .milliseconds(25))], 2: [.later(.success(ben), after: .milliseconds(10))]],
             loads: [(0, 1), (5, 2)], shown: [[.profile(ben)]],
             call: Localized("load(id: 1), then load(id: 2) 5 ms later; the client answers #2 at 15 ms and the older #1 only at 25 ms",
                             ja: "load(id: 1) の 5 ms 後に load(id: 2)。クライアントは #2 に 15 ms で、古い #1 には 25 ms になってから答える")),
        Case(replies: [1: [.later(.success(aiko), after: .milliseconds(10))], 2: [.later(.success(ben), after: .milliseconds(10))]],
             loads: [(0, 1), (0, 2)], shown: [[.profile(ben)], [.profile(aiko), .profile(ben)]],
             call: Localized("load(id: 1) and load(id: 2) one after the other; the client answers both at 10 ms, in either order",
                             ja: "load(id: 1) と load(id: 2) を続けて呼ぶ。クライアントは両方に 10 ms で、どちらの順にも答える")),
        Case(replies: [1: [.later(.success(aiko), after: .milliseconds(25)), .later(.success(aikoRenamed), after: .milliseconds(10))]],
             loads: [(0, 1), (5, 1)], shown: [[.profile(aikoRenamed)]],
             call: Localized("load(id: 1), then load(id: 1) again 5 ms later (a pull to refresh); the second answer, Aiko renamed, comes at 15 ms, the first, older one at 25 ms",
                             ja: "load(id: 1) の 5 ms 後にもう一度 load(id: 1)（引っ張って更新）。2 回目の答え（名前が変わった Aiko）は 15 ms に、古い 1 回目の答えは 25 ms に来る")),
        Case(replies: [1: [.later(.success(aiko), after: .milliseconds(10))], 2: [.atOnce(.success(ben))]],
             loads: [(0, 1), (10, 2)], shown: [[.profile(ben)], [.profile(aiko), .profile(ben)]],
             call: Localized("load(id: 1), answered at 10 ms from the client's task; at that same moment load(id: 2), which the client answers at once from its cache",
                             ja: "load(id: 1) には 10 ms にクライアントのタスクから答えが来る。その同じ瞬間に load(id: 2)。こちらはクライアントがキャッシュからすぐに答える")),
    ]

    public static func run(_ make: @escaping Make) -> CheckResult {
        for item in cases {
            if let failure = check(make, item) { return .failed(failure) }
        }
        return .passed(properties)
    }

    static func check(_ make: @escaping Make, _ item: Case) -> CheckFailure? {
        checkExplored(shownOnce, title: item.call, broken: brokenProperty(in: properties), leftWaiting: leftWaiting,
                      observed: { observed(item.call, $0) }, budget: budget,
                      classify: { $0 == ok ? .acceptable : .forbidden }, raceLane: PlatformMechanism.mainQueueOrder.isAvailable) {
            let client = ProfileClient(replies: item.replies)
            let screen = ProfileScreen()
            await loadAll(item, make, client, screen)
            return judge(item, screen.entries)
        }
    }

    /// Makes the view model and loads at the case's moments, on the main actor as a screen does,
    /// then waits until nothing is left to run — the main queue included — holding the view model
    /// all along.
    @MainActor
    static func loadAll(_ item: Case, _ make: Make, _ client: ProfileClient, _ screen: ProfileScreen) async {
        let model = make(client, screen)
        defer { withExtendedLifetime(model) {} }
        var now = 0
        for (at, id) in item.loads {
            if at > now { try? await ExplorerClock().sleep(for: .milliseconds(at - now)) }
            now = at
            checkpoint("load(id: \(id))")
            model.load(id: id)
        }
        await untilQuiet()
        await mainQueueDrained()  // an answer sent with `DispatchQueue.main.async` runs before this returns
        await untilQuiet()
    }

    static func judge(_ item: Case, _ entries: [ProfileScreen.Entry]) -> String {
        let shown = entries.map(\.change)
        let list = shown.isEmpty ? Localized("nothing", ja: "何も表示しなかった")
            : .verbatim(shown.map(\.description).joined(separator: ", "))
        if let off = entries.first(where: { !$0.onMainActor }) {
            return brokenOutcome(onMainActor, Localized("\(off.change) ran off the main actor (the screen showed: \(list.en))",
                                                        ja: "\(off.change) がメインアクターの外で実行された（画面の表示: \(list.ja)）"))
        }
        if item.shown.contains(shown) { return ok }
        let expectsError = item.shown.allSatisfy { $0.contains { if case .error = $0 { true } else { false } } }
        if expectsError, !shown.contains(where: { if case .error = $0 { true } else { false } }) {
            return brokenOutcome(failureShown, Localized("the client failed with .offline; the screen showed \(list.en)",
                                                         ja: "クライアントは .offline で失敗したのに、画面の表示は \(list.ja)"))
        }
        if item.loads.count > 1, let last = shown.last, item.shown.allSatisfy({ $0.last != last }) {
            let newest = item.shown[0].last.map(\.description) ?? "?"
            return brokenOutcome(newestWins, Localized("the newest load's answer was \(newest), but the screen ended on \(last) (it showed: \(list.en))",
                                                       ja: "最新の読み込みの答えは \(newest) なのに、画面は \(last) で終わった（表示: \(list.ja)）"))
        }
        let expected = item.shown.map { $0.map(\.description).joined(separator: ", ") }.joined(separator: Localized(" or ", ja: " または ").en)
        return brokenOutcome(shownOnce, Localized("the screen showed \(list.en); expected \(expected)",
                                                  ja: "画面の表示は \(list.ja)。期待したのは \(item.shown.map { $0.map(\.description).joined(separator: ", ") }.joined(separator: " または "))"))
    }

    static let leftWaiting = Localized(
        "The view model or the screen never let the check go on: something waits on the main actor for what never comes — a semaphore or a continuation the client's answer was to resume. `load(id:)` returns at once; the answer arrives later, in the client's completion.",
        ja: "ビューモデルか画面が、チェックを先に進ませませんでした。メインアクター上で、決して来ないものを待っています（クライアントの答えが再開するはずだったセマフォや継続）。`load(id:)` はすぐに戻り、答えは後でクライアントの完了ハンドラに届きます。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case onMainActor.id:
                Localized("The client's completion runs wherever the client calls it — its own thread, or yours when it answers at once — and a `Task {}` made in it is not on the main actor either: isolation is decided where the code is written, and that closure is not isolated. Bring the answer onto the main actor where it crosses from the client — `Task { @MainActor in … }`, or an `async` wrapper awaited from a `@MainActor` method — and change the screen only there.",
                          ja: "クライアントの完了ハンドラは、クライアントが呼んだ場所で動きます（クライアント自身のスレッド、すぐに答えるときは呼び出し元のスレッド）。そこで作った `Task {}` もメインアクター上にはありません。隔離はコードを書いた場所で決まり、そのクロージャは隔離されていないからです。答えがクライアントから渡ってくる場所でメインアクターに移しましょう（`Task { @MainActor in … }`、または `@MainActor` のメソッドから await する `async` のラッパー）。画面を変えるのはそこだけにします。")
            case shownOnce.id:
                Localized("One load, one change of the screen: show the profile or the failure once, when the answer has reached the main actor.",
                          ja: "1 回の読み込みに、画面の変更は 1 回です。答えがメインアクターに届いたときに、プロフィールか失敗を 1 回だけ表示しましょう。")
            case failureShown.id:
                Localized("Handle both sides of the result: `.failure(error)` → `screen.showError(error)`, on the main actor like the profile.",
                          ja: "結果の両方の場合を扱いましょう: `.failure(error)` → `screen.showError(error)`。プロフィールと同じくメインアクター上で。")
            case newestWins.id:
                Localized("Answers can come back in any order. Remember which load is the newest (a counter on the view model, read and written on the main actor) and drop an answer that belongs to an older one.",
                          ja: "答えはどの順にも戻ってきます。どの読み込みが最新かを覚えておき（ビューモデルのカウンタ。メインアクター上で読み書きする）、古い読み込みの答えは捨てましょう。")
            default:
                nil
            }
        }
    }
}
