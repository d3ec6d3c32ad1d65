import Foundation
import WorkbookCore

extension Chapter03 {
    /// `Thread.isMainThread` tells whether code runs on the process's first thread, the one UI
    /// frameworks and `DispatchQueue.main` belong to.
    static let mainThread = Scenario(
        slug: "main-thread",
        title: Localized("Thread.isMainThread", ja: "Thread.isMainThread"),
        narration: Localized(
            """
            The main thread is the process's first thread. UI frameworks (UIKit, AppKit, SwiftUI updates) must be used from it, and `DispatchQueue.main` and the main actor run there. \
            Code asks with `Thread.isMainThread` (or compares `Thread.current` with the main thread: `Thread.main` on Apple platforms, `Thread.mainThread` in Linux Foundation). \
            The scenario asks from four places: the scenario's own thread (T1, made with `Thread`), a new `Thread`, a block on `DispatchQueue.global()`, and a block on `DispatchQueue.main`. \
            Only the last is on the main thread, and it runs there only because this program's main thread keeps serving the main queue (a run loop turns on it); \
            a main thread that is busy or blocked makes main-queue work wait, and one parked in `dispatchMain()` (a test runner's on Linux) leaves it to a pool thread. \
            A new thread is never the main thread, whoever starts it. Doing UI work from a background thread is a bug even when it seems to work; \
            send it to the main queue (or the main actor) instead.
            """,
            ja: """
            メインスレッドはプロセスの最初のスレッドです。UI フレームワーク（UIKit、AppKit、SwiftUI の更新）はそこから使わなければならず、`DispatchQueue.main` とメインアクターもそこで動きます。\
            コードは `Thread.isMainThread` で尋ねます（`Thread.current` をメインスレッドと比べても同じです。メインスレッドは Apple プラットフォームでは `Thread.main`、Linux の Foundation では `Thread.mainThread`）。\
            シナリオは 4 か所から尋ねます。シナリオ自身のスレッド（`Thread` で作った T1）、新しい `Thread`、`DispatchQueue.global()` のブロック、`DispatchQueue.main` のブロックです。\
            メインスレッドにいるのは最後だけで、それもこのプログラムのメインスレッドがメインキューを処理し続けている（ランループが回っている）からです。\
            メインスレッドが忙しいかブロックされていればメインキューの処理は待たされ、`dispatchMain()` で休止していれば（Linux のテストランナーがそうです）プールのスレッドが処理します。\
            新しいスレッドは、誰が開始してもメインスレッドにはなりません。バックグラウンドのスレッドから UI に触れるのは、うまく動いて見えてもバグです。\
            メインキュー（またはメインアクター）に送ってください。
            """)
    ) { context in
        try await blocking { try runMainThread(context) }
    }

    private struct MainProbe: Sendable {
        let place: String
        let lane: String
        let isMainThread: Bool
        let isCurrentMain: Bool
    }

    private static func runMainThread(_ context: ScenarioContext) throws {
        let probes = Locked<[MainProbe]>([])
        let placeNames = [
            "scenario thread": Localized("scenario thread", ja: "シナリオのスレッド"),
            "new Thread": Localized("new Thread", ja: "新しい Thread"),
            "global queue": Localized("global queue", ja: "グローバルキュー"),
            "main queue": Localized("main queue", ja: "メインキュー"),
        ]
        @Sendable func probe(_ place: String) {
            let lane = context.trace.currentThreadLane()
            context.trace.record(placeNames[place] ?? .verbatim(place), lane: lane)
            probes.withLock {
                $0.append(MainProbe(place: place, lane: lane, isMainThread: Thread.isMainThread, isCurrentMain: Thread.current == theMainThread))
            }
        }

        probe("scenario thread")
        try StartedThread { probe("new Thread") }.join(Localized("the thread did not end", ja: "スレッドが終わりませんでした"))
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { probe("global queue"); ran.signal() }
        try wait(for: ran, Localized("the global queue did not run the block", ja: "グローバルキューがブロックを実行しませんでした"))
        DispatchQueue.main.async { probe("main queue"); ran.signal() }
        let mainServed = ran.wait(timeout: .now() + 1) == .success

        func shown(_ place: String) -> String { placeNames[place]?.text(context.language) ?? place }
        for found in probes.current {
            context.show("  \(padded(shown(found.place), to: 20)) \(padded(found.lane, to: 5)) Thread.isMainThread=\(found.isMainThread)  Thread.current == \(mainThreadSpelling): \(found.isCurrentMain)")
        }
        let onMain = probes.current.filter(\.isMainThread).map(\.place)
        context.note("on the main thread", onMain.joined(separator: ","))
        context.note("main queue served", String(mainServed))
        if !mainServed {
            context.say(Localized(
                "  The main-queue block did not run within 1 s: this process's main thread is alive but busy or blocked, so main-queue work waits until it gets to it.",
                ja: "  メインキューのブロックは 1 秒以内に動きませんでした。このプロセスのメインスレッドは生きていますが、忙しいかブロックされているので、メインキューの処理はメインスレッドが手を空けるまで待たされます。"))
        }
        if mainServed && !onMain.contains("main queue") {
            context.say(Localized(
                "  The main-queue block ran, but off the main thread: this process's main thread is parked in dispatchMain() (a test runner's async main on Linux), so libdispatch drains the main queue on a pool thread. Code that needs the main thread must not assume DispatchQueue.main gives it one everywhere.",
                ja: "  メインキューのブロックは動きましたが、メインスレッドの外でした。このプロセスのメインスレッドは dispatchMain() で休止している（Linux のテストランナーの async な main）ので、libdispatch がメインキューをプールのスレッドで処理したのです。メインスレッドが必要なコードは、DispatchQueue.main がどこでもメインスレッドをくれると思い込んではいけません。"))
        }
        context.say(Localized("  On the main thread: \(onMain.isEmpty ? "none" : onMain.map(shown).joined(separator: ", ")).",
                              ja: "  メインスレッドで動いたもの: \(onMain.isEmpty ? "なし" : onMain.map(shown).joined(separator: "、"))。"))
    }
}

/// The main thread's `Thread`: Apple's Foundation imports `+[NSThread mainThread]` as
/// `Thread.main`; swift-corelibs-foundation names it `Thread.mainThread` (its `main` is the
/// instance method a thread runs).
#if canImport(Darwin)
private var theMainThread: Thread { Thread.main }
private let mainThreadSpelling = "Thread.main"
#else
private var theMainThread: Thread { Thread.mainThread }
private let mainThreadSpelling = "Thread.mainThread"
#endif
