import Dispatch
import WorkbookCore

extension Chapter05 {
    /// The bridge, plainly: `loadPhoto(id:completion:)` as an async function. The closure runs at
    /// once, on the calling task; the task suspends when it returns; the handler's `resume`
    /// lets it go on, from whatever thread the handler runs on.
    static func photo(for id: String, from service: LegacyPhotoService) async -> LegacyPhoto? {
        await withCheckedContinuation { continuation in
            service.loadPhoto(id: id) { photo in
                continuation.resume(returning: photo)
            }
        }
    }

    /// The throwing bridge: the handler's `Result` goes straight into `resume(with:)`, so a
    /// failure is thrown at the `try await`.
    static func fetchedPhoto(for id: String, from service: LegacyPhotoService) async throws -> LegacyPhoto {
        try await withCheckedThrowingContinuation { continuation in
            service.fetchPhoto(id: id) { result in
                continuation.resume(with: result)
            }
        }
    }

    static let wrapCallbackOrder = "ADBC"

    /// Scenario 1: a callback API wrapped with `withCheckedContinuation` and
    /// `withCheckedThrowingContinuation`; who runs what, on which thread.
    static let wrapCallback = Scenario(
        slug: "wrap-callback",
        title: Localized("Wrapping a callback API: withCheckedContinuation, withCheckedThrowingContinuation",
                         ja: "コールバック API を包む: withCheckedContinuation と withCheckedThrowingContinuation"),
        narration: Localized(
            """
            A legacy photo service returns at once and calls its completion handler later, on its own Dispatch queue `legacy.callbacks`. \
            To `await` it, wrap the call in `withCheckedContinuation { continuation in … }` and call `continuation.resume(returning:)` in the handler. \
            1) `photo(for: "p1")`, called from main-actor code as a view controller would call it, with four lines printed: \
            A before the call, D as the closure's last line, B in the handler just before `resume`, C after the `await`. \
            The closure runs at once, on the calling task; when it returns, the task suspends and holds no thread. \
            The handler runs on the service's queue and resumes the task; `resume` does not run the rest of the task, it schedules it on the task's executor (here the main actor) and returns. \
            To show that, the handler here waits (at most 30 s) until the task has printed C before it prints E and returns: \
            the task went on, on the main thread, while the handler was still running on its own. \
            (The fake service answers when the closure has printed D, so every run prints the same order; no sleeps.) \
            2) The throwing form, `withCheckedThrowingContinuation`, over a handler that takes a `Result`: `continuation.resume(with: result)`. \
            "p1" returns a photo; "p9" makes the `try await` throw `.notFound`. \
            The timeline has a lane for the calling task and one for the handler; the table under part 1 names the OS thread of each line.
            """,
            ja: """
            レガシーな写真サービスは呼び出しからすぐに戻り、完了ハンドラを後から自分のディスパッチキュー `legacy.callbacks` で呼びます。\
            これを `await` するには、呼び出しを `withCheckedContinuation { continuation in … }` で包み、ハンドラの中で `continuation.resume(returning:)` を呼びます。\
            1) ビューコントローラのようなメインアクターのコードから `photo(for: "p1")` を呼び、4 行を出力します。\
            A は呼び出しの前、D はクロージャの最後の行、B はハンドラの中で `resume` の直前、C は `await` の後です。\
            クロージャは呼び出し元のタスクの上で、その場ですぐに実行されます。クロージャが戻るとタスクはサスペンドし、スレッドを占有しません。\
            ハンドラはサービスのキューで動き、タスクを再開させます。`resume` はタスクの続きを自分で実行するのではなく、続きの実行をタスクのエグゼキュータ（ここではメインアクター）にエンキュー（スケジュール）して、すぐに戻ります。\
            それを見せるため、ここではハンドラが、タスクが C を出力するまで（最大 30 秒）待ってから E を出力して戻ります。\
            タスクは、ハンドラが自分のスレッドでまだ動いている間に、メインスレッドで先へ進んだのです。\
            （フェイクのサービスはクロージャが D を出力した時点で応答するので、毎回同じ順番になります。スリープは使いません。）\
            2) スローする版 `withCheckedThrowingContinuation` で、`Result` を受け取るハンドラを包みます: `continuation.resume(with: result)`。\
            "p1" は写真を返し、"p9" では `try await` が `.notFound` をスローします。\
            タイムラインには呼び出し元のタスクのレーンとハンドラのレーンがあります。パート 1 の下の表は、各行を実行した OS のスレッドです。
            """),
        prediction: .init(
            question: Localized(
                "Part 1 prints A before calling photo(for:), D as the last line of the continuation's closure, B in the completion handler just before resume, and C after the await. In what order? (e.g. ABCD)",
                ja: "パート 1 は、photo(for:) を呼ぶ前に A、継続のクロージャの最後の行で D、完了ハンドラの中で `resume` の直前に B、`await` の後に C を出力します。どの順番になる？（例: ABCD）"),
            explanation: Localized(
                """
                A, D, B, C. The closure runs at once on the calling task, so D comes before anything the service does later; \
                the task suspends when the closure returns and goes on (C) only after the handler's resume (B). \
                A handler that is called before the closure returns (a cache hit, say) would print A, B, D, C: the resume is kept, and the task does not suspend at all. \
                C can never come before B.
                """,
                ja: """
                A、D、B、C です。クロージャは呼び出し元のタスクの上ですぐに実行されるので、D はサービスが後からすることより先です。\
                タスクはクロージャが戻るとサスペンドし、ハンドラの `resume`（B）の後でようやく先へ進みます（C）。\
                クロージャが戻る前にハンドラが呼ばれる場合（キャッシュにあったときなど）は A、B、D、C になります。`resume` の結果は保持され、タスクはサスペンドすらしません。\
                C が B より先になることはありません。
                """),
            observe: { $0.noted("order") ?? "" },
            isPossible: { $0 == wrapCallbackOrder })  // the fake answers only after D: no cache hit here
    ) { context in
        try await wrapWithCheckedContinuation(context)
        await wrapWithCheckedThrowingContinuation(context)
    }

