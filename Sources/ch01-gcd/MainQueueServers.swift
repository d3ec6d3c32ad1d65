import Dispatch
import Foundation
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Part two of scenario 4: `DispatchQueue.main` and the main actor run on the main thread only
/// while the main thread serves them. Three small programs (this executable's children) treat
/// their main thread three ways and report where a `main.async` block and a `@MainActor` task
/// ran: the lesson is who drains the main queue, not a rule to memorize.
extension Chapter01 {
    /// How a child program uses its main thread after submitting the two probes.
    enum MainThreadUse: String, CaseIterable, Sendable {
        /// What a top-level `async` program's main thread does: hands itself to the Swift
        /// runtime's main-queue drain (`swift_task_asyncMainDrainQueue`).
        case asyncMain = "main-async-drain"
        /// Calls `dispatchMain()`.
        case dispatchMain = "main-dispatch-main"
        /// Stays alive but blocked in a wait, serving nothing.
        case blocked = "main-blocked"

        var description: Localized {
            switch self {
            case .asyncMain:
                Localized("runs top-level async code", ja: "トップレベルの async コードを実行")
            case .dispatchMain:
                Localized("calls dispatchMain()", ja: "dispatchMain() を呼ぶ")
            case .blocked:
                Localized("blocked in a wait", ja: "待ちでブロックされている")
            }
        }
    }

    /// The children, by name, for the chapter's `children` table.
    static let mainThreadUseChildren: [String: @Sendable () -> Never] = Dictionary(
        uniqueKeysWithValues: MainThreadUse.allCases.map { use in
            let body: @Sendable () -> Never = { mainThreadUseChild(use) }
            return (use.rawValue, body)
        })

    /// Submits the two probes, then uses the main thread as `use` says. Prints one line per probe
    /// that ran ("main.async false"); exits once both have reported, or after 1 s.
    static func mainThreadUseChild(_ use: MainThreadUse) -> Never {
        let reported = Locked(0)
        @Sendable func report(_ name: String) {
            Console.line("\(name) \(Thread.isMainThread)")
            if reported.withLock({ $0 += 1; return $0 }) == 2 { exit(0) }
        }
        DispatchQueue.main.async { report("main.async") }
        Task { @MainActor in
            await Task.yield()  // after a suspension, like code after the first `await`
            report("@MainActor")
        }
        Thread.detachNewThread {
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + 1)
            exit(0)
        }
        switch use {
        case .asyncMain:
            guard let drain = dlsym(dlopen(nil, RTLD_NOW), "swift_task_asyncMainDrainQueue") else {
                Console.line("no-drain")
                exit(0)
            }
            // `@convention(c)` is enough: the function takes nothing and never returns.
            unsafeBitCast(drain, to: (@convention(c) () -> Void).self)()
            exit(0)
        case .dispatchMain:
            dispatchMain()
        case .blocked:
            while true { _ = DispatchSemaphore(value: 0).wait(timeout: .distantFuture) }
        }
    }

    /// Runs the three children and shows where each probe ran.
    static func runMainThreadUses(_ context: ScenarioContext) {
        context.say(Localized(
            "Three small programs (child processes) submit the same main.async block and @MainActor task, then use their main thread differently:",
            ja: "3 つの小さなプログラム（子プロセス）が同じ main.async のブロックと @MainActor のタスクを投入し、その後メインスレッドをそれぞれ別の形で使います:"))
        var rows = [[Localized("the main thread …", ja: "メインスレッドは …"), Localized("main.async ran", ja: "main.async の実行場所"),
                     Localized("@MainActor ran", ja: "@MainActor の実行場所")].map { $0.text(context.language) }]
        defer {
            let widths = (0..<2).map { column in rows.map { displayWidth($0[column]) }.max()! + 2 }
            for row in rows { context.show("  " + padded(row[0], to: widths[0]) + padded(row[1], to: widths[1]) + row[2]) }
            context.say(Localized("(never: not within the 1 s the child waits)", ja: "（実行されず: 子プロセスが待つ 1 秒以内には実行されなかった）"))
            context.say(explanation)
        }
        for (number, use) in MainThreadUse.allCases.enumerated() {
            let lane = context.trace.currentThreadLane()
            let label = Localized("child \(number + 1)", ja: "子プロセス \(number + 1)").text(context.language)
            context.trace.begin(label, lane: lane)
            let outcome = context.runChild(use.rawValue, of: "ch01-gcd", timeoutSeconds: 5)
            context.trace.end(label, lane: lane)
            guard let outcome else { return }
            let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
            func place(_ probe: String) -> Localized {
                guard let line = lines.first(where: { $0.hasPrefix(probe + " ") }) else {
                    return Localized("never", ja: "実行されず")
                }
                return line.hasSuffix("true")
                    ? Localized("on the main thread", ja: "メインスレッド")
                    : Localized("on another thread", ja: "別のスレッド")
            }
            let mainAsync = place("main.async"), mainActor = place("@MainActor")
            context.note("\(use.rawValue) main.async", mainAsync.en)
            context.note("\(use.rawValue) @MainActor", mainActor.en)
            rows.append([use.description.text(context.language), mainAsync.text(context.language), mainActor.text(context.language)])
        }
    }

    private static let explanation = Localized(
            """
            The main queue runs on the main thread only while the main thread drains it: a run loop (this REPL, an app) does. \
            dispatchMain() parks the main thread, and libdispatch then runs main-queue blocks on a pool thread (Apple's libdispatch does the same). \
            Top-level async code hands the main thread to the Swift runtime: on Linux the runtime calls dispatchMain(), so after the first await \
            main-actor code runs off the main thread; on Apple platforms it runs the main run loop (CFRunLoopRun) when CoreFoundation is loaded, \
            so it stays on the main thread. A main thread that is alive but blocked serves nothing: the work just waits.
            """,
            ja: """
            メインキューがメインスレッドで動くのは、メインスレッドがそれを処理している間だけです。ランループ（この REPL やアプリ）はそうしています。\
            dispatchMain() はメインスレッドを休止させ、以後 libdispatch はメインキューのブロックをプールのスレッドで実行します（Apple の libdispatch も同じです）。\
            トップレベルの async コードはメインスレッドを Swift のランタイムに渡します。Linux ではランタイムが dispatchMain() を呼ぶので、最初の `await` の後のメインアクターのコードはメインスレッド以外で動きます。\
            Apple のプラットフォームでは CoreFoundation が読み込まれていればメインのランループ（CFRunLoopRun）を回すので、メインスレッドのままです。\
            メインスレッドが生きていてもブロックされていれば何も処理されず、処理は待たされるだけです。
            """)
}
