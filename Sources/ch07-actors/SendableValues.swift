import Foundation
import Synchronization
import WorkbookCore

/// A value type: each task gets its own copy, so sharing cannot race.
struct Profile: Sendable {
    var name: String
}

/// A final class whose stored properties are `let`s of `Sendable` types: shared, never changed.
final class Endpoint: Sendable {
    let baseURL: String
    let retries: Int

    init(baseURL: String, retries: Int) {
        self.baseURL = baseURL
        self.retries = retries
    }
}

/// Mutable state behind a `Mutex`: `Sendable` checked by the compiler, no `@unchecked` promise.
final class HitCounter: Sendable {
    private let hits = Mutex(0)
    func hit() { hits.withLock { $0 += 1 } }
    var count: Int { hits.withLock { $0 } }
}

/// Not `Sendable`: a mutable class. It can still move into a task with `sending`, if the
/// caller never touches it again (region isolation, SE-0414 and SE-0430).
final class Draft {
    var text = ""
}

extension Chapter07 {
    /// Sends `draft` into a task; the caller may not use it afterwards (the compiler checks).
    static func saveInBackground(_ draft: sending Draft) -> Task<String, Never> {
        Task {
            draft.text += " (saved)"
            return draft.text
        }
    }

    static let sendableDiagnostics: [(kind: Localized, diagnostic: Diagnostic)] = [
        (Localized("a final class, with a `var`", ja: "`final` クラスに `var`"), Diagnostic(
            code: """
            final class Counter: Sendable {
                var count = 0
            }
            """,
            errors: ["stored property 'count' of 'Sendable'-conforming class 'Counter' is mutable"],
            reason: Localized("Two tasks holding the same object could write `count` at once. Make it `let`, put it behind a `Mutex`, or make the type an actor.",
                              ja: "同じオブジェクトを持つ 2 つのタスクが、同時に `count` に書けてしまいます。`let` にするか、`Mutex` の後ろに置くか、型をアクターにします。"))),
        (Localized("a class that is not final", ja: "`final` でないクラス"), Diagnostic(
            code: """
            class Settings: Sendable {
                let name = "default"
            }
            """,
            errors: ["non-final class 'Settings' cannot conform to the 'Sendable' protocol"],
            reason: Localized("A subclass could add a `var` the check never saw.", ja: "サブクラスが、検査されていない `var` を足せてしまいます。"))),
        (Localized("a value type holding a class", ja: "クラスを持つ値型"), Diagnostic(
            preamble: "final class Box { var value = 0 }",
            code: """
            struct Pair: Sendable {
                let box: Box
            }
            """,
            errors: ["stored property 'box' of 'Sendable'-conforming struct 'Pair' has non-Sendable type 'Box'"],
            reason: Localized("Copying the struct copies the reference, not the `Box`: two copies share one mutable object.",
                              ja: "構造体をコピーしても参照がコピーされるだけで、`Box` はコピーされません。2 つのコピーが 1 つの可変オブジェクトを共有します。"))),
        (Localized("a @Sendable closure that changes a var", ja: "`var` を変更する `@Sendable` クロージャ"), Diagnostic(
            code: """
            func makeCounter() -> @Sendable () -> Int {
                var total = 0
                return {
                    total += 1
                    return total
                }
            }
            """,
            errors: ["mutation of captured var 'total' in concurrently-executing code"],
            reason: Localized("A `@Sendable` closure may run on several threads at once: `total += 1` would be the counter race again. (In a task group's `addTask`, which takes a `sending` closure, a build reports the same mistake.)",
                              ja: "`@Sendable` クロージャは複数のスレッドで同時に動き得るので、`total += 1` は再びカウンタの競合になります（`sending` なクロージャを受け取るタスクグループの `addTask` では、同じ誤りをビルドが報告します）。"))),
        (Localized("a value used after `sending` it", ja: "`sending` した後に使う値"), Diagnostic(
            preamble: """
            final class Draft { var text = "" }
            func save(_ draft: sending Draft) {
                Task { draft.text = "saved" }
            }
            """,
            code: """
            func edit() {
                let draft = Draft()
                save(draft)
                print(draft.text)
            }
            """,
            errors: ["sending 'draft' risks causing data races"],
            notes: ["'draft' used after being passed as a 'sending' parameter; Later uses could race"],
            reason: Localized("After `save(draft)` the task owns the draft. Reading it here could race with the task's write. Found by the data-flow check of a build, not by `swiftc -typecheck`.",
                              ja: "`save(draft)` の後、下書きはタスクのものです。ここで読むとタスクの書き込みと競合し得ます。`swiftc -typecheck` ではなく、ビルドのデータフロー検査が見つけます。"),
            needsBuild: true)),
        (Localized("a global var", ja: "グローバルな `var`"), Diagnostic(
            code: """
            var requests = 0
            """,
            errors: ["var 'requests' is not concurrency-safe because it is nonisolated global shared mutable state"],
            notes: ["add '@MainActor' to make var 'requests' part of global actor 'MainActor'"],
            reason: Localized("Any thread may reach a global. Make it a `let`, isolate it to a global actor, or keep it in an actor. (Reported by a build.)",
                              ja: "グローバル変数にはどのスレッドからでも届きます。`let` にするか、グローバルアクターに隔離するか、アクターの中に置きます（ビルドで報告されます）。"),
            needsBuild: true)),
    ]

