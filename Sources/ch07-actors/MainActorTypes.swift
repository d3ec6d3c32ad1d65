import Foundation
import WorkbookCore

/// A protocol isolated to the main actor, the way UIKit declares its view controllers
/// (`@MainActor class UIViewController`): what conforms to it lives on the main actor too.
@MainActor protocol Screen: AnyObject {
    var title: String { get }
    func render() -> String
}

/// No annotation of its own: conforming to `Screen` in its declaration makes the class
/// `@MainActor` (the compiler infers it).
final class SettingsScreen: Screen {
    var title = "Settings"
    private(set) var renders = 0

    func render() -> String {
        MainActor.assertIsolated("render() runs on the main actor")
        renders += 1
        return isolationName(#isolation)
    }
}

/// A class marked `@MainActor` itself: its state and methods are the main actor's.
@MainActor final class Toast {
    private(set) var shown: [String] = []

    func show(_ message: String) -> String {
        MainActor.assertIsolated("show(_:) runs on the main actor")
        shown.append(message)
        return isolationName(#isolation)
    }
}

/// A global function on the main actor.
@MainActor func updateBadge(_ count: Int) -> String {
    MainActor.assertIsolated("updateBadge(_:) runs on the main actor")
    return isolationName(#isolation)
}

extension Chapter07 {
    static let mainActorDiagnostic = Diagnostic(
        preamble: """
        @MainActor protocol Screen: AnyObject {
            func render() -> String
        }
        final class SettingsScreen: Screen {
            var title = "Settings"
            func render() -> String { title }
        }
        """,
        code: """
        func draw(_ screen: SettingsScreen) -> String {
            screen.render()
        }
        """,
        errors: ["call to main actor-isolated instance method 'render()' in a synchronous nonisolated context"],
        notes: ["main actor isolation inferred from conformance to protocol 'Screen'"],
        reason: Localized(
            "`SettingsScreen` says nothing about actors, yet its methods are the main actor's: the protocol made them so. A synchronous caller off the main actor cannot call them; an `async` one must `await`.",
            ja: "`SettingsScreen` はアクターについて何も書いていませんが、そのメソッドはメインアクターのものです。プロトコルがそうしました。メインアクター外の同期的な呼び出し元は呼べず、`async` な呼び出し元は `await` が必要です。"))

    static let mainActorTypes = Scenario(
        slug: "main-actor-types",
        title: Localized("@MainActor on protocols, classes and functions: isolation, not a thread", ja: "プロトコル、クラス、関数への @MainActor: スレッドではなく隔離"),
        narration: Localized(
            """
            `@MainActor` is a global actor: the isolation domain of UI code. It can mark a protocol (what conforms to it is inferred `@MainActor`), a class, a function, a closure type. \
            A task that is not on the main actor calls each of them with `await`; inside, each reports its `#isolation` and checks `MainActor.assertIsolated()`. \
            Then what the compiler says when a synchronous function off the main actor calls a method of a class that conforms to a `@MainActor` protocol. \
            The scenario never asks which thread: on Linux under `swift test` the main actor's jobs run on a thread that is not the main thread, and they are still the main actor's.
            """,
            ja: """
            `@MainActor` はグローバルアクターで、UI のコードの隔離ドメインです。プロトコル（それに準拠する型は `@MainActor` と推論されます）、クラス、関数、クロージャ型に付けられます。\
            メインアクター上にないタスクが、それぞれを `await` で呼びます。中では、それぞれが `#isolation` を報告し、`MainActor.assertIsolated()` で確かめます。\
            続いて、メインアクター外の同期関数が、`@MainActor` なプロトコルに準拠するクラスのメソッドを呼ぶと、コンパイラが何と言うか。\
            このシナリオはどのスレッドかを一度も尋ねません。Linux の `swift test` ではメインアクターのジョブはメインスレッドではないスレッドで動きますが、それでもメインアクターのジョブです。
            """)
    ) { context in
        let lane = Localized("main actor", ja: "メインアクター")
        let caller = Localized("detached task", ja: "Task.detached のタスク")
        let onTap: @MainActor @Sendable () -> String = {
            MainActor.assertIsolated("the closure runs on the main actor")
            return isolationName(#isolation)
        }
        let rows = await Task.detached { () -> [(String, String, String)] in
            let from = isolationName(#isolation)
            let screen = SettingsScreen()
            let toast = Toast()
            var rows: [(String, String, String)] = []
            rows.append(("`@MainActor protocol Screen → SettingsScreen.render()`", from, await screen.render()))
            rows.append(("`@MainActor final class Toast → show(_:)`", from, await toast.show("Saved")))
            rows.append(("`@MainActor func updateBadge(_:)`", from, await updateBadge(3)))
            rows.append(("`let onTap: @MainActor () -> String`", from, await onTap()))
            rows.append(("`Task { @MainActor in … }`", from, await Task { @MainActor in
                MainActor.assertIsolated("the task runs on the main actor")
                return isolationName(#isolation)
            }.value))
            return rows
        }.value
        context.show("  " + padded("", to: 58) + padded(context.text(Localized("caller", ja: "呼び出し元")), to: 11) + context.text(Localized("inside", ja: "中")))
        for (code, from, inside) in rows {
            context.show("  " + padded(code, to: 58) + padded(from, to: 11) + inside)
            context.trace.record(.verbatim(inside), lane: lane)
        }
        context.trace.record(.verbatim("#isolation: \(rows.first?.1 ?? "?")"), lane: caller)
        context.note("main actor isolations", rows.map(\.2).joined(separator: ","))
        context.note("caller isolation", rows.first?.1 ?? "")
        context.say(Localized(
            "Called from a task whose `#isolation` is nil, each ran isolated to the main actor, and `MainActor.assertIsolated()` held in each. The `await` at each call is the hop onto the main actor.",
            ja: "`#isolation` が nil のタスクから呼ばれ、どれもメインアクターに隔離されて動き、どれでも `MainActor.assertIsolated()` が成り立ちました。各呼び出しの `await` が、メインアクターへのホップです。"))
        context.say(Localized("A synchronous function off the main actor:", ja: "メインアクター外の同期関数:"))
        context.show(mainActorDiagnostic)
    }
}
