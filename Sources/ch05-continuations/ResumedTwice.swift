import Dispatch
import Foundation
import WorkbookCore
import WorkbookExplorer

extension Chapter05 {
    /// A bridge over a handler that is called twice — "cache, then network" — resuming on every
    /// call. The first call (the cached photo) resumes the caller; the second (the fresh one)
    /// resumes the same continuation again, and a checked continuation traps.
    static func latestPhoto(for id: String, from service: LegacyPhotoService) async -> LegacyPhoto {
        await withCheckedContinuation { continuation in
            service.fetchPhotoCacheThenNetwork(id: id) { photo in
                continuation.resume(returning: photo)  // the second call traps
            }
        }
    }

    /// The name of the child process whose handler is called twice.
    static let doubleCallbackChildName = "double-callback"

    /// The child's body: the caller awaits `latestPhoto(for: "p1")`, gets the cached photo, and
    /// only then lets the fresh reply come, so the trap happens in the handler's second call,
    /// on the service's queue, after the caller has printed what it got. If it did not trap,
    /// the child exits 0 once the second call returned (or 3 if it never came).
    static func doubleCallbackChild() -> Never {
        let service = LegacyPhotoService(replies: ["p1": .photo])
        Task {
            let photo = await latestPhoto(for: "p1", from: service)
            Console.line("WORKBOOK-CALLER\t\(photo)")
            service.network.signal()  // now the fresh reply may come
        }
        exit(service.freshReplyDelivered.wait(timeout: .now() + 5) == .success ? 0 : 3)
    }

    /// The name of the child process that explores the timeout race with a real continuation.
    static let timeoutRaceChildName = "timeout-race"

    /// The child's body: every schedule of the timeout race with up to 2 preemptions, fewest
    /// first, with the checked continuation resumed straight. The first schedule that resumes
    /// twice traps; the schedule journal (`WORKBOOK_SCHEDULE_JOURNAL`) tells the parent which.
    static func timeoutRaceChild() -> Never {
        let result = Explorer.explore(.exhaustive(maxPreemptions: 2), budget: .init(maxSchedules: 5_000, maxSeconds: 10)) {
            await photoWithTimeout(.real)
        }
        Console.line("WORKBOOK-SCHEDULES\t\(result.schedulesRun)")
        exit(0)
    }

