import Dispatch
import ExerciseKit
import WorkbookCore

/// The thumbnail pipeline (fetch → decode → shrink) with completion handlers, as the exercise's
/// legacy code has it — forgotten path included.
///
/// The wrong way: every branch must remember to call `completion`, and nothing checks that it
/// does. Here `if let data, let picture = Picture(data: data)` has no `else`: when the server
/// answers 200 with bytes that are not an image, the handler is never called and the caller
/// waits for ever. No error, no crash, no log line: the request just never ends.
struct CompletionHandlerPipeline: Sendable {
    let server: ThumbnailServer

    /// Two optionals: exactly one of them should be non-nil, which the types do not promise.
    func thumbnail(for id: String, completion: @escaping @Sendable (Thumbnail?, (any Error)?) -> Void) {
        server.fetchData(for: id) { data, statusCode, error in
            if let error {
                completion(nil, error)
            } else if statusCode != 200 {
                completion(nil, ThumbnailError.badID)
            } else if let data, let picture = Picture(data: data) {
                picture.prepareThumbnail { thumbnail in
                    guard let thumbnail else {
                        completion(nil, ThumbnailError.badImage)
                        return
                    }
                    completion(thumbnail, nil)
                }
            }
            // The forgotten `else`: bytes that are not an image end here, and nobody is told.
        }
    }

    /// The halfway house: `Result` says "a thumbnail or an error, exactly one" in its type, so
    /// `(nil, nil)` and `(thumbnail, error)` cannot be written any more. But the same `else` is
    /// still missing, and nothing makes the function call `completion` at all.
    func thumbnailResult(for id: String, completion: @escaping @Sendable (Result<Thumbnail, any Error>) -> Void) {
        server.fetchData(for: id) { data, statusCode, error in
            if let error {
                completion(.failure(error))
            } else if statusCode != 200 {
                completion(.failure(ThumbnailError.badID))
            } else if let data, let picture = Picture(data: data) {
                picture.prepareThumbnail { thumbnail in
                    completion(thumbnail.map { .success($0) } ?? .failure(ThumbnailError.badImage))
                }
            }
        }
    }
}

/// The same pipeline as `async throws`: the right way.
///
/// The function ends only by returning a thumbnail or by throwing, and the compiler checks every
/// path. Leave out the `throw` in a `guard … else { }` and it says "'guard' body must not fall
/// through"; write the legacy `if let … { }` with no `else` and it says "missing return in
/// instance method expected to return 'Thumbnail'". The server's own errors pass through `try`.
struct AsyncPipeline: Sendable {
    let server: ThumbnailServer

    func thumbnail(for id: String) async throws -> Thumbnail {
        let (data, statusCode) = try await server.data(for: id)
        guard statusCode == 200 else { throw ThumbnailError.badID }
        guard let picture = Picture(data: data) else { throw ThumbnailError.badImage }
        guard let thumbnail = await picture.thumbnail else { throw ThumbnailError.badImage }
        return thumbnail
    }
}

extension Chapter04 {
    /// What one call of a pipeline answered.
    enum PipelineAnswer: Sendable, Equatable {
        case thumbnail(Thumbnail)
        /// The error's code name, `.badID`.
        case error(String)
        /// The handler was not called before the deadline.
        case none

        /// As the table shows it: `Thumbnail(p1)`, `.badID`.
        var code: String? {
            switch self {
            case let .thumbnail(thumbnail): thumbnail.description
            case let .error(name): name
            case .none: nil
            }
        }
    }

    /// One call: what it answered, and when it started and answered (nanoseconds, `MonotonicClock`).
    struct TimedAnswer: Sendable {
        let answer: PipelineAnswer
        let started: UInt64
        let ended: UInt64?
    }

    /// The photo ids the pipeline scenario asks for, and how the server answers each.
    static let pipelinePhotos: [(id: String, reply: ThumbnailServer.Reply)] = [
        ("p1", .image), ("p2", .notFound), ("p3", .notAnImage), ("p4", .tooSmall), ("p5", .offline),
    ]

