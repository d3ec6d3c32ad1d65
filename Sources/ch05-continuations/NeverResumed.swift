import Foundation
import WorkbookCore
import WorkbookExplorer

extension Chapter05 {
    /// The bridge with a forgotten path: `(nil, nil)` — no data and no error, which the handler's
    /// two optionals allow — resumes nothing. The caller waits for ever, and the runtime says so
    /// only when the continuation is destroyed: when the handler, which held it, is released.
    static func thumbnailData(for id: String, from service: LegacyPhotoService) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            service.fetchPhotoData(id: id) { data, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let data {
                    continuation.resume(returning: data)
                }
                // The forgotten path: (nil, nil) ends here, and nothing resumes the caller.
            }
        }
    }

    /// The same bridge with every path resuming: `guard let … else { resume(throwing:) }`.
    static func checkedThumbnailData(for id: String, from service: LegacyPhotoService) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            service.fetchPhotoData(id: id) { data, error in
                if let error {
                    continuation.resume(throwing: error)
                    return
                }
                guard let data else {
                    continuation.resume(throwing: LegacyPhotoError.noData)
                    return
                }
                continuation.resume(returning: data)
            }
        }
    }

    /// The name of the child process that leaks a continuation (`ch05-continuations --child leaked-continuation`).
    static let leakedContinuationChildName = "leaked-continuation"

    /// The child's body: one schedule under the explorer, where the service calls back from a
    /// task; "p1" answers, "p3" answers `(nil, nil)`. The runtime prints its message on standard
    /// error; the explorer finds that nothing can run while the caller still waits, and the
    /// child prints the schedule and that deadlock for the parent.
    static func leakedContinuationChild() -> Never {
        let report = runDefaultSchedule {
            nameTask(Localized("caller", ja: "呼び出し元"))
            let service = LegacyPhotoService(replies: ["p1": .photo, "p3": .nothing], delivery: .task)
            var answers: [String] = []
            for id in ["p1", "p3"] {
                nameNextTasks(BilingualLabel.join("handler \(id)", "ハンドラ \(id)"))
                checkpoint(Localized("awaits thumbnailData(for: \"\(id)\")", ja: "thumbnailData(for: \"\(id)\") を待つ"))
                let data = try await thumbnailData(for: id, from: service)
                checkpoint(Localized("got \(data.count) bytes", ja: "\(data.count) バイトを受け取った"))
                answers.append("\(id)=\(data.count)")
            }
            return answers.joined(separator: " ")
        }
        printForParent(report)
        exit(0)
    }

    /// Scenario 2: a path that never resumes; the runtime's message and the caller that waits.
    static let neverResumed = Scenario(
        slug: "never-resumed",
        title: Localized("Never resumed: the runtime's warning, and a caller that waits for ever",
                         ja: "再開されない継続: ランタイムの警告と、永遠に待つ呼び出し元"),
        narration: Localized(
            """
            The service's handler takes `(Data?, Error?)`. The bridge resumes with the error if there is one, else with the data if there is some — \
            and forgets that the types also allow `(nil, nil)`, which the service sends for "p3" (an empty reply). On that path nothing calls `resume`. \
            1) In a child process (`ch05-continuations --child \(leakedContinuationChildName)`), under the explorer, a caller awaits "p1", then "p3"; \
            the service calls back from a task of its own. When the handler for "p3" returns, nothing holds the continuation any more: \
            the runtime destroys it and prints its message on standard error, quoted here as it came. \
            The message does not wake the caller: it stays suspended for ever, holding no thread, with no error and no crash. \
            The explorer runs the tasks one step at a time and sees that nothing can run any more while the caller still waits: a deadlock, which it reports with the step the caller waits at. \
            (Without the explorer, the program would just stay suspended; a test would hang.) \
            2) The fixed bridge, `guard let data else { continuation.resume(throwing: .noData) }`, in this process: every path resumes, and "p3" throws `.noData`.
            """,
            ja: """
            サービスのハンドラは `(Data?, Error?)` を受け取ります。ブリッジはエラーがあればエラーで、なければデータがあればデータで再開します。\
            しかし、型が `(nil, nil)` も許すことを忘れています。サービスは "p3" に対してそれ（空の応答）を送ります。この経路では誰も `resume` を呼びません。\
            1) 子プロセス（`ch05-continuations --child \(leakedContinuationChildName)`）で、エクスプローラの制御下で実行します。呼び出し元が "p1"、次に "p3" を待ち、\
            サービスは自分のタスクからコールバックします。"p3" のハンドラが戻ると、もう誰も継続を持っていません。\
            ランタイムは継続を破棄し、標準エラーにメッセージを出力します。ここにはそのまま引用します。\
            このメッセージは呼び出し元を起こしません。呼び出し元は永遠にサスペンドしたままです。スレッドは占有せず、エラーもクラッシュもありません。\
            エクスプローラはタスクを 1 ステップずつ実行し、呼び出し元が待っているのにもう何も実行できないこと、つまりデッドロックに気づいて、呼び出し元が待っているステップとともに報告します。\
            （エクスプローラがなければ、プログラムはただサスペンドしたままになり、テストなら止まったままになります。）\
            2) 直したブリッジ `guard let data else { continuation.resume(throwing: .noData) }` をこのプロセスで実行します。すべての経路が再開し、"p3" は `.noData` をスローします。
            """),
        prediction: .init(
            question: Localized(
                "For \"p3\" the handler gets (nil, nil) and returns without calling resume. What happens to the caller awaiting thumbnailData(for: \"p3\")? A) it gets empty data  B) it throws an error  C) it waits for ever  D) the program traps",
                ja: "\"p3\" ではハンドラが (nil, nil) を受け取り、`resume` を呼ばずに戻ります。thumbnailData(for: \"p3\") を待つ呼び出し元はどうなる？ A) 空のデータを受け取る  B) エラーがスローされる  C) 永遠に待つ  D) プログラムがトラップする"),
            explanation: Localized(
                """
                C. A continuation that is never resumed leaves its task suspended for ever. A checked continuation notices when it is destroyed unresumed \
                and prints "SWIFT TASK CONTINUATION MISUSE: … leaked its continuation without resuming it" — a message, not an error: nothing is thrown, and the program does not stop.
                """,
                ja: """
                C です。再開されない継続は、そのタスクを永遠にサスペンドさせたままにします。チェック付きの継続は、再開されないまま破棄されたことに気づき、\
                "SWIFT TASK CONTINUATION MISUSE: … leaked its continuation without resuming it" を出力します。これはメッセージであってエラーではありません。何もスローされず、プログラムも止まりません。
                """),
            observe: { $0.noted("caller") ?? "" },
            isPossible: { $0 == "C" })
    ) { context in
        try await blocking { leakInChild(context) }
        try await fixedBridge(context)
    }

    private static func leakInChild(_ context: ScenarioContext) {
        context.say(Localized("1) await thumbnailData(for: \"p1\"), then \"p3\" — in a child process, under the explorer:",
                              ja: "1) await thumbnailData(for: \"p1\")、続けて \"p3\" — 子プロセスで、エクスプローラの制御下で:"))
        guard let outcome = context.runBridgeChild(leakedContinuationChildName) else { return }
        let lane = childProcessLane
        let steps = BridgeStep.decode(outcome.standardOutput)
        context.say(Localized("  The explorer's steps:", ja: "  エクスプローラのステップ:"))
        context.showSteps(steps)
        let misuse = continuationMisuseLines(outcome.standardError)
        context.say(Localized("  The runtime, on the child's standard error:", ja: "  ランタイムが子プロセスの標準エラーに出力したもの:"))
        context.quoteMisuse(outcome)
        if !misuse.isEmpty { context.trace.record(Localized("runtime: leaked continuation", ja: "ランタイム: 継続のリーク"), lane: lane) }
        let verdict = childVerdict(outcome.standardOutput)
        let deadlocked = verdict?.deadlocked == true
        if let said = verdict?.said {
            context.say(Localized("  The explorer: \(said.en).", ja: "  エクスプローラ: \(said.ja)。"))
        }
        if deadlocked { context.trace.record(Localized("explorer: deadlock", ja: "エクスプローラ: デッドロック"), lane: lane) }
        context.note("misuse", misuse.joined(separator: "\n"))
        context.note("caller", deadlocked ? "C" : "?")
        context.note("child end", context.describeEnd(of: outcome).en)
        context.say(Localized(
            "  The child \(context.describeEnd(of: outcome).en) after \(String(format: "%.2f", outcome.elapsedSeconds)) s. The runtime warned, and the caller still waited: no error reached it, and nothing ever will.",
            ja: "  子プロセスは \(String(format: "%.2f", outcome.elapsedSeconds)) 秒後に\(context.describeEnd(of: outcome).ja)しました。ランタイムは警告しましたが、呼び出し元は待ったままでした。エラーは届いておらず、この先も届きません。"))
    }

    private static func fixedBridge(_ context: ScenarioContext) async throws {
        context.say(Localized("2) The fixed bridge (no data: resume(throwing: .noData)), in this process:",
                              ja: "2) 直したブリッジ（データがなければ resume(throwing: .noData)）をこのプロセスで:"))
        let service = LegacyPhotoService(replies: ["p1": .photo, "p3": .nothing])
        let task = context.text(Localized("caller task", ja: "呼び出し元のタスク"))
        for id in ["p1", "p3"] {
            context.emit(Localized("try await checkedThumbnailData(for: \"\(id)\")", ja: "checkedThumbnailData(for: \"\(id)\") を待つ"), lane: task)
            do {
                let data = try await checkedThumbnailData(for: id, from: service)
                context.note("fixed \(id)", "\(data.count) bytes")
                context.emit(Localized("returned \(data.count) bytes", ja: "\(data.count) バイトが返った"), lane: task)
            } catch {
                context.note("fixed \(id)", "\(error)")
                context.emit(Localized("threw \(error)", ja: "\(error) がスローされた"), lane: task)
            }
        }
    }
}
