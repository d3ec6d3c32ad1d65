import Ch07LegacyLibrary
import Dispatch
import Foundation
import WorkbookCore

/// Code that is not isolated, handed a callback the library documents as "on the main queue":
/// `MainActor.assumeIsolated` states that promise, and checks it when the callback comes.
final class LegacyAdapter: Sendable {
    func load(_ path: String, into toast: Toast, using client: LegacyNetworkClient, done: @escaping @Sendable (String) -> Void) {
        client.fetch(path) { reply in
            let isolation = MainActor.assumeIsolated {   // checked: stops the program if wrong
                toast.show(reply)
            }
            done(isolation)
        }
    }
}

/// A view model in this Swift 6 module handing a `@MainActor` closure to the Swift 5 library.
/// Nothing is written about checks: the compiler adds one at the closure's start (SE-0423),
/// because the library was not compiled with these checks and may call it from anywhere.
@MainActor final class LegacyFeedModel {
    private(set) var text = ""
    let client: LegacyNetworkClient

    init(delivery: LegacyNetworkClient.Delivery) {
        client = LegacyNetworkClient(delivery: delivery)
    }

    func load(_ done: @escaping @MainActor (String) -> Void) {
        client.fetch("/feed") { reply in
            self.text = reply
            done(isolationName(#isolation))
        }
    }
}

/// A `@MainActor` screen as the delegate of the Swift 5 downloader. The protocol's requirement is
/// not isolated, so the conformance is `@preconcurrency`: allowed, with a check in the witness.
@MainActor final class DownloadScreen: @preconcurrency LegacyDownloadDelegate {
    private(set) var finished: [String] = []
    private var downloader: LegacyDownloader?      // the downloader holds its delegate weakly
    private var onFinish: (@MainActor (String) -> Void)?

    func download(_ name: String, delivery: LegacyNetworkClient.Delivery, onFinish: @escaping @MainActor (String) -> Void) {
        self.onFinish = onFinish
        let downloader = LegacyDownloader(delivery: delivery)
        downloader.delegate = self
        self.downloader = downloader
        downloader.start(name)
    }

    func downloadDidFinish(_ name: String) {
        finished.append(name)
        onFinish?(isolationName(#isolation))
    }
}

extension Chapter07 {
    static let legacyCallbackChild = "legacy-callback-off-main"
    static let legacyDelegateChild = "legacy-delegate-off-main"

    /// The child for part 2: the library calls back on its own queue.
    static func legacyCallbackOffMain() -> Never {
        Task { @MainActor in
            let model = LegacyFeedModel(delivery: .ownQueue)       // kept by the pending callback
            model.load { _ in Console.line("the callback ran") }   // not reached: the check stops it first
        }
        serveMainThreadThenExit()
    }

    /// The child for part 3: the downloader calls its delegate on its own queue.
    static func legacyDelegateOffMain() -> Never {
        Task { @MainActor in
            let screen = DownloadScreen()
            screen.download("report.pdf", delivery: .ownQueue) { _ in Console.line("the delegate ran") }
            try? await Task.sleep(for: .seconds(10))   // keeps the screen until the child ends
            withExtendedLifetime(screen) {}
        }
        serveMainThreadThenExit()
    }

    /// The conformance the compiler refuses without `@preconcurrency`.
    static let conformanceDiagnostic = Diagnostic(
        code: """
        protocol Refreshable {
            func refresh()
        }
        @MainActor final class FeedScreen: Refreshable {
            var items: [String] = []
            func refresh() { items = [] }
        }
        """,
        errors: ["conformance of 'FeedScreen' to protocol 'Refreshable' crosses into main actor-isolated code and can cause data races"],
        notes: ["turn data races into runtime errors with '@preconcurrency'"],
        reason: Localized(
            "Any code may call `refresh()` through the protocol, from any thread. `@preconcurrency` on the conformance accepts it and adds the run-time check; Swift 6.2 also offers an isolated conformance (`@MainActor Refreshable`), usable only from the main actor.",
            ja: "プロトコル経由なら、どのコードでもどのスレッドからでも `refresh()` を呼べます。準拠に `@preconcurrency` を付けるとこれが受け入れられ、実行時の確認が加わります。Swift 6.2 には隔離された準拠（`@MainActor Refreshable`）もあり、メインアクターからしか使えません。"))

    static let dynamicChecks = Scenario(
        slug: "dynamic-checks",
        title: Localized("MainActor.assumeIsolated and the checks Swift 6 adds at the boundary", ja: "MainActor.assumeIsolated と、Swift 6 が境界に加える確認"),
        narration: Localized(
            """
            `Ch07LegacyLibrary` plays a library written before strict concurrency (compiled in the Swift 5 mode): a network client and a downloader that call back on a queue of their own, or on the main queue when told to. \
            1) Nonisolated code handed a callback documented to come on the main queue: `MainActor.assumeIsolated { … }` runs the closure on the main actor after checking that it is there. \
            2) A `@MainActor` view model hands a closure to the library. Swift 6 inserts a check at the closure's start (SE-0423): on the main queue it passes; on the library's own queue (a child process, `ch07-actors --child legacy-callback-off-main`) it stops the program at the boundary, \
            where the slides' code would have run on and crashed later inside UIKit. \
            3) A `@MainActor` screen conforming to the library's delegate protocol with `@preconcurrency`: the same check in the conformance (child `legacy-delegate-off-main`), and the error without `@preconcurrency`.
            """,
            ja: """
            `Ch07LegacyLibrary` は、厳格な並行性チェックより前に書かれたライブラリ（Swift 5 モードでコンパイル）の役です。自分のキューで、または指定すればメインキューでコールバックするネットワーククライアントとダウンローダがあります。\
            1) メインキューで来るとドキュメントにあるコールバックを、隔離されていないコードが受け取ります: `MainActor.assumeIsolated { … }` は、メインアクター上にいることを確かめてから、クロージャをメインアクター上で実行します。\
            2) `@MainActor` のビューモデルがライブラリにクロージャを渡します。Swift 6 はクロージャの先頭に確認を挿入します（SE-0423）。メインキューなら通り、ライブラリ自身のキューなら（子プロセス、`ch07-actors --child legacy-callback-off-main`）境界でプログラムを止めます。\
            スライドのコードなら、そのまま進んで後で UIKit の中でクラッシュしていたところです。\
            3) `@MainActor` の画面が、ライブラリのデリゲートプロトコルに `@preconcurrency` 付きで準拠します: 準拠にも同じ確認が入ります（子プロセス `legacy-delegate-off-main`）。`@preconcurrency` がないときのエラーも見ます。
            """)
    ) { context in
        let lane = Localized("main queue", ja: "メインキュー")

        // 1) assumeIsolated.
        let toast = Toast()
        let adapter = LegacyAdapter()
        let mainClient = LegacyNetworkClient(delivery: .mainQueue)
        let assumed = await withCheckedContinuation { continuation in
            adapter.load("/inbox", into: toast, using: mainClient) { continuation.resume(returning: $0) }
        }
        context.note("assumeIsolated isolation", assumed)
        context.trace.record(Localized("assumeIsolated: \(assumed)", ja: "assumeIsolated: \(assumed)"), lane: lane)
        context.say(Localized(
            "1) The callback came on the main queue; inside `MainActor.assumeIsolated { … }` the code was on the main actor (`#isolation` \(assumed)) and could call the toast synchronously. Had it come elsewhere, the check would have stopped the program there.",
            ja: "1) コールバックはメインキューで来ました。`MainActor.assumeIsolated { … }` の中のコードはメインアクター上にあり（`#isolation` は \(assumed)）、トーストを同期的に呼べました。別の場所で来ていたら、確認がその場でプログラムを止めていたでしょう。"))

        // 2) The inserted check on a closure handed to the library.
        let onMain = await withCheckedContinuation { continuation in
            Task { @MainActor in
                LegacyFeedModel(delivery: .mainQueue).load { continuation.resume(returning: $0) }
            }
        }
        context.note("legacy main queue isolation", onMain)
        context.trace.record(Localized("callback: \(onMain)", ja: "コールバック: \(onMain)"), lane: lane)
        context.say(Localized(
            "2) A `@MainActor` closure handed to the Swift 5 client: called on the main queue, it ran (`#isolation` \(onMain)). Called on the client's own queue (child process):",
            ja: "2) Swift 5 のクライアントに渡した `@MainActor` のクロージャ: メインキューで呼ばれると動きました（`#isolation` は \(onMain)）。クライアント自身のキューで呼ばれると（子プロセス）:"))
        let childLane = Localized("child process", ja: "子プロセス")
        context.trace.begin(.verbatim("--child \(legacyCallbackChild)"), lane: childLane)
        let callbackCrash = context.runCrashingChild(legacyCallbackChild)
        context.trace.end(.verbatim("--child \(legacyCallbackChild)"), lane: childLane)
        if let callbackCrash {
            context.note("callback child termination", "\(callbackCrash.termination)")
            context.note("callback child frames", callbackCrash.frames.joined(separator: " | "))
            context.report(callbackCrash)
        }

        // 3) A @preconcurrency conformance.
        let screen = await DownloadScreen()
        let delegated = await withCheckedContinuation { continuation in
            Task { @MainActor in
                screen.download("report.pdf", delivery: .mainQueue) { continuation.resume(returning: $0) }
            }
        }
        context.note("delegate main queue isolation", delegated)
        context.trace.record(Localized("delegate: \(delegated)", ja: "デリゲート: \(delegated)"), lane: lane)
        context.say(Localized(
            "3) `DownloadScreen: @preconcurrency LegacyDownloadDelegate`: called on the main queue, downloadDidFinish ran (`#isolation` \(delegated)). Called on the downloader's own queue (child process):",
            ja: "3) `DownloadScreen: @preconcurrency LegacyDownloadDelegate`: メインキューで呼ばれると downloadDidFinish は動きました（`#isolation` は \(delegated)）。ダウンローダ自身のキューで呼ばれると（子プロセス）:"))
        context.trace.begin(.verbatim("--child \(legacyDelegateChild)"), lane: childLane)
        let delegateCrash = context.runCrashingChild(legacyDelegateChild)
        context.trace.end(.verbatim("--child \(legacyDelegateChild)"), lane: childLane)
        if let delegateCrash {
            context.note("delegate child termination", "\(delegateCrash.termination)")
            context.note("delegate child frames", delegateCrash.frames.joined(separator: " | "))
            context.report(delegateCrash)
        }
        context.say(Localized("   Without `@preconcurrency`, a conformance like it does not compile:", ja: "   `@preconcurrency` がなければ、このような準拠はコンパイルできません:"))
        context.show(conformanceDiagnostic)
        context.say(Localized(
            "Swift 6 puts these checks only where code compiled without them can reach isolated code: closures handed to such libraries, `@preconcurrency` conformances, `@objc` entry points. Calls between Swift 6 modules need none: the compiler proved them.",
            ja: "Swift 6 がこれらの確認を置くのは、確認なしでコンパイルされたコードが隔離されたコードに届き得る場所だけです: そうしたライブラリに渡すクロージャ、`@preconcurrency` の準拠、`@objc` の入口。Swift 6 のモジュール同士の呼び出しには要りません。コンパイラが証明済みだからです。"))
    }
}