    /// Scenario 1: the completion-handler pipeline that forgets a path, beside `async throws`.
    static let completionPipeline = Scenario(
        slug: "completion-pipeline",
        title: Localized("A completion handler that is never called, and async throws", ja: "呼ばれない完了ハンドラと `async throws`"),
        narration: Localized(
            """
            The thumbnail pipeline of the exercise: fetch the bytes, decode a `Picture`, shrink it to a `Thumbnail`. \
            It is written three ways and run for five photo ids, each of which the fake server answers differently \
            (an image, 404, bytes that are not an image, an image too small to shrink, no answer at all). \
            1) With a completion handler `(Thumbnail?, Error?)`, as legacy code often is. Its author forgot one path: \
            when the bytes are not an image, `completion` is never called, so the caller waits for ever — nothing fails, nothing is logged. \
            The scenario cannot wait for ever, so it gives every call `deadline` ms of real time and reports the ones that did not answer by then. \
            2) With `Result<Thumbnail, Error>`: the halfway house. The type now says "a thumbnail or an error, exactly one", \
            but nothing makes the function call the handler, so the same forgotten path hangs in the same way. \
            3) As `async throws`: the function can end only by returning a thumbnail or by throwing, and the compiler checks every path; \
            leave a `throw` out and it does not build. p3 now ends with `ThumbnailError.badImage`. \
            The table shows what each call answered; the timeline draws each call as a bar, first the handler version, then the async one. \
            (Wrapping the handler version in `withCheckedContinuation` does not help: the runtime reports the leaked continuation, and the task still waits for ever. Chapter 05 is about that bridge.)
            """,
            ja: """
            演習と同じサムネイルのパイプラインです。バイト列を取得し、`Picture` にデコードし、`Thumbnail` に縮小します。\
            これを 3 通りに書き、5 つの写真 ID で実行します。フェイクのサーバーは ID ごとに違う応答を返します\
            （画像、404、画像ではないバイト列、小さすぎて縮小できない画像、応答なし）。\
            1) レガシーコードによくある完了ハンドラ `(Thumbnail?, Error?)` 版。作者は 1 つの経路を書き忘れています。\
            バイト列が画像でないとき `completion` が一度も呼ばれず、呼び出し元は永遠に待ち続けます。何も失敗せず、ログも出ません。\
            シナリオは永遠には待てないので、各呼び出しに実時間で `deadline` ms の期限を設け、それまでに応答しなかったものを報告します。\
            2) `Result<Thumbnail, Error>` 版。中間的な解決策です。「サムネイルかエラーのどちらか 1 つ」であることは型が表すようになりましたが、\
            ハンドラを呼ぶことを強制するものはないので、同じ経路が同じように止まったままになります。\
            3) `async throws` 版。関数はサムネイルを返すかエラーをスローするかでしか終われず、コンパイラがすべての経路を確かめます。\
            `throw` を 1 つ書き忘れるとビルドできません。p3 は `ThumbnailError.badImage` で終わるようになります。\
            表は各呼び出しの結果です。タイムラインは各呼び出しをバーで描きます。各レーンの最初がハンドラ版、次が async 版です。\
            （ハンドラ版を `withCheckedContinuation` で包んでも解決しません。ランタイムが継続のリークを報告し、タスクはやはり永遠に待ち続けます。このつなぎ方は第 05 章で扱います。）
            """),
        knobs: [
            .init("deadline", default: 300, range: 50...5_000,
                  help: Localized("how long (ms, real time) to wait for each handler before reporting it", ja: "ハンドラの応答を待つ時間（ms、実時間）。過ぎたら報告する")),
        ]
    ) { context in
        let server = ThumbnailServer(replies: Dictionary(uniqueKeysWithValues: pipelinePhotos.map { ($0.id, $0.reply) }))
        let deadline = context.knob("deadline")
        let (handler, result) = try await handlerCalls(server: server, deadlineMilliseconds: deadline)
        let gaveUp = MonotonicClock.now()
        let asynchronous = await asyncCalls(server: server)
        drawPipelineTimeline(context, gaveUp: gaveUp, deadline: deadline, handler: handler, async: asynchronous)
        reportPipeline(context, deadline: deadline, handler: handler, result: result, async: asynchronous)
    }

    /// Calls both handler versions for every id at once, then waits until every handler has been
    /// called or `deadlineMilliseconds` have passed: the answers, by id, of the two versions.
    private static func handlerCalls(server: ThumbnailServer, deadlineMilliseconds: Int) async throws
        -> (handler: [String: TimedAnswer], result: [String: TimedAnswer]) {
        let pipeline = CompletionHandlerPipeline(server: server)
        let handler = Locked<[String: TimedAnswer]>([:]), result = Locked<[String: TimedAnswer]>([:])
        let starts = Locked<[String: UInt64]>([:])
        let answered = DispatchSemaphore(value: 0)
        // A dedicated thread waits, not a task: a semaphore wait would block a cooperative thread.
        try await blocking {
            for (id, _) in pipelinePhotos {
                let started = MonotonicClock.now()
                starts.withLock { $0[id] = started }
                pipeline.thumbnail(for: id) { thumbnail, error in
                    let answer: PipelineAnswer = thumbnail.map { .thumbnail($0) } ?? .error(error.map(errorName) ?? "nil")
                    handler.withLock { $0[id] = TimedAnswer(answer: answer, started: started, ended: MonotonicClock.now()) }
                    answered.signal()
                }
                pipeline.thumbnailResult(for: id) { outcome in
                    let answer: PipelineAnswer = switch outcome {
                    case let .success(thumbnail): .thumbnail(thumbnail)
                    case let .failure(error): .error(errorName(error))
                    }
                    result.withLock { $0[id] = TimedAnswer(answer: answer, started: started, ended: MonotonicClock.now()) }
                    answered.signal()
                }
            }
            let deadline = DispatchTime.now() + .milliseconds(deadlineMilliseconds)
            var calls = 0
            while calls < 2 * pipelinePhotos.count, answered.wait(timeout: deadline) == .success { calls += 1 }
        }
        // What had not answered by now is reported as such, even if it answers later.
        func settled(_ answers: [String: TimedAnswer]) -> [String: TimedAnswer] {
            var all = answers
            for (id, _) in pipelinePhotos where all[id] == nil {
                all[id] = TimedAnswer(answer: .none, started: starts.current[id] ?? MonotonicClock.now(), ended: nil)
            }
            return all
        }
        return (settled(handler.current), settled(result.current))
    }

