import WorkbookCore
import WorkbookExplorer

/// The fake draft server of scenario 8, in virtual time: an upload of draft 1 takes 10 ms, any
/// later draft 5 ms. It keeps the last draft it received and counts uploads in flight at once.
final class DraftServer: Sendable {
    private struct State {
        var stored = "none"
        var inFlight = 0
        var mostAtOnce = 0
    }

    private let clock = ExplorerClock()
    private let state = Locked(State())

    func upload(_ draft: String) async {
        state.withLock { $0.inFlight += 1; $0.mostAtOnce = max($0.mostAtOnce, $0.inFlight) }
        checkpoint(Localized("server: upload of \(draft) begins", ja: "サーバー: \(draft) のアップロード開始"))
        try? await clock.sleep(for: .milliseconds(draft == "d1" ? 10 : 5))
        state.withLock { $0.inFlight -= 1; $0.stored = draft }
        checkpoint(Localized("server: stores \(draft)", ja: "サーバー: \(draft) を保存"))
    }

    var summary: String { state.withLock { "atOnce=\($0.mostAtOnce) server=\($0.stored)" } }
}

/// The racy way: an actor, and still two uploads at once, finishing in either order.
actor DraftSaver {
    private let server: DraftServer
    init(server: DraftServer) { self.server = server }

    func save(_ draft: String) async {
        await server.upload(draft)                         // a second save runs meanwhile
    }
}

/// Change the state before the first `await`: the draft to save is recorded at once, and only the
/// call that finds no save running uploads — the latest draft, until none is left.
actor CoalescingSaver {
    private let server: DraftServer
    private var pending: String?
    private var isSaving = false
    init(server: DraftServer) { self.server = server }

    func save(_ draft: String) async {
        pending = draft                                    // before any await
        guard !isSaving else { return }                    // the save running will upload it
        isSaving = true
        while let next = pending {
            pending = nil
            await server.upload(next)
        }
        isSaving = false
    }
}

/// Chain the work: each save's task awaits the previous one first.
actor ChainedSaver {
    private let server: DraftServer
    private var previous: Task<Void, Never>?
    init(server: DraftServer) { self.server = server }

    func save(_ draft: String) async {
        let task = Task { [previous] in
            await previous?.value
            await server.upload(draft)
        }
        previous = task
        await task.value
    }
}

/// Feed the requests through one `AsyncStream`, consumed by one task: the uploads run one after
/// another in the order the saves were made.
final class StreamSaver: Sendable {
    private let drafts: AsyncStream<String>.Continuation
    private let consumer: Task<Void, Never>

    init(server: DraftServer) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        drafts = continuation
        consumer = Task {
            for await draft in stream { await server.upload(draft) }
        }
    }

    func save(_ draft: String) { drafts.yield(draft) }

    /// Ends the stream and waits until every draft sent is uploaded.
    func finish() async {
        drafts.finish()
        await consumer.value
    }
}

extension Chapter08 {
    /// Draft 1 is saved at 0 ms, draft 2 at 5 ms; both uploads would end at 10 ms.
    /// Returns `atOnce=… server=…`.
    static func twoSaves(server: DraftServer, save: @escaping @Sendable (String) async -> Void,
                         finish: @escaping @Sendable () async -> Void = {}) async -> String {
        let clock = ExplorerClock()
        nameNextTasks(taskName("save d1", "d1 を保存"), taskName("save d2", "d2 を保存"),
                      taskName("upload task", "アップロードのタスク"), taskName("upload task", "アップロードのタスク"))
        async let first: Void = {
            checkpoint(Localized("save(d1)", ja: "save(d1)"))
            await save("d1")
        }()
        async let second: Void = {
            try? await clock.sleep(for: .milliseconds(5))
            checkpoint(Localized("save(d2)", ja: "save(d2)"))
            await save("d2")
        }()
        _ = await (first, second)
        await finish()
        return server.summary
    }

    @Sendable static func racySaves() async throws -> String {
        let server = DraftServer(), saver = DraftSaver(server: server)
        return await twoSaves(server: server) { await saver.save($0) }
    }

    /// One upload at a time, and the server ends with the latest draft.
    static func classifySaves(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "atOnce=1 server=d2" ? .acceptable : .forbidden
    }