    /// Scenario 3: a continuation resumed twice traps; shown from child processes, then the fix.
    static let resumedTwice = Scenario(
        slug: "resumed-twice",
        title: Localized("Resumed twice: the trap, in a child process (then: play 1)", ja: "2 回の再開: トラップを子プロセスで（続けて: play 1）"),
        narration: Localized(
            """
            A continuation must be resumed exactly once; a checked continuation traps on the second resume, and the trap ends the whole program. \
            So this scenario runs each trap in a child process and reports how it died, with the runtime's message as it came on standard error; the REPL carries on. \
            1) "Cache, then network": the service calls the handler twice, first with the cached photo (at once, on the caller's thread), \
            then with the fresh one (on its queue). The bridge resumes on every call. The caller gets the cached photo; the second call traps on the service's queue. \
            (The child lets the fresh reply come only after the caller has printed what it got, so every run shows the same thing.) \
            2) A timeout racing the callback, as in `play 1`: the request and a 20 ms timeout both finish the call, and each checks a flag first. \
            A child explores their schedules, fewest preemptions first, with the real continuation; the first schedule that resumes twice traps, \
            and the child's schedule journal tells which: the steps and a replay token for `play 1` are shown. \
            3) In this process, the explorer runs every schedule of the race with up to `bound` preemptions and counts the outcomes: with the check-then-act flags, and with `ResumeOnce`, \
            a box from which the first path takes the continuation under a lock, so the second finds nothing. Then type `play 1` and find a double resume yourself.
            """,
            ja: """
            継続はちょうど 1 回だけ再開しなければなりません。チェック付きの継続は 2 回目の再開でトラップし、トラップはプログラム全体を終了させます。\
            そこでこのシナリオは、トラップのたびに子プロセスで実行し、どう終了したかを、標準エラーに出たランタイムのメッセージそのままとともに報告します。REPL はそのまま続きます。\
            1) 「キャッシュ、次にネットワーク」: サービスはハンドラを 2 回呼びます。まずキャッシュの写真で（その場で、呼び出し元のスレッドで）、\
            次に新しい写真で（自分のキューで）。ブリッジは呼ばれるたびに再開します。呼び出し元はキャッシュの写真を受け取り、2 回目の呼び出しがサービスのキューでトラップします。\
            （子プロセスは、呼び出し元が受け取ったものを出力してから新しい応答を送らせるので、毎回同じ結果になります。）\
            2) `play 1` と同じ、コールバックと競合するタイムアウト: リクエストと 20 ms のタイムアウトがどちらも呼び出しを完了させ、それぞれ先にフラグを確かめます。\
            子プロセスが本物の継続のままスケジュールを探索します（プリエンプションの少ない順）。2 回再開する最初のスケジュールでトラップし、\
            子プロセスのスケジュール記録からそれがどのスケジュールだったかがわかります。そのステップと、`play 1` で使えるリプレイトークンを表示します。\
            3) このプロセスで、エクスプローラがプリエンプション `bound` 回までの競合のスケジュールをすべて実行し、結果を数えます。確認してから行動するフラグの版と、`ResumeOnce` の版です。\
            `ResumeOnce` は、最初の経路がロックの下で継続を取り出す箱で、2 番目の経路は何も見つけません。続けて `play 1` で、2 回の再開を自分で見つけてみましょう。
            """),
        knobs: [
            .init("bound", default: 2, range: 0...3, help: Localized("most preemptions per schedule counted in part 3", ja: "パート 3 で数える各スケジュールのプリエンプションの上限")),
        ],
        prediction: .init(
            question: Localized(
                "Part 1: the handler is called with the cached photo, and the bridge resumes; then it is called again with the fresh photo, and the bridge resumes again. What happens? A) the second value is ignored  B) the caller gets the fresh photo too  C) the program traps",
                ja: "パート 1: ハンドラがキャッシュの写真で呼ばれてブリッジが再開し、次に新しい写真でもう一度呼ばれてブリッジがまた再開します。どうなる？ A) 2 回目の値は無視される  B) 呼び出し元は新しい写真も受け取る  C) プログラムがトラップする"),
            explanation: Localized(
                """
                C. A checked continuation remembers that it was resumed; the second resume is a fatal error: \
                "SWIFT TASK CONTINUATION MISUSE: … tried to resume its continuation more than once". The caller had already gone on with the cached photo; \
                the trap happens on the thread that resumes second — here the service's queue — and ends the process.
                """,
                ja: """
                C です。チェック付きの継続は再開されたことを覚えていて、2 回目の再開は致命的エラーになります: \
                "SWIFT TASK CONTINUATION MISUSE: … tried to resume its continuation more than once"。呼び出し元はすでにキャッシュの写真で先へ進んでいました。\
                トラップは 2 回目に再開したスレッド（ここではサービスのキュー）で起き、プロセスを終了させます。
                """),
            observe: { $0.noted("second call") ?? "" },
            isPossible: { $0 == "C" })
    ) { context in
        try await blocking {
            doubleCallbackInChild(context)
            timeoutRaceInChild(context)
        }
        try await countRaceSchedules(context)
    }

