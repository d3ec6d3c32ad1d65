import Foundation
import WorkbookCore

extension Chapter03 {
    /// A `Thread` runs one closure on a new OS thread: created, named, started, and then on its own.
    static let threadBasics = Scenario(
        slug: "thread-basics",
        title: Localized("Creating, naming and starting threads", ja: "スレッドを作り、名前を付けて、開始する"),
        narration: Localized(
            """
            `Thread { … }` creates a thread object around a closure; nothing runs until `start()`, which asks the OS for a new thread and returns at once. \
            The caller (T1) starts `threads` threads in order A, B, C, …; each prints its letter. \
            `start()` only makes a thread runnable: when it really runs is up to the OS scheduler, so the letters may come out in any order. \
            Then names: a name helps in a debugger and a crash log. Set from outside before `start()`, as most code does, and read back inside with `Thread.current.name`; \
            then set from inside the thread. The scenario also asks the OS what it calls the thread. \
            Last, the state flags: `isExecuting` while the closure runs, `isFinished` once it has returned; \
            right after `start()` `isExecuting` is usually still false, but the new thread may already be running. \
            There is no `join()`: to wait for a thread, it must signal (here a semaphore) when it ends. \
            The classic form subclasses `Thread` and overrides `main()`; on Apple platforms that compiles, but this Linux toolchain refuses it (see the chapter text), so the closure form is the portable one.
            """,
            ja: """
            `Thread { … }` はクロージャを包むスレッドオブジェクトを作ります。`start()` を呼ぶまで何も動きません。`start()` は OS に新しいスレッドを要求し、すぐに戻ります。\
            呼び出し元（T1）は `threads` 本のスレッドを A、B、C … の順に開始し、それぞれが自分の文字を出力します。\
            `start()` はスレッドを実行可能にするだけです。実際にいつ動くかは OS のスケジューラ次第なので、文字はどの順番でも出力され得ます。\
            次は名前です。名前はデバッガやクラッシュログで役に立ちます。多くのコードのように `start()` の前に外から付けて、中で `Thread.current.name` で読み返します。\
            続いてスレッドの中から付けます。シナリオは、OS がそのスレッドを何と呼んでいるかも調べます。\
            最後は状態フラグです。クロージャの実行中は `isExecuting` が、戻った後は `isFinished` が true になります。\
            `start()` の直後の `isExecuting` はたいてい false ですが、新しいスレッドがもう動いていることもあります。\
            `join()` はありません。スレッドの終わりを待つには、終わるときにスレッド自身が知らせる（ここではセマフォ）必要があります。\
            古典的な書き方は `Thread` をサブクラス化して `main()` をオーバーライドするものです。Apple のプラットフォームではコンパイルできますが、この Linux のツールチェーンは受け付けません（本文参照）。どこでも動くのはクロージャの書き方です。
            """),
        knobs: [
            .init("threads", default: 3, range: 1...8, help: Localized("threads started, A, B, C, …", ja: "開始するスレッドの数（A、B、C …）")),
        ],
        prediction: .init(
            question: Localized(
                "T1 starts three threads in the order A, B, C; each prints its letter. What does this run print?",
                ja: "T1 が 3 本のスレッドを A、B、C の順に開始し、それぞれが自分の文字を出力します。この実行では何と出力されるでしょう？"),
            explanation: Localized(
                "Any order of A, B and C. start() returns as soon as the thread can run; which runnable thread gets a core first is the OS's choice, so starting in order does not mean running in order.",
                ja: "A、B、C のどの並びもあり得ます。start() はスレッドが動ける状態になった時点で戻ります。動けるスレッドのどれが先にコアを得るかは OS が決めるので、順に開始しても順に動くとは限りません。"),
            observe: { $0.noted("order") ?? "" },
            // Any order of the letters the run started (`threads` of them).
            isPossibleAfter: { answer, run in
                answer.sorted() == Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ".prefix(run.knob("threads")))
            })
    ) { context in
        try await blocking { try runThreadBasics(context) }
    }