    static let oneAtATime = Scenario(
        slug: "when-reentrancy-is-not-wanted",
        title: Localized("When reentrancy is not wanted: three ways to run one at a time", ja: "再入が望ましくないとき: 1 つずつ実行する 3 つの方法"),
        narration: Localized(
            """
            An editor saves drafts: d1 at 0 ms (its upload takes 10 ms), d2 at 5 ms (5 ms). Rule: one upload at a time, and the server ends with d2. \
            There is no non-reentrant actor in Swift; these are the ways to get one at a time. \
            1) An actor that awaits the upload: reentrant. 2) Change state before the first `await`: record the draft, let the save running upload it. \
            3) Chain the work: each save's task awaits the previous one. 4) One `AsyncStream` of drafts, consumed by one task. All explored.
            """,
            ja: """
            エディタが下書きを保存します。0 ms に d1（アップロードに 10 ms）、5 ms に d2（5 ms）。規則: アップロードは一度に 1 つで、サーバーは最後に d2 を持つ。\
            Swift には再入しないアクターはありません。1 つずつ実行するには次の方法があります。\
            1) アップロードを await するアクター: 再入する。2) 最初の `await` の前に状態を変える: 下書きを記録し、実行中の保存にアップロードさせる。\
            3) 処理をつなぐ: 各保存のタスクが前のタスクを await する。4) 下書きの `AsyncStream` を 1 つ作り、1 つのタスクで消費する。どれも探索します。
            """),
        prediction: .init(
            question: Localized(
                "Part 1: `save(_:)` is an actor method that awaits the upload. d2 is saved while d1 is uploading. Can the server end with d1? A) no: the actor runs the saves one after another B) yes: both uploads run at once, and d1's may end last",
                ja: "パート 1: `save(_:)` はアップロードを await するアクターのメソッドです。d1 のアップロード中に d2 を保存します。サーバーが最後に d1 を持つことはある？ A) ない。アクターは保存を 1 つずつ順に実行する B) ある。2 つのアップロードが同時に走り、d1 の方が後に終わり得る"),
            explanation: Localized(
                "B. The actor ran d2's save as soon as d1's was suspended at the upload: two uploads at once, ending in either order. An actor gives one job at a time, not one call at a time; for that, change state before the `await`, chain the tasks, or feed one consumer.",
                ja: "B です。アクターは d1 の保存がアップロードでサスペンドするとすぐに d2 の保存を実行しました。アップロードが 2 つ同時に走り、どちらの順でも終わり得ます。アクターが保証するのはジョブ単位の 1 つずつで、呼び出し単位ではありません。それには `await` の前に状態を変えるか、タスクをつなぐか、1 つの消費者に送ります。"),
            observe: { ($0.noted("reentrant forbidden") ?? "0") == "0" ? "A" : "B" },
            isPossible: { $0 == "B" })
    ) { context in
        let racy = await explore(classify: classifySaves, racySaves)
        context.show(racy, Localized("1) An actor that awaits the upload", ja: "1) アップロードを await するアクター"), game: 8, key: "reentrant")
        let coalescing = await explore(classify: classifySaves) {
            let server = DraftServer(), saver = CoalescingSaver(server: server)
            return await twoSaves(server: server) { await saver.save($0) }
        }
        context.show(coalescing, Localized("2) State changed before the first await", ja: "2) 最初の await の前に状態を変える"), key: "coalescing")
        let chained = await explore(classify: classifySaves) {
            let server = DraftServer(), saver = ChainedSaver(server: server)
            return await twoSaves(server: server) { await saver.save($0) }
        }
        context.show(chained, Localized("3) Each task awaits the previous one", ja: "3) 各タスクが前のタスクを await する"), key: "chained")
        let streamed = await explore(classify: classifySaves) {
            let server = DraftServer(), saver = StreamSaver(server: server)
            return await twoSaves(server: server, save: { saver.save($0) }, finish: { await saver.finish() })
        }
        context.show(streamed, Localized("4) One AsyncStream, one consumer", ja: "4) 1 つの AsyncStream、1 つの消費者"), key: "stream")
        context.say(Localized(
            "   The three differ in what a caller gets. With the state changed first, a save made while another runs returns at once, and a later draft may replace its draft before it is uploaded (only the latest matters). The chain makes each caller wait for its own upload. The stream's `save` returns at once, and the consumer owns the order.",
            ja: "   3 つは呼び出し元が得るものが違います。先に状態を変える方法では、別の保存の実行中に呼ばれた保存はすぐに戻り、その下書きはアップロード前に後の下書きで置き換えられることがあります（大事なのは最新だけ）。つなぐ方法では、各呼び出し元が自分のアップロードを待ちます。ストリームの `save` はすぐに戻り、順序は消費者が持ちます。"))
    }
}