    static let sendableValues = Scenario(
        slug: "sendable",
        title: Localized("Sendable: what may cross into another task, and the errors for the rest", ja: "`Sendable`: 別のタスクへ渡せるものと、それ以外へのエラー"),
        narration: Localized(
            """
            A value crosses from one task to another only if sharing it cannot race: `Sendable`. \
            1) Each kind, crossing into `tasks` tasks at once: a struct (each task changes its own copy), an actor (one balance, many deposits), \
            a final class of `let`s (read by all), a class whose state is behind a `Mutex` (checked, no `@unchecked`), a `@Sendable` closure, and a non-`Sendable` draft moved into one task with `sending`. \
            2) For each kind, the error Swift 6 gives one step outside it.
            """,
            ja: """
            値があるタスクから別のタスクへ渡れるのは、共有しても競合し得ないときだけです。それが `Sendable` です。\
            1) 各種類を `tasks` 個のタスクへ同時に渡します: 構造体（各タスクが自分のコピーを変える）、アクター（1 つの残高に多数の入金）、\
            `let` だけの `final` クラス（全員が読む）、状態を `Mutex` の後ろに置いたクラス（検査される。`@unchecked` なし）、`@Sendable` クロージャ、そして `sending` で 1 つのタスクへ移す `Sendable` でない下書き。\
            2) 各種類について、一歩外へ出たときに Swift 6 が出すエラー。
            """),
        knobs: [.init("tasks", default: 100, range: 2...10_000, help: Localized("tasks each value is shared with", ja: "各値を共有するタスクの数"))]
    ) { context in
        let tasks = context.knob("tasks")
        let lane = Localized("crossed", ja: "渡した")

        // A struct: copies.
        let original = Profile(name: "Ann")
        let renamed = await withTaskGroup(of: String.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    var mine = original          // this task's copy
                    mine.name += " #\(index)"
                    return mine.name
                }
            }
            var names: [String] = []
            for await name in group { names.append(name) }
            return names
        }
        // An actor: one shared balance.
        let account = Account(id: "A-1")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks { group.addTask { await account.deposit(1) } }
        }
        let balance = await account.currentBalance
        // A final class of lets, a Mutex, a @Sendable closure.
        let endpoint = Endpoint(baseURL: "https://example.com", retries: 3)
        let hits = HitCounter()
        let prefix = "GET "
        let format: @Sendable (String) -> String = { path in prefix + endpoint.baseURL + path }
        let formatted = await withTaskGroup(of: String.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    hits.hit()
                    return format("/items/\(index)")
                }
            }
            var last = ""
            for await line in group { last = max(last, line) }
            return last
        }
        // `sending`: the draft moves into one task.
        let draft = Draft()
        draft.text = "notes"
        let saved = await saveInBackground(draft).value

        context.note("struct original", original.name)
        context.note("struct copies", String(Set(renamed).count))
        context.note("actor balance", String(balance))
        context.note("mutex hits", String(hits.count))
        context.note("sending result", saved)
        context.say(Localized(
            """
            1) Shared with \(tasks) tasks at once:
               `struct Profile`: each task renamed its own copy (\(Set(renamed).count) different names); the original is still "\(original.name)".
               `actor Account`: \(tasks) deposits of 1 → balance \(balance).
               `final class Endpoint` (lets): every task read \(endpoint.baseURL), \(endpoint.retries) retries.
               `final class HitCounter` (`Mutex`): \(hits.count) hits counted.
               `@Sendable` closure: captured `prefix` and `endpoint`, e.g. "\(formatted)".
               `sending Draft`: the task got it and returned "\(saved)"; the caller no longer uses it.
            """,
            ja: """
            1) \(tasks) 個のタスクと同時に共有:
               `struct Profile`: 各タスクが自分のコピーの名前を変えました（異なる名前 \(Set(renamed).count) 個）。元の値は "\(original.name)" のまま。
               `actor Account`: 1 の入金を \(tasks) 回 → 残高 \(balance)。
               `final class Endpoint`（`let` だけ）: すべてのタスクが \(endpoint.baseURL)、リトライ \(endpoint.retries) 回を読みました。
               `final class HitCounter`（`Mutex`）: \(hits.count) 回を数えました。
               @Sendable クロージャ: `prefix` と `endpoint` をキャプチャ。例 "\(formatted)"。
               `sending Draft`: タスクが受け取り "\(saved)" を返しました。呼び出し元はもう使いません。
            """))
        for name in ["`struct`", "`actor`", "`final class`", "`Mutex`", "`@Sendable`", "`sending`"] {
            context.trace.record(.verbatim(name), lane: lane)
        }

        context.say(Localized("2) One step outside each kind:", ja: "2) 各種類から一歩外へ出ると:"))
        let compilerLane = Localized("compiler", ja: "コンパイラ")
        for (kind, diagnostic) in sendableDiagnostics {
            context.say(Localized("  • \(kind.en):", ja: "  • \(kind.ja):"))
            context.show(diagnostic)
            context.trace.record(kind, lane: compilerLane)
        }
    }
}