    /// Calls the `async throws` version for every id at once, in a task group.
    private static func asyncCalls(server: ThumbnailServer) async -> [String: TimedAnswer] {
        let pipeline = AsyncPipeline(server: server)
        return await withTaskGroup(of: (String, TimedAnswer).self) { group in
            for (id, _) in pipelinePhotos {
                group.addTask {
                    let started = MonotonicClock.now()
                    let answer: PipelineAnswer
                    do {
                        answer = .thumbnail(try await pipeline.thumbnail(for: id))
                    } catch {
                        answer = .error(errorName(error))
                    }
                    return (id, TimedAnswer(answer: answer, started: started, ended: MonotonicClock.now()))
                }
            }
            var answers: [String: TimedAnswer] = [:]
            for await (id, answer) in group { answers[id] = answer }
            return answers
        }
    }

    /// One lane per id: the handler call as a bar up to its answer (or up to the deadline), then
    /// the async call. Drawn after the run, when every bar's answer is known.
    private static func drawPipelineTimeline(_ context: ScenarioContext, gaveUp: UInt64, deadline: Int,
                                             handler: [String: TimedAnswer], async: [String: TimedAnswer]) {
        var events: [DrawnEvent] = []
        for (id, _) in pipelinePhotos {
            let lane = Localized.verbatim(id)
            if let call = handler[id] {
                let label = call.answer.code.map(Localized.verbatim)
                    ?? Localized("no answer in \(deadline) ms", ja: "\(deadline) ms 応答なし")
                events.append(DrawnEvent(time: call.started, lane: lane, label: label, kind: .begin))
                events.append(DrawnEvent(time: call.ended ?? gaveUp, lane: lane, label: label, kind: .end))
            }
            if let call = async[id], let code = call.answer.code {
                let label = Localized.verbatim("async: " + code)
                events.append(DrawnEvent(time: call.started, lane: lane, label: label, kind: .begin))
                events.append(DrawnEvent(time: call.ended ?? call.started, lane: lane, label: label, kind: .end))
            }
        }
        draw(events, on: context.trace)
    }

    private static func reportPipeline(_ context: ScenarioContext, deadline: Int, handler: [String: TimedAnswer],
                                       result: [String: TimedAnswer], async: [String: TimedAnswer]) {
        let none = Localized("none in \(deadline) ms", ja: "\(deadline) ms 応答なし")
        func resultCode(_ answer: PipelineAnswer) -> String {
            switch answer {
            case .thumbnail: ".success"
            case let .error(name): ".failure(\(name))"
            case .none: context.text(none)
            }
        }
        let widths = [5, 13, 17, 21]
        context.show(tableRow([Localized("id", ja: "ID"), Localized("server", ja: "サーバー"), Localized("handler", ja: "ハンドラ"),
                               .verbatim("Result<T,E>"), Localized("async throws", ja: "async 版")].map(context.text), widths: widths))
        for (id, reply) in pipelinePhotos {
            let cells = [id, ".\(reply)",
                         handler[id]?.answer.code ?? context.text(none),
                         resultCode(result[id]?.answer ?? .none),
                         async[id]?.answer.code ?? context.text(none)]
            context.show(tableRow(cells, widths: widths))
            context.note("handler \(id)", handler[id]?.answer.code ?? "none")
            context.note("result \(id)", result[id].map { $0.answer == .none ? "none" : resultCode($0.answer) } ?? "none")
            context.note("async \(id)", async[id]?.answer.code ?? "none")
        }
        let silent = pipelinePhotos.map(\.id).filter { handler[$0]?.answer == PipelineAnswer.none }
        let silentList = silent.isEmpty ? "-" : silent.joined(separator: ", ")
        context.say(Localized(
            """
            The handler versions never answered for \(silentList) within \(deadline) ms, and never will: no path of theirs calls `completion` for bytes that are not an image. \
            Their caller would wait for ever; here the deadline ended the wait, and the REPL carries on. \
            The async throws version answered for every id: the compiler would not have built it with a path that neither returns nor throws.
            """,
            ja: """
            ハンドラ版は \(silentList) について \(deadline) ms 以内に応答せず、この先も応答しません。画像でないバイト列のときに `completion` を呼ぶ経路がないからです。\
            呼び出し元は永遠に待つことになります。ここでは期限で待つのをやめたので、REPL はそのまま続けられます。\
            `async throws` 版はすべての ID に答えました。`return` も `throw` もしない経路があれば、コンパイラがビルドさせなかったからです。
            """))
        context.say(Localized("  What Swift 6.3.1 says about such a path in the async version:", ja: "  async 版にそのような経路があるときの Swift 6.3.1 のエラー:"))
        context.quote("error: 'guard' body must not fall through, consider using a 'return' or 'throw' to exit the scope")
        context.quote("error: missing return in instance method expected to return 'Thumbnail'")
    }
}