    private static func runThreadBasics(_ context: ScenarioContext) throws {
        let caller = context.trace.currentThreadLane()
        let stuck = Localized("a thread did not end", ja: "スレッドが終わりませんでした")

        // Part one: start in order, run in any order.
        let count = context.knob("threads")
        let letters = (0..<count).map { String(UnicodeScalar(UInt8(65 + $0))) }
        context.say(Localized("1) Start \(count) thread(s) in the order \(letters.joined()):",
                              ja: "1) \(count) 本のスレッドを \(letters.joined()) の順に開始:"))
        let printed = Locked("")
        context.trace.record(Localized("start \(letters.joined(separator: ", "))", ja: "\(letters.joined(separator: ", ")) を開始"), lane: caller)
        let threads = letters.map { letter in
            StartedThread {
                let lane = context.trace.currentThreadLane()
                context.trace.span(letter, lane: lane) { spin(microseconds: 300) }
                printed.withLock { $0 += letter }
                context.printLine(letter, lane: lane)
            }
        }
        for thread in threads { try thread.join(stuck) }
        context.note("order", printed.current)
        context.say(Localized("  printed \(printed.current)", ja: "  出力は \(printed.current)"))

        // Part two: names, from outside and from inside.
        /// The calling thread's names, as strings: Foundation's and the OS's.
        @Sendable func describeNames() -> String {
            "Thread.current.name = \(Thread.current.name.map { "\"\($0)\"" } ?? "nil"), OS: \"\(osThreadName())\""
        }
        context.say(Localized("2) Names:", ja: "2) 名前:"))
        let seenInside = Locked("")
        let namedOutside = StartedThread(name: "downloader") {
            seenInside.withLock { $0 = describeNames() }
        }
        try namedOutside.join(stuck)
        context.say(Localized("  thread.name = \"downloader\" set before start(); inside: \(seenInside.current)",
                              ja: "  start() の前に thread.name = \"downloader\"。中から見ると: \(seenInside.current)"))
        let outsideTook = seenInside.current.contains("downloader")
        // This Foundation passes the name to the OS through the handle `start()` stores after the
        // thread is running: a name set before that was lost 1 time in 200. Wait for it.
        let startReturned = DispatchSemaphore(value: 0)
        let namedInside = StartedThread {
            startReturned.wait()
            Thread.current.name = "downloader"
            seenInside.withLock { $0 = describeNames() }
        }
        startReturned.signal()
        try namedInside.join(stuck)
        let insideTook = seenInside.current.contains("OS: \"downloader\"")
        context.say(Localized("  Thread.current.name = \"downloader\" set inside; inside: \(seenInside.current)",
                              ja: "  中で Thread.current.name = \"downloader\"。中から見ると: \(seenInside.current)"))
        let creatorName = osThreadName()
        context.note("name set outside seen inside", String(outsideTook))
        context.note("name set inside seen by the OS", String(insideTook))
        if !outsideTook {
            context.say(Localized(
                "  The name set from outside was lost: this Foundation (swift-corelibs-foundation) passes a name to the OS only when a thread names itself, and a new Linux thread starts with its creator's OS name (T1's is \"\(creatorName)\"). Name a thread from inside it.",
                ja: "  外から付けた名前は失われました。この Foundation（swift-corelibs-foundation）が OS に名前を渡すのはスレッドが自分に名前を付けたときだけで、Linux の新しいスレッドは作ったスレッドの OS 上の名前を引き継ぎます（T1 の名前は \"\(creatorName)\"）。名前はスレッドの中で付けてください。"))
        }

        // Part three: the state flags.
        context.say(Localized("3) isExecuting and isFinished:", ja: "3) isExecuting と isFinished:"))
        let inside = DispatchSemaphore(value: 0), leave = DispatchSemaphore(value: 0)
        let flagged = StartedThread {
            inside.signal()
            _ = leave.wait(timeout: .now() + 5)
        }
        let before = "isExecuting=\(flagged.thread.isExecuting) isFinished=\(flagged.thread.isFinished)"
        try wait(for: inside, stuck)
        let during = "isExecuting=\(flagged.thread.isExecuting) isFinished=\(flagged.thread.isFinished)"
        leave.signal()
        try flagged.join(stuck)
        // The semaphore fires as the closure returns; Foundation sets the flags a moment later.
        let giveUp = MonotonicClock.now() + 1_000_000_000
        while !flagged.thread.isFinished && MonotonicClock.now() < giveUp { spin(microseconds: 50) }
        let settled = flagged.thread.isFinished
        let after = "isExecuting=\(flagged.thread.isExecuting) isFinished=\(flagged.thread.isFinished)"
        context.show("  \(Localized("right after start()", ja: "start() の直後").text(context.language)): \(before)")
        context.show("  \(Localized("while the closure runs", ja: "クロージャの実行中").text(context.language)): \(during)")
        context.show("  \(Localized("after it returned", ja: "戻った後").text(context.language)): \(after)")
        context.note("finished after return", String(settled))
    }
}
