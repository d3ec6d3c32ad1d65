import Foundation
import WorkbookCore
#if compiler(>=6.2)
import Ch07XcodeDefaults
#endif

/// The same function as `Ch07XcodeDefaults.decodeProfile()`, in this package's plain Swift 6
/// mode: a `nonisolated async` function runs off any actor, on the global executor (SE-0338),
/// whoever calls it.
nonisolated func decodeProfileHere() async -> String {
    isolationName(#isolation)
}

extension Chapter07 {
    /// Where each function ran, called from the main actor and from a detached task.
    struct DefaultsRow: Sendable {
        let code: String
        let fromMainActor: String
        let fromDetached: String
    }

    #if compiler(>=6.2)
    @MainActor private static func calledFromMainActor() async -> [String] {
        let screen = ProfileScreen()
        let reload = await screen.reload()
        return [await decodeProfileHere(), await decodeProfile(), await decodeProfileConcurrently(), reload.screen,
                await startTaskFromNonisolatedCode().value, await startTaskFromDefaultCode().value]
    }

    private static func calledFromDetachedTask() async -> [String] {
        await Task.detached {
            [await decodeProfileHere(), await decodeProfile(), await decodeProfileConcurrently()]
        }.value
    }
    #endif

    static let xcodeDefaults = Scenario(
        slug: "xcode-26-defaults",
        title: Localized("Xcode 26's defaults: main actor by default, nonisolated async on the caller's actor", ja: "Xcode 26 の既定: 既定でメインアクター、`nonisolated async` は呼び出し元のアクターで"),
        narration: Localized(
            """
            Swift 6.2 added two settings that Xcode 26 exposes as build settings: default main-actor isolation (SE-0466: a declaration with no isolation of its own is `@MainActor`) \
            and `NonisolatedNonsendingByDefault` (SE-0461: a `nonisolated async` function runs on its caller's actor; `@concurrent` moves it off). \
            The package builds a target, `Ch07XcodeDefaults`, with both — only where the compiler has them — beside this chapter's plain Swift 6 mode. \
            The same `nonisolated async` function is called in each mode from the main actor and from a detached task, and reports its `#isolation`; so do a `@concurrent` one, a class with no annotation, \
            and a `Task {}` written in a `nonisolated` function and in one with no annotation.
            """,
            ja: """
            Swift 6.2 は、Xcode 26 がビルド設定として出している 2 つの設定を加えました: 既定のメインアクター隔離（SE-0466: 自分の隔離を持たない宣言は `@MainActor`）と、\
            `NonisolatedNonsendingByDefault`（SE-0461: `nonisolated async` な関数は呼び出し元のアクターで動く。`@concurrent` で外へ出せる）です。\
            このパッケージは、コンパイラがそれを持つ場合に限り、両方を有効にしたターゲット `Ch07XcodeDefaults` を、この章の普通の Swift 6 モードと並べてビルドします。\
            同じ `nonisolated async` 関数を、それぞれのモードでメインアクターと `Task.detached` のタスクから呼び、`#isolation` を報告させます。`@concurrent` な関数、注釈のないクラス、\
            `nonisolated` な関数と注釈のない関数に書いた `Task {}` も同様です。
            """),
        prediction: .init(
            question: Localized(
                "Built with Xcode 26's defaults, a nonisolated async function is called from the main actor. Where does it run? A) on the main actor B) on the global executor, as in Swift 6.0",
                ja: "Xcode 26 の既定でビルドされた `nonisolated async` 関数を、メインアクターから呼びます。どこで動く？ A) メインアクター上 B) Swift 6.0 と同じくグローバルエグゼキュータ上"),
            explanation: Localized(
                "A. With NonisolatedNonsendingByDefault, `nonisolated` on an async function means \"the caller's isolation\": called from the main actor it stays there, and from a detached task it runs off any actor. Mark it `@concurrent` to always leave the caller's actor — what every `nonisolated async` function did before.",
                ja: "A です。NonisolatedNonsendingByDefault では、async 関数の `nonisolated` は「呼び出し元の隔離」を意味します。メインアクターから呼べばそこに留まり、detached タスクから呼べばどのアクターの外でも動きます。常に呼び出し元のアクターを離れるには `@concurrent` を付けます。以前はすべての `nonisolated async` 関数がそうしていました。"),
            observe: { $0.noted("defaults letter") ?? "" },
            isPossible: { $0 == "A" })
    ) { context in
        let lane = Localized("#isolation", ja: "#isolation")
        #if compiler(>=6.2)
        let main = await calledFromMainActor()
        let detached = await calledFromDetachedTask()
        let rows = [
            DefaultsRow(code: "Swift 6:  `nonisolated func … async`", fromMainActor: main[0], fromDetached: detached[0]),
            DefaultsRow(code: "Xcode 26: `nonisolated func … async`", fromMainActor: main[1], fromDetached: detached[1]),
            DefaultsRow(code: "Xcode 26: `@concurrent func … async`", fromMainActor: main[2], fromDetached: detached[2]),
        ]
        let headers = [Localized("from the main actor", ja: "メインアクターから"), Localized("from Task.detached", ja: "Task.detached から")]
        context.show("  " + padded("", to: 38) + padded(context.text(headers[0]), to: 21) + context.text(headers[1]))
        for row in rows {
            context.show("  " + padded(row.code, to: 38) + padded(row.fromMainActor, to: 21) + row.fromDetached)
            context.trace.record(.verbatim("\(row.fromMainActor) / \(row.fromDetached)"), lane: lane)
        }
        context.note("swift 6 from main", main[0])
        context.note("defaults from main", main[1])
        context.note("defaults from detached", detached[1])
        context.note("concurrent from main", main[2])
        context.note("unannotated class", main[3])
        context.note("task in nonisolated func", main[4])
        context.note("task in unannotated func", main[5])
        context.note("defaults letter", main[1] == "MainActor" ? "A" : "B")
        context.say(Localized(
            """
            In the Xcode 26 target, `final class ProfileScreen` with no annotation ran on \(main[3]). \
            A `Task {}` written in a `nonisolated` function there: \(main[4]); in a function with no annotation: \(main[5]). \
            The rule of scenario 8 holds in both modes: a task takes the isolation of the code it is written in. \
            What changed is the default of that code, and where a `nonisolated async` function runs: on the caller's actor, unless it is `@concurrent`. \
            Code moved between the two kinds of target keeps its text and changes where it runs.
            """,
            ja: """
            Xcode 26 のターゲットでは、注釈のない `final class ProfileScreen` は \(main[3]) で動きました。\
            そこで `nonisolated` な関数に書いた `Task {}`: \(main[4])。注釈のない関数に書いた場合: \(main[5])。\
            シナリオ 8 の規則はどちらのモードでも成り立ちます。タスクは、それが書かれたコードの隔離を受け取ります。\
            変わったのはそのコードの既定と、`nonisolated async` な関数がどこで動くかです。`@concurrent` でなければ、呼び出し元のアクターで動きます。\
            2 種類のターゲットの間でコードを移すと、文面は同じまま、動く場所が変わります。
            """))
        #else
        context.trace.record(Localized("needs Swift 6.2", ja: "Swift 6.2 が必要"), lane: lane)
        context.say(Localized(
            "This compiler is older than Swift 6.2 (Xcode 26): the package does not build `Ch07XcodeDefaults`, so this scenario has nothing to run. The chapter text shows what Swift 6.3.1 printed.",
            ja: "このコンパイラは Swift 6.2（Xcode 26）より古いので、パッケージは `Ch07XcodeDefaults` をビルドしません。このシナリオで実行するものはありません。章の本文に Swift 6.3.1 での出力があります。"))
        #endif
    }
}