    private static func doubleCallbackInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "1) await latestPhoto(for: \"p1\") over a handler called twice — in a child process (ch05-continuations --child \(doubleCallbackChildName)):",
            ja: "1) 2 回呼ばれるハンドラの上の await latestPhoto(for: \"p1\") — 子プロセスで（ch05-continuations --child \(doubleCallbackChildName)）:"))
        guard let outcome = context.runBridgeChild(doubleCallbackChildName) else { return }
        let lane = childProcessLane
        let caller = outcome.standardOutput.split(separator: "\n").first { $0.hasPrefix("WORKBOOK-CALLER\t") }
            .map { String($0.dropFirst("WORKBOOK-CALLER\t".count)) }
        if let caller {
            context.say(Localized("  The caller went on with \(caller).", ja: "  呼び出し元は \(caller) を受け取って先へ進みました。"))
        }
        let end = context.describeEnd(of: outcome)
        context.say(Localized("  Then the handler's second call: the child \(end.en).", ja: "  続いてハンドラの 2 回目の呼び出し: 子プロセスは\(end.ja)しました。"))
        context.quoteMisuse(outcome)
        var trapped = false
        if case let .signalled(signal) = outcome.termination {
            trapped = true
            context.trace.record(Localized("trapped (\(signalName(signal)))", ja: "トラップ（\(signalName(signal))）"), lane: lane)
        }
        context.note("second call", trapped ? "C" : "?")
        context.note("caller got", caller ?? "nothing")
        context.note("double resume message", continuationMisuseLines(outcome.standardError).joined(separator: "\n"))
    }

    private static func timeoutRaceInChild(_ context: ScenarioContext) {
        context.say(Localized(
            "2) The timeout race with the checked continuation — in a child process that explores it (ch05-continuations --child \(timeoutRaceChildName)):",
            ja: "2) チェック付きの継続のままのタイムアウトの競合 — 探索する子プロセスで（ch05-continuations --child \(timeoutRaceChildName)）:"))
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("ch05-timeout-race-\(UUID().uuidString).journal").path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        guard let outcome = context.runBridgeChild(timeoutRaceChildName, journal: journal) else { return }
        let lane = childProcessLane
        let end = context.describeEnd(of: outcome)
        guard case let .signalled(signal) = outcome.termination, let token = ScheduleJournal.read(path: journal) else {
            context.say(Localized("  The child \(end.en) without trapping.", ja: "  子プロセスはトラップせずに\(end.ja)しました。"))
            context.note("race child", "no trap")
            return
        }
        context.trace.record(Localized("trapped (\(signalName(signal)))", ja: "トラップ（\(signalName(signal))）"), lane: lane)
        context.note("race child", "trapped")
        context.note("race token", token.description)
        context.say(Localized("  The child \(end.en) in step \(token.choices.count) of this schedule:",
                              ja: "  子プロセスはこのスケジュールのステップ \(token.choices.count) で\(end.ja)しました:"))
        // The same schedule, replayed here with the game's stand-in, which counts the second
        // resume instead of trapping: the same steps, and the words the child could not print.
        let replayed = Explorer.replay(token) { await photoWithTimeout(.counted) }
        context.showSteps(replayed.steps.prefix(token.choices.count).map(BridgeStep.init))
        context.quoteMisuse(outcome)
        context.say(Localized("  The same schedule in the game: replay 1 \(token)", ja: "  ゲームで同じスケジュールを: replay 1 \(token)"))
    }

    private static func countRaceSchedules(_ context: ScenarioContext) async throws {
        let bound = context.knob("bound")
        context.say(Localized(
            "3) Every schedule of the race with up to \(bound) preemptions, in this process: check-then-act flags, then ResumeOnce.",
            ja: "3) プリエンプション \(bound) 回までの競合のスケジュールすべてを、このプロセスで: 確認してから行動するフラグの版、次に ResumeOnce の版。"))
        let explorer = Localized("explorer", ja: "エクスプローラ")
        for (mode, name) in [(RaceResume.counted, Localized("flags", ja: "フラグ")), (.guarded, .verbatim("ResumeOnce"))] {
            let label = Localized("explores: \(name.en)", ja: "探索: \(name.ja)")
            context.trace.begin(label, lane: explorer)
            let result = await onDedicatedThread {
                Explorer.explore(.exhaustive(maxPreemptions: bound), budget: .init(maxSchedules: 20_000, maxSeconds: 20)) {
                    await photoWithTimeout(mode)
                }
            }
            context.trace.end(label, lane: explorer)
            var tally = OutcomeTally(classify: classifyResumes)
            for (outcome, count) in result.outcomes { for _ in 0..<count { tally.record(outcome) } }
            let key = mode == .counted ? "flags" : "ResumeOnce"
            context.note("\(key) schedules", String(result.schedulesRun))
            context.note("\(key) twice", String(tally.forbiddenCount))
            context.note("\(key) outcomes", result.outcomes.map(\.outcome).sorted().joined(separator: " | "))
            context.say(Localized(
                "  \(name.en): \(result.schedulesRun) schedules\(result.exhausted ? ", every one within the bound" : ""); resumed twice in \(tally.forbiddenCount):",
                ja: "  \(name.ja): \(result.schedulesRun) 個のスケジュール\(result.exhausted ? "（上限内のすべて）" : "")。2 回再開したのは \(tally.forbiddenCount) 個:"))
            context.show(tally.render(terminal: context.terminal, language: context.language))
        }
    }
}
