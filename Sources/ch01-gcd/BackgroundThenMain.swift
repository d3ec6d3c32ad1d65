import Dispatch
import Foundation
import WorkbookCore

extension Chapter01 {
    /// The everyday pattern: slow work on a global queue, then the result to the main queue,
    /// where the UI is updated.
    static let backgroundThenMain = Scenario(
        slug: "background-then-main",
        title: Localized("Work in the background, then update the UI on the main queue", ja: "重い処理はバックグラウンドで、UI の更新はメインキューで"),
        narration: Localized(
            """
            An app keeps its main thread free for events and drawing, so slow work (decoding images here) goes to \
            `DispatchQueue.global(qos: .userInitiated)`, and the result comes back with `DispatchQueue.main.async`, \
            because UI objects may be touched only on the main thread. \
            The timeline shows the hop: the decoding bar on a pool thread, then the UI update on the main lane; the main lane stays free meanwhile. \
            `DispatchQueue.main.async` is a hop to the thread that owns the UI, not a way to make code thread-safe: \
            adding it wherever a checker complains moves code to later and changes the order of events. \
            Decide which thread owns which state, and hop exactly where work crosses that line. \
            In Swift 6 the UI types are `@MainActor`, and the compiler points at every crossing (the chapter text has the example).
            """,
            ja: """
            アプリはイベント処理と描画のためにメインスレッドを空けておくので、時間のかかる処理（ここでは画像のデコード）は \
            `DispatchQueue.global(qos: .userInitiated)` に送り、結果は `DispatchQueue.main.async` で戻します。\
            UI のオブジェクトはメインスレッドでしか触ってはいけないからです。\
            タイムラインにはそのホップが表れます。デコードのバーはプールのスレッドに、UI の更新は `main` のレーンにあり、その間 `main` は空いています。\
            `DispatchQueue.main.async` は UI を所有するスレッドへのホップであって、コードをスレッドセーフにするものではありません。\
            チェッカーが警告するたびに付け足しても、コードが後回しになり、イベントの順番が変わるだけです。\
            どのスレッドがどの状態を所有するかを決め、処理がその境界をまたぐ箇所でだけホップしてください。\
            Swift 6 では UI の型は `@MainActor` なので、境界をまたぐ箇所はすべてコンパイラが指摘します（例は本文にあります）。
            """)
    ) { context in
        try await blocking { try runBackgroundThenMain(context) }
    }

    private static func runBackgroundThenMain(_ context: ScenarioContext) throws {
        let shown = DispatchSemaphore(value: 0)
        let decodeLabel = Localized("decode images", ja: "画像をデコード").text(context.language)
        let updateLabel = Localized("update the UI", ja: "UI を更新").text(context.language)
        context.trace.record(Localized("tap", ja: "タップ").text(context.language), lane: "main")
        DispatchQueue.global(qos: .userInitiated).async {
            let count = context.trace.span(decodeLabel) { () -> Int in
                spin(microseconds: 2_000)
                return 12
            }
            DispatchQueue.main.async {
                context.trace.span(updateLabel) { spin(microseconds: 300) }
                context.note("update on main queue", String(MainQueueMark.isCurrent))
                context.say(Localized("  main: label.text = \"\(count) images\" (Thread.isMainThread=\(Thread.isMainThread))",
                                      ja: "  main: label.text = \"\(count) 枚\"（Thread.isMainThread=\(Thread.isMainThread)）"))
                shown.signal()
            }
        }
        try wait(for: shown, Localized("the main queue did not run the update", ja: "メインキューが更新を実行しませんでした"))
    }
}