    /// Part 1, on the main actor: the caller is what a view controller would be, and after the
    /// `await` it goes on where it began — not on some pool thread that other work may be
    /// holding (under `swift test` the pool was seen busy for over 10 s).
    @MainActor
    private static func wrapWithCheckedContinuation(_ context: ScenarioContext) async throws {
        context.say(Localized("1) await photo(for: \"p1\") — withCheckedContinuation:",
                              ja: "1) await photo(for: \"p1\") — withCheckedContinuation:"))
        let service = LegacyPhotoService(replies: ["p1": .photo], holdsReplies: true)
        let task = context.text(Localized("caller task", ja: "呼び出し元のタスク"))
        let handler = context.text(Localized("handler", ja: "ハンドラ"))
        let suspended = Localized("suspended", ja: "サスペンド中")
        let continued = DispatchSemaphore(value: 0), handlerReturned = DispatchSemaphore(value: 0)
        let threads = Locked<[String: String]>([:])
        let order = Locked("")
        let wentOnWhileHandlerRan = Locked(false)
        @Sendable func mark(_ letter: String) { order.withLock { $0 += letter } }

        threads.withLock { $0["A"] = CallingThread.describe() }
        mark("A")
        context.emit(Localized("A: calls photo(for: \"p1\")", ja: "A: photo(for: \"p1\") を呼ぶ"), lane: task)
        let photo: LegacyPhoto? = await withCheckedContinuation { continuation in
            service.loadPhoto(id: "p1") { photo in
                threads.withLock { $0["B"] = CallingThread.describe() }
                mark("B")
                context.emit(Localized("B: resume(returning: \(photo.map(String.init(describing:)) ?? "nil"))",
                                       ja: "B: resume(returning: \(photo.map(String.init(describing:)) ?? "nil"))"), lane: handler)
                continuation.resume(returning: photo)
                let taskWentOn = continued.wait(timeout: .now() + 30) == .success
                wentOnWhileHandlerRan.withLock { $0 = taskWentOn }
                context.emit(taskWentOn
                    ? Localized("E: the handler returns", ja: "E: ハンドラが戻る")
                    : Localized("E: the handler returns (the task had not gone on within 30 s)", ja: "E: ハンドラが戻る（30 秒以内にタスクは進まなかった）"),
                    lane: handler)
                handlerReturned.signal()
            }
            threads.withLock { $0["D"] = CallingThread.describe() }
            mark("D")
            context.emit(Localized("D: the closure returns", ja: "D: クロージャが戻る"), lane: task)
            context.trace.begin(suspended, lane: .verbatim(task))
            service.releaseReplies()  // the fake network answers now
        }
        context.trace.end(suspended, lane: .verbatim(task))
        threads.withLock { $0["C"] = CallingThread.describe() }
        mark("C")
        context.emit(Localized("C: continues with \(photo.map(String.init(describing:)) ?? "nil")",
                               ja: "C: \(photo.map(String.init(describing:)) ?? "nil") を受け取って続行"), lane: task)
        continued.signal()
        try await blocking {
            try wait(for: handlerReturned, seconds: 40, Localized("the handler did not return", ja: "ハンドラが戻りませんでした"))
        }

        let seen = threads.current
        context.note("order", order.current)
        context.note("photo", photo.map(String.init(describing:)) ?? "nil")
        // While the handler waited, the task went on: necessarily on another thread. (The handler
        // itself may run on the thread the task left when it suspended: a suspended task holds none.)
        let wentOn = wentOnWhileHandlerRan.current && CallingThread.id(of: seen["B"] ?? "") != CallingThread.id(of: seen["C"] ?? "")
        context.note("task went on while the handler ran", String(wentOn))
        context.note("closure ran on the calling thread", String(seen["A"] == seen["D"]))
        let rows: [(String, Localized)] = [
            ("A", Localized("before the await", ja: "await の前")),
            ("D", Localized("in the closure", ja: "クロージャの中")),
            ("B", Localized("in the handler", ja: "ハンドラの中")),
            ("C", Localized("after the await", ja: "await の後")),
        ]
        context.say(Localized("  The OS thread of each line (kernel id and name):", ja: "  各行を実行した OS のスレッド（カーネルの ID と名前）:"))
        for (letter, what) in rows {
            context.show("    \(letter)  " + padded(context.text(what), to: 18) + (seen[letter] ?? "?"))
        }
        context.say(Localized(
            "  The closure ran on the calling thread: \(seen["A"] == seen["D"]). The task went on (C) on another thread while the handler was still running, before it returned: \(wentOn).",
            ja: "  クロージャは呼び出し元のスレッドで動いた: \(seen["A"] == seen["D"])。ハンドラがまだ動いていて戻る前に、タスクは別のスレッドで先へ進んだ（C）: \(wentOn)。"))
    }

