import Dispatch
import Foundation
import WorkbookCore

/// The task-local value the scenario binds: a request id, as a logging or tracing library keeps.
///
/// The unsafe way to carry such a value is a global `var` set before the work starts: two
/// requests in flight overwrite each other's. A task-local is per task, and is copied into the
/// tasks a task creates, except detached ones.
private enum Request {
    @TaskLocal static var id: String?
}

/// An actor whose method creates tasks: a `Task {}` created here that uses `self` is isolated
/// to the actor, so it touches `visits` without `await`.
private actor PhotoLibrary {
    private(set) var visits = 0

    /// Creates one task of each kind with the task-local bound, each reporting what it saw,
    /// and waits until all have reported before awaiting any of them (awaiting a task raises its
    /// priority to the waiter's, which would spoil the readings).
    func createTasks(_ look: @escaping @Sendable (String, (any Actor)?) -> Void, allReported: OneShotSignal) async throws {
        try await Request.$id.withValue("r-42") {
            let usesSelf = Task {
                self.visits += 1  // isolated to this actor: no await
                look("T self", #isolation)
            }
            let noSelf = Task { look("T", #isolation) }
            let detached = Task.detached { look("D", #isolation) }
            async let child: Void = look("A", #isolation)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { look("G", #isolation) }
            }
            try await allReported.wait(Localized("a task did not report", ja: "報告しないタスクがありました"))
            await child
            await usesSelf.value
            await noSelf.value
            await detached.value

            // A detached task (medium) that this task (high) awaits: while awaited, it runs at
            // the waiter's priority. It reads its priority until the raise shows (for at most 2 s:
            // the waiter may not have reached its `await` yet), yielding its thread in between.
            let awaited = Task.detached {
                let giveUp = MonotonicClock.now() + 2_000_000_000
                while Task.currentPriority == Task.basePriority && MonotonicClock.now() < giveUp { await Task.yield() }
                look("D awaited", #isolation)
            }
            await awaited.value
        }
    }
}

/// Tells whether code runs on the main queue, the main actor's executor, whichever thread drains
/// it (the main thread in the chapter program, a pool thread under `swift test` on Linux).
private enum OnMainQueue {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var now: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}

extension Chapter04 {
    /// What `Task {}` inherits from the code that creates it and `Task.detached {}` does not,
    /// next to the two structured kinds.
    ///
    /// The wrong way to "get off the actor" is `Task.detached` for everything: the work loses
    /// its priority and task-local values, and no one cancels or awaits it. The right way is
    /// structured (`async let`, a task group) when the caller waits for the result, `Task {}`
    /// when a synchronous caller starts work, and `Task.detached` only when nothing of the
    /// caller's context should carry over.
    static let taskVersusDetached = Scenario(
        slug: "task-vs-detached",
        title: Localized("Task {} versus Task.detached {}: what a task inherits", ja: "Task {} と Task.detached {}: タスクが引き継ぐもの"),
        narration: Localized(
            """
            Four kinds of task. `async let` and a task group's `addTask` make child tasks: structured, tied to the scope that creates them. \
            `Task {}` and `Task.detached {}` make unstructured tasks, which live on their own. \
            Part 1: a method of an actor, running at priority `.high` with a task-local value (`Request.id = "r-42"`) bound, creates one of each, \
            and each reports what it saw: its priority (`Task.basePriority`, the one it was created with, and `Task.currentPriority`, which can be raised while a higher-priority task awaits it), \
            the task-local value, and its isolation (`#isolation`). \
            `Task {}` copies priority and task-locals, and inherits the actor, but for an actor instance only if its closure uses `self` (it then touches the actor's state without `await`); \
            for a global actor such as `@MainActor` always. `Task.detached` inherits none of it. \
            Part 2 shows the main actor: a `Task {}` made there runs on the main actor; a detached one does not. \
            Part 3: a parent creates one of each kind and is cancelled. The children see it, the unstructured tasks do not; \
            the parent's scope does not end before its children, even the `async let` it never awaited, while the unstructured tasks run on after the parent is done. \
            A table sums it up.
            """,
            ja: """
            タスクには 4 種類あります。`async let` とタスクグループの `addTask` は子タスクを作ります。構造化されていて、作ったスコープに結び付いています。\
            `Task {}` と `Task.detached {}` は構造化されていないタスクを作り、それらは独立して生きます。\
            パート 1: 優先度 `.high` で動き、タスクローカル値（`Request.id = "r-42"`）を設定したアクターのメソッドが、4 種類を 1 つずつ作ります。\
            それぞれ、見えたものを報告します。優先度（作られたときの `Task.basePriority` と、より高い優先度のタスクが待つ間は引き上げられることがある `Task.currentPriority`）、\
            タスクローカル値、そして隔離（`#isolation`）です。\
            `Task {}` は優先度とタスクローカル値をコピーし、アクターも引き継ぎます。ただしアクターのインスタンスの場合は、クロージャが `self` を使うときだけです（そのときはアクターの状態に `await` なしで触れます）。\
            `@MainActor` のようなグローバルアクターなら常に引き継ぎます。`Task.detached` は何も引き継ぎません。\
            パート 2 はメインアクターです。そこで作った `Task {}` はメインアクターで動き、`Task.detached` で作ったタスクは動きません。\
            パート 3: 親タスクが 4 種類を 1 つずつ作ってから、キャンセルされます。子タスクはそれに気づき、構造化されていないタスクは気づきません。\
            親のスコープは子タスクより先には終わりません。一度も `await` しなかった `async let` でもそうです。一方、構造化されていないタスクは親が終わった後も動き続けます。\
            最後に表にまとめます。
            """),
        prediction: .init(
            question: Localized(
                "An actor method binds a task-local value (Request.id = \"r-42\") and creates A (`async let`), G (a task-group child), T (`Task {}`) and D (`Task.detached {}`). Which of them see the value? (letters, e.g. AD, or none)",
                ja: "アクターのメソッドがタスクローカル値（Request.id = \"r-42\"）を設定し、A（`async let`）、G（タスクグループの子）、T（`Task {}`）、D（`Task.detached {}`）を作ります。その値が見えるのはどれ？（文字で。例: AD。なければ「なし」）"),
            explanation: Localized(
                "A, G and T. Child tasks and Task {} get a copy of the creating task's task-local values; a detached task starts with none.",
                ja: "A、G、T です。子タスクと Task {} は、作ったタスクのタスクローカル値のコピーを受け取ります。Task.detached {} で作ったタスクは何も持たずに始まります。"),
            observe: { $0.noted("sees task-local") ?? "" },
            ignoresOrder: true,
            isPossible: { $0.count == 3 && Set($0) == Set("AGT") })
    ) { context in
        try await whatEachSaw(context)
        await fromTheMainActor(context)
        try await cancelTheParent(context)
        showFourKinds(context)
    }

    /// What one task saw.
    private struct Sighting: Sendable {
        let basePriority: TaskPriority?
        let currentPriority: TaskPriority
        let taskLocal: String?
        let isolation: String
        let onMainQueue: Bool
    }

    private static func look(_ isolation: (any Actor)?) -> Sighting {
        Sighting(basePriority: Task.basePriority, currentPriority: Task.currentPriority, taskLocal: Request.id,
                 isolation: isolation.map { String(describing: type(of: $0)) } ?? "nil", onMainQueue: OnMainQueue.now)
    }

    private static func name(_ priority: TaskPriority?) -> String {
        guard let priority else { return "nil" }
        switch priority {
        case .high: return ".high"
        case .medium: return ".medium"
        case .low: return ".low"
        case .background: return ".background"
        default: return "\(priority.rawValue)"
        }
    }

    private static let yes = Localized("yes", ja: "はい"), no = Localized("no", ja: "いいえ")
    private static func yesNo(_ value: Bool) -> Localized { value ? yes : no }

    // MARK: 1) From an actor method

    private static func whatEachSaw(_ context: ScenarioContext) async throws {
        context.say(Localized(
            "1) Created in a PhotoLibrary actor method, at priority .high, with Request.id = \"r-42\" bound:",
            ja: "1) PhotoLibrary アクターのメソッドで、優先度 .high、Request.id = \"r-42\" を設定した状態で作成:"))
        let seen = Locked<[String: Sighting]>([:])
        let allReported = OneShotSignal()
        let look: @Sendable (String, (any Actor)?) -> Void = { key, isolation in
            let sighting = Self.look(isolation)
            let count = seen.withLock { seen -> Int in
                seen[key] = sighting
                return seen.count
            }
            if count == 5 { allReported.fire() }
        }
        let library = PhotoLibrary()
        try await Task(priority: .high) { try await library.createTasks(look, allReported: allReported) }.value

        let rows: [(key: String, code: String)] = [
            ("A", "`async let`"), ("G", "`group.addTask { }`"), ("T self", "`Task { self… }`"), ("T", "`Task { }`"), ("D", "`Task.detached { }`"),
            ("D awaited", Localized("  … awaited", ja: "  … 待たれている間").text(context.language)),
        ]
        let header = padded("", to: 24) + padded("basePriority", to: 14) + padded("currentPriority", to: 17) + padded("Request.id", to: 12) + "#isolation"
        context.show("  " + header)
        var sawLocal = ""
        for row in rows {
            guard let sighting = seen.current[row.key] else { continue }
            let letter = String(row.key.prefix(1))
            context.show("  " + padded(letter, to: 3) + padded(row.code, to: 21) + padded(name(sighting.basePriority), to: 14)
                         + padded(name(sighting.currentPriority), to: 17) + padded(sighting.taskLocal ?? "nil", to: 12) + sighting.isolation)
            if sighting.taskLocal != nil && !sawLocal.contains(letter) && row.key != "D awaited" { sawLocal += letter }
            context.note("\(row.key) base priority", name(sighting.basePriority))
            context.note("\(row.key) task-local", sighting.taskLocal ?? "nil")
            context.note("\(row.key) isolation", sighting.isolation)
            context.note("\(row.key) current priority", name(sighting.currentPriority))
        }
        context.note("sees task-local", sawLocal.isEmpty ? "NONE" : sawLocal)
        context.note("visits", String(await library.visits))
    }

    // MARK: 2) From the main actor

    @MainActor
    private static func fromTheMainActor(_ context: ScenarioContext) async {
        context.say(Localized("2) Created on the main actor:", ja: "2) メインアクター上で作成:"))
        let inherited = Task { look(#isolation) }
        let detached = Task.detached { look(#isolation) }
        let rows = [("T", "`Task { }`", await inherited.value), ("D", "`Task.detached { }`", await detached.value)]
        context.show("  " + padded("", to: 24) + padded("#isolation", to: 14) + Localized("on the main actor's queue", ja: "メインアクターのキューで").text(context.language))
        for (letter, code, sighting) in rows {
            context.show("  " + padded(letter, to: 3) + padded(code, to: 21) + padded(sighting.isolation, to: 14) + yesNo(sighting.onMainQueue).text(context.language))
            context.note("main \(letter) isolation", sighting.isolation)
            context.note("main \(letter) on main queue", String(sighting.onMainQueue))
        }
    }

    // MARK: 3) Cancelling the parent

    private static func cancelTheParent(_ context: ScenarioContext) async throws {
        context.say(Localized(
            "3) A parent creates one of each and is cancelled; who sees it, and who does the parent wait for?",
            ja: "3) 親タスクが 4 種類を 1 つずつ作ってからキャンセルされる。誰が気づき、親は誰を待つか？"))
        let caller = Localized("caller", ja: "呼び出し元")
        let parentLane = Localized("parent", ja: "親タスク")
        let waits = Localized("waits", ja: "待つ")
        let stuck = Localized("a task did not start", ja: "タスクが始まりませんでした")
        let letGo = Localized("the caller did not let the tasks go on", ja: "呼び出し元がタスクを先へ進ませませんでした")
        let ready = ["A", "G", "T", "D"].map { ($0, OneShotSignal()) }
        let goChildren = OneShotSignal(), goOthers = OneShotSignal()
        defer {
            goChildren.fire()
            goOthers.fire()
        }

        /// A task that waits for `go`, then reports whether it is cancelled.
        @Sendable func kind(_ letter: String, _ go: OneShotSignal) async -> Bool {
            let lane = Localized.verbatim(letter)
            context.trace.begin(waits, lane: lane)
            ready.first { $0.0 == letter }?.1.fire()
            try? await go.wait(letGo)  // on timeout, go on: the caller has already given up
            context.trace.end(waits, lane: lane)
            let cancelled = Task.isCancelled
            context.trace.record(.verbatim("isCancelled=\(cancelled)"), lane: lane)
            return cancelled
        }

        context.trace.record(Localized("parent = Task { }", ja: "親タスクを作成"), lane: caller)
        let parent = Task { () -> (unstructured: Task<Bool, Never>, detached: Task<Bool, Never>, child: Bool, groupChild: Bool) in
            context.trace.record(Localized("creates 4", ja: "4 つ作る"), lane: parentLane)
            let unstructured = Task { await kind("T", goOthers) }
            let detached = Task.detached { await kind("D", goOthers) }
            var childCancelled = false
            let groupCancelled: Bool
            do {
                async let child = kind("A", goChildren)  // never awaited by name: the scope's end waits for it
                groupCancelled = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { await kind("G", goChildren) }
                    return await group.next() ?? false
                }
                childCancelled = await child
            }
            context.trace.record(Localized("scope ends", ja: "スコープの終わり"), lane: parentLane)
            return (unstructured, detached, childCancelled, groupCancelled)
        }
        for (_, signal) in ready { try await signal.wait(stuck) }
        context.trace.record(.verbatim("parent.cancel()"), lane: caller)
        parent.cancel()
        goChildren.fire()
        let done = await parent.value
        context.trace.record(Localized("parent done", ja: "親タスク終了"), lane: caller)
        goOthers.fire()
        let cancelled = ["A": done.child, "G": done.groupChild, "T": await done.unstructured.value, "D": await done.detached.value]

        // Whose end came before the parent's scope ended.
        let events = context.trace.events
        let scopeEnd = events.last { $0.label == "scope ends" }?.sequence ?? Int.max
        var endedFirst: [String: Bool] = [:]
        for letter in ["A", "G", "T", "D"] {
            let end = events.last { $0.lane == letter && $0.kind == .end }?.sequence ?? Int.max
            endedFirst[letter] = end < scopeEnd
            context.note("\(letter) cancelled with parent", String(cancelled[letter] ?? false))
            context.note("\(letter) ended before parent scope", String(end < scopeEnd))
        }
        let list = { (letters: [String]) in letters.joined(separator: ", ") }
        context.say(Localized(
            """
              Saw the parent's cancel (isCancelled=true): \(list(["A", "G", "T", "D"].filter { cancelled[$0] == true })); did not: \(list(["A", "G", "T", "D"].filter { cancelled[$0] != true })).
              Ended before the parent's scope did: \(list(["A", "G", "T", "D"].filter { endedFirst[$0] == true })); ran on after the parent was done: \(list(["A", "G", "T", "D"].filter { endedFirst[$0] != true })).
            """,
            ja: """
              親のキャンセルに気づいた（isCancelled=true）: \(list(["A", "G", "T", "D"].filter { cancelled[$0] == true }))。気づかなかった: \(list(["A", "G", "T", "D"].filter { cancelled[$0] != true }))。
              親のスコープより先に終わった: \(list(["A", "G", "T", "D"].filter { endedFirst[$0] == true }))。親が終わった後も動いていた: \(list(["A", "G", "T", "D"].filter { endedFirst[$0] != true }))。
            """))
        context.note("parent scope waited for", ["A", "G", "T", "D"].filter { endedFirst[$0] == true }.joined())
    }

    // MARK: The four kinds

    private static func showFourKinds(_ context: ScenarioContext) {
        context.say(Localized("The four kinds, as parts 1–3 showed:", ja: "4 種類のまとめ（パート 1〜3 で見たとおり）:"))
        func cell(_ value: Bool, star: Bool = false) -> String { padded(yesNo(value).text(context.language) + (star ? "*" : ""), to: 8) }
        let columns = (1...6).map { padded("\($0)", to: 8) }.joined()
        context.show(("  " + padded("", to: 21) + columns).trimmingTrailingSpaces)
        // Column 1 is the definition; the others are what parts 1–3 observed in this run.
        func saw(_ key: String, _ what: String, _ expected: String) -> Bool { context.noted("\(key) \(what)") == expected }
        func row(_ code: String, _ kind: String, structured: Bool, isolationKey: String) -> (code: String, cells: [Bool], starred: Int?) {
            (code, [structured, saw(kind, "base priority", ".high"), !saw(kind, "task-local", "nil"), !saw(isolationKey, "isolation", "nil"),
                    saw(kind, "cancelled with parent", "true"), saw(kind, "ended before parent scope", "true")],
             kind == "T" ? 3 : nil)
        }
        let rows = [
            row("`async let`", "A", structured: true, isolationKey: "A"),
            row("`group.addTask { }`", "G", structured: true, isolationKey: "G"),
            row("`Task { }`", "T", structured: false, isolationKey: "T self"),
            row("`Task.detached { }`", "D", structured: false, isolationKey: "D"),
        ]
        for row in rows {
            let cells = row.cells.enumerated().map { cell($0.element, star: $0.offset == row.starred) }.joined()
            context.show(("  " + padded(row.code, to: 21) + cells).trimmingTrailingSpaces)
        }
        context.say(Localized(
            """
              1 structured: a child of the scope that creates it
              2 inherits the creator's priority
              3 inherits the creator's task-local values
              4 inherits the actor it is created on
              5 cancelled with its parent
              6 awaited before the parent's scope ends, even if never `await`ed by name
              * a global actor (`@MainActor`) always; an actor instance only if the closure uses `self`.
            """,
            ja: """
              1 構造化されている: 作ったスコープの子
              2 作った側の優先度を引き継ぐ
              3 作った側のタスクローカル値を引き継ぐ
              4 作られた場所のアクターを引き継ぐ
              5 親と一緒にキャンセルされる
              6 親のスコープが終わる前に待たれる（名前で `await` しなくても）
              * グローバルアクター（`@MainActor`）なら常に。アクターのインスタンスなら、クロージャが `self` を使うときだけ。
            """))
    }
}

extension String {
    /// The string without the spaces a padded last column leaves at its end.
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