    private static func wrapWithCheckedThrowingContinuation(_ context: ScenarioContext) async {
        context.say(Localized("2) try await fetchedPhoto(for:) — withCheckedThrowingContinuation, resume(with:):",
                              ja: "2) fetchedPhoto(for:) を `try await` — withCheckedThrowingContinuation、resume(with:):"))
        let service = LegacyPhotoService(replies: ["p1": .photo, "p9": .notFound])
        let task = context.text(Localized("caller task", ja: "呼び出し元のタスク"))
        let handler = context.text(Localized("handler", ja: "ハンドラ"))
        for id in ["p1", "p9"] {
            context.emit(Localized("try await fetchedPhoto(for: \"\(id)\")", ja: "fetchedPhoto(for: \"\(id)\") を待つ"), lane: task)
            do {
                let photo: LegacyPhoto = try await withCheckedThrowingContinuation { continuation in
                    service.fetchPhoto(id: id) { result in
                        let shown = switch result {
                        case let .success(photo): ".success(\(photo))"
                        case let .failure(error): ".failure(\(error))"
                        }
                        context.emit(.verbatim("resume(with: \(shown))"), lane: handler)
                        continuation.resume(with: result)
                    }
                }
                context.note("throwing \(id)", photo.description)
                context.emit(Localized("returned \(photo)", ja: "\(photo) が返った"), lane: task)
            } catch {
                context.note("throwing \(id)", "\(error)")
                context.emit(Localized("threw \(error)", ja: "\(error) がスローされた"), lane: task)
            }
        }
    }
}
