import Foundation
import WorkbookCore

extension Chapter05 {
    /// `withCheckedContinuation` versus `withUnsafeContinuation`: the same API, one with checks.
    ///
    /// The checked one allocates a small object that remembers whether it was resumed: a second
    /// resume traps with a message, and dropping it unresumed prints one. The unsafe one has no
    /// such object: it is cheaper, and a mistake is silent or undefined. Keep the checked one
    /// unless a measurement on the real workload says the difference matters.
    static let checkedVersusUnsafe = Scenario(
        slug: "checked-vs-unsafe",
        title: Localized("Checked or unsafe continuations: what the checks cost and catch", ja: "チェック付きの継続とチェックなしの継続: チェックのコストと、チェックが捕まえるもの"),
        narration: Localized(
            """
            `withCheckedContinuation` and `withUnsafeContinuation` have the same shape; the checked one adds bookkeeping that notices misuse. \
            1) What the checks cost, measured on this machine now: `roundTrips` round trips of each kind, resumed at once inside the closure (the cheapest case, where the bookkeeping weighs most), \
            then a smaller number resumed from a Dispatch queue, as a real callback is. `repeats` runs each, in alternating order; the median is shown. \
            2) Never resumed, in child processes: a task awaits a continuation that is kept in a variable, and the variable is then cleared. \
            The checked one prints the runtime's leak message at that moment; the unsafe one prints nothing. In both, the task waits for ever. \
            3) Resumed twice in a row, in child processes: the checked one stops the program with the runtime's message. \
            The unsafe one is undefined behaviour: whatever happens here is not a promise. The child runs `children` times and each ending is reported as it was; \
            then once more with the runtime's debug switch `SWIFT_DEBUG_VALIDATE_UNCHECKED_CONTINUATIONS=1`, which makes the runtime track unsafe continuations too.
            """,
            ja: """
            `withCheckedContinuation` と `withUnsafeContinuation` は同じ形をしています。前者には、誤った使い方に気づくための記録が加わっています。\
            1) チェックのコストを、いまこのマシンで測ります。それぞれ `roundTrips` 回、クロージャの中ですぐに再開する往復（最も安い場合で、記録の重みが最も大きく出ます）を行い、\
            続いて、実際のコールバックと同じく `DispatchQueue` から再開する往復を、より少ない回数行います。それぞれ `repeats` 回、順番を入れ替えながら実行し、中央値を示します。\
            2) 再開されない継続を子プロセスで: タスクが、変数に保持された継続を待ち、その後その変数を空にします。\
            `withCheckedContinuation` ではその瞬間にランタイムのリークのメッセージが出ます。`withUnsafeContinuation` では何も出ません。どちらでも、タスクは永遠に待ち続けます。\
            3) 続けて 2 回再開する場合を子プロセスで: `withCheckedContinuation` はランタイムのメッセージとともにプログラムを止めます。\
            `withUnsafeContinuation` では未定義動作です。ここで何が起きても、それは保証ではありません。子プロセスを `children` 回実行し、それぞれの終わり方をそのまま報告します。\
            続いて、チェックなしの継続もランタイムに追跡させるデバッグ用スイッチ `SWIFT_DEBUG_VALIDATE_UNCHECKED_CONTINUATIONS=1` を付けて、もう 1 回実行します。
            """),
        knobs: [
            .init("roundTrips", default: 100_000, range: 1_000...2_000_000, help: Localized("round trips per run, resumed inside the closure", ja: "1 回の計測での往復の回数（クロージャの中で再開）")),
            .init("repeats", default: 5, range: 1...21, help: Localized("runs of each kind; the median is shown", ja: "それぞれの計測の回数（中央値を示す）")),
            .init("children", default: 3, range: 1...20, help: Localized("child processes that resume an unsafe continuation twice", ja: "`UnsafeContinuation` を 2 回再開する子プロセスの数")),
        ],
        prediction: .init(
            question: Localized(
                "A task awaits a continuation, and the only variable holding it is cleared: nobody can resume it now. Which kind prints a message at that moment: checked, unsafe, both or neither?",
                ja: "タスクが継続を待っていて、それを保持していた唯一の変数が空にされます。もう誰も再開できません。その瞬間にメッセージを出すのはどちら？（'checked'、'unsafe'、'both'、'neither' のどれかで）"),
            explanation: Localized(
                "Only the checked one. Its bookkeeping object notices that it is being destroyed unresumed and prints `SWIFT TASK CONTINUATION MISUSE: … leaked its continuation`. The unsafe one has nothing that could notice. In both cases the task stays suspended for ever: the message is a diagnosis, not a rescue.",
                ja: "`CheckedContinuation` だけです。記録用のオブジェクトが、再開されないまま破棄されることに気づき、`SWIFT TASK CONTINUATION MISUSE: … leaked its continuation` と出力します。`UnsafeContinuation` には気づく仕組みがありません。どちらでもタスクは永遠にサスペンドしたままです。メッセージは診断であって、救済ではありません。"),
            observe: { $0.noted("leak: which printed") ?? "" },
            isPossible: { $0 == "CHECKED" })
    ) { context in
        await measureCost(context)
        showLeaks(context)
        showResumeTwice(context)
    }

    // MARK: 1) Cost

    /// Nanoseconds for `count` continuations resumed at once inside their closure.
    private static func immediateRoundTrips(_ count: Int, checked: Bool) async -> UInt64 {
        var sum = 0
        let start = MonotonicClock.now()
        if checked {
            for index in 0..<count { sum &+= await withCheckedContinuation { $0.resume(returning: index) } }
        } else {
            for index in 0..<count { sum &+= await withUnsafeContinuation { $0.resume(returning: index) } }
        }
        let elapsed = MonotonicClock.now() - start
        precondition(sum == (0..<count).reduce(0, &+))
        return elapsed
    }

    /// Nanoseconds for `count` continuations resumed from a Dispatch queue, as callbacks are.
    private static func queuedRoundTrips(_ count: Int, checked: Bool) async -> UInt64 {
        let queue = DispatchQueue(label: "workbook.callbacks")
        var sum = 0
        let start = MonotonicClock.now()
        if checked {
            for index in 0..<count {
                sum &+= await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: index) } }
            }
        } else {
            for index in 0..<count {
                sum &+= await withUnsafeContinuation { continuation in queue.async { continuation.resume(returning: index) } }
            }
        }
        let elapsed = MonotonicClock.now() - start
        precondition(sum == (0..<count).reduce(0, &+))
        return elapsed
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    private static func formatNanoseconds(_ value: Double) -> String {
        value >= 1_000 ? String(format: "%.1f µs", value / 1_000) : String(format: "%.0f ns", value)
    }

    private static func measureCost(_ context: ScenarioContext) async {
        let count = context.knob("roundTrips"), repeats = context.knob("repeats")
        let queued = max(200, count / 50)
        context.say(Localized(
            "1) What the checks cost: \(count) round trips resumed at once and \(queued) resumed from a queue, \(repeats) run(s) each (median):",
            ja: "1) チェックのコスト: すぐに再開する往復を \(count) 回、キューから再開する往復を \(queued) 回、それぞれ \(repeats) 回計測（中央値）:"))
        let lane = Localized("measuring", ja: "計測")
        var immediate: [Bool: [Double]] = [true: [], false: []], fromQueue: [Bool: [Double]] = [true: [], false: []]
        for run in 0..<repeats {
            for checked in run % 2 == 0 ? [true, false] : [false, true] {
                let name = checked ? "withCheckedContinuation" : "withUnsafeContinuation"
                context.trace.begin(.verbatim(name), lane: lane)
                immediate[checked]!.append(Double(await immediateRoundTrips(count, checked: checked)) / Double(count))
                fromQueue[checked]!.append(Double(await queuedRoundTrips(queued, checked: checked)) / Double(queued))
                context.trace.end(.verbatim(name), lane: lane)
            }
        }
        let checkedNow = median(immediate[true]!), unsafeNow = median(immediate[false]!)
        let checkedQueued = median(fromQueue[true]!), unsafeQueued = median(fromQueue[false]!)
        for (key, value) in [("cost: checked immediate ns", checkedNow), ("cost: unsafe immediate ns", unsafeNow),
                             ("cost: checked queued ns", checkedQueued), ("cost: unsafe queued ns", unsafeQueued)] {
            context.note(key, String(format: "%.1f", value))
        }
        let widths = [24, 22, 22, 14]
        context.show(tableRow(["", "CheckedContinuation", "UnsafeContinuation", context.text(Localized("difference", ja: "差"))], widths: widths))
        for (name, checked, unsafe) in [(Localized("resumed at once", ja: "すぐに再開"), checkedNow, unsafeNow),
                                        (Localized("resumed from a queue", ja: "キューから再開"), checkedQueued, unsafeQueued)] {
            context.show(tableRow([context.text(name), formatNanoseconds(checked), formatNanoseconds(unsafe),
                                   (checked >= unsafe ? "+" : "−") + formatNanoseconds(abs(checked - unsafe))], widths: widths))
        }
        let share = checkedQueued > 0 ? (checkedNow - unsafeNow) / checkedQueued * 100 : 0
        context.note("cost: check share of queued %", String(format: "%.1f", share))
        context.say(Localized(
            "  Per round trip the checks cost \(formatNanoseconds(checkedNow - unsafeNow)) here; next to one trip through a queue (\(formatNanoseconds(checkedQueued))) that is \(String(format: "%.1f", share)) %. These numbers are this run's, on this machine and build.",
            ja: "  ここでは往復 1 回あたりのチェックのコストは \(formatNanoseconds(checkedNow - unsafeNow)) で、キューを通る往復 1 回（\(formatNanoseconds(checkedQueued))）に比べると \(String(format: "%.1f", share)) % です。数字はこの実行の、このマシンとこのビルドでのものです。"))
    }

    // MARK: 2) Never resumed

    static let checkedLeakChildName = "checked-leak"
    static let unsafeLeakChildName = "unsafe-leak"
    /// Printed by a leak child once it has cleared the variable that held the continuation.

    /// A task awaits a continuation kept in `kept`; once the task has suspended, the child's
    /// main thread clears `kept`. The checked one reports the leak right then, on the main thread
    /// (so before the child exits 0).
    ///
    /// "Once the task has suspended": until the closure given to `withCheckedContinuation`
    /// returns, the task still holds the continuation too, and the last reference would go on
    /// the task's thread, racing the child's exit. The task runs on an executor that says when
    /// each of its jobs has run to its end, that is, to the task's suspension.
    static func leakChild(checked: Bool) -> Never {
        let stored = OneShotSignal()
        let executor = JobEndSignallingExecutor()
        if checked {
            let kept = Locked<CheckedContinuation<String, Never>?>(nil)
            Task(executorPreference: executor) { _ = await awaitReply(keptIn: kept, stored: stored) }
            guard stored.waitBlocking(), executor.waitForJobEnd() else { exit(4) }
            kept.withLock { $0 = nil }
        } else {
            let kept = Locked<UnsafeContinuation<String, Never>?>(nil)
            Task(executorPreference: executor) { _ = await awaitReply(keptIn: kept, stored: stored) }
            guard stored.waitBlocking(), executor.waitForJobEnd() else { exit(4) }
            kept.withLock { $0 = nil }
        }
        exit(0)
    }

    private static func awaitReply(keptIn kept: Locked<CheckedContinuation<String, Never>?>, stored: OneShotSignal) async -> String {
        await withCheckedContinuation { continuation in
            kept.withLock { $0 = continuation }
            stored.fire()
        }
    }

    private static func awaitReply(keptIn kept: Locked<UnsafeContinuation<String, Never>?>, stored: OneShotSignal) async -> String {
        await withUnsafeContinuation { continuation in
            kept.withLock { $0 = continuation }
            stored.fire()
        }
    }

    private static func showLeaks(_ context: ScenarioContext) {
        context.say(Localized("2) Never resumed: the only variable holding the continuation is cleared — in child processes:",
                              ja: "2) 再開されない継続: それを保持する唯一の変数を空にする — 子プロセスで実行:"))
        var printed: [String] = []
        for (checked, name) in [(true, checkedLeakChildName), (false, unsafeLeakChildName)] {
            let kind = checked ? "withCheckedContinuation" : "withUnsafeContinuation"
            context.say(Localized("  \(kind) (ch05-continuations --child \(name)):", ja: "  \(kind)（ch05-continuations --child \(name)）:"))
            guard let ending = context.runContinuationChild(name) else { return }
            context.trace.record(.verbatim(kind + (ending.messages.isEmpty ? ": —" : ": MISUSE")), lane: Localized("child processes", ja: "子プロセス"))
            let leakMessage = ending.messages.contains { $0.contains("leaked its continuation") }
            if leakMessage { printed.append(checked ? "checked" : "unsafe") }
            context.note("leak: \(checked ? "checked" : "unsafe") ending", ending.how)
            context.note("leak: \(checked ? "checked" : "unsafe") message", ending.messages.first ?? "")
            context.report(ending, survived: Localized("  (exit 3)", ja: "  （終了コード 3）"))
        }
        let which = printed.isEmpty ? "neither" : printed.count == 2 ? "both" : printed[0]
        context.note("leak: which printed", which)
        context.say(Localized("  A message when the continuation went: \(which). The awaiting task was still suspended when each child exited.",
                              ja: "  継続がなくなったときのメッセージ: \(which == "checked" ? "`CheckedContinuation` だけ" : "'\(which)'")。どちらの子プロセスでも、待っていたタスクは終了の時点でまだサスペンドしていました。"))
    }

    // MARK: 3) Resumed twice

    static let checkedResumeTwiceChildName = "checked-resume-twice"
    static let unsafeResumeTwiceChildName = "unsafe-resume-twice"
    /// The Swift runtime's debug switch that tracks unsafe continuations and stops on a second resume.
    static let validateSwitch = "SWIFT_DEBUG_VALIDATE_UNCHECKED_CONTINUATIONS"

    /// Resumes a continuation twice in a row, inside its closure, and prints what the awaiting
    /// code received: `got 1`. Exit status 3 if the process is still alive after the task ends.
    static func resumeTwiceChild(checked: Bool) -> Never {
        runInChild {
            let value = checked ? await resumeTwiceChecked() : await resumeTwiceUnsafe()
            Console.line("got \(value)")
        }
        exit(3)
    }

    private static func resumeTwiceChecked() async -> Int {
        await withCheckedContinuation { continuation in
            continuation.resume(returning: 1)
            continuation.resume(returning: 2)
        }
    }

    private static func resumeTwiceUnsafe() async -> Int {
        await withUnsafeContinuation { continuation in
            continuation.resume(returning: 1)
            continuation.resume(returning: 2)   // undefined behaviour
        }
    }

    private static func showResumeTwice(_ context: ScenarioContext) {
        context.say(Localized("3) Resumed twice in a row (1, then 2) — in child processes:", ja: "3) 続けて 2 回再開（1、次に 2）— 子プロセスで実行:"))
        context.say(Localized("  withCheckedContinuation (ch05-continuations --child \(checkedResumeTwiceChildName)):",
                              ja: "  withCheckedContinuation（ch05-continuations --child \(checkedResumeTwiceChildName)）:"))
        guard let checked = context.runContinuationChild(checkedResumeTwiceChildName) else { return }
        context.trace.record(Localized("withCheckedContinuation: \(checked.shown.en)", ja: "withCheckedContinuation: \(checked.shown.ja)"), lane: Localized("child processes", ja: "子プロセス"))
        context.note("twice: checked ending", checked.how)
        context.note("twice: checked message", checked.messages.first ?? "")
        context.report(checked, survived: Localized("  The child survived.", ja: "  子プロセスは動き続けました。"))

        let runs = context.knob("children")
        context.say(Localized("  withUnsafeContinuation (ch05-continuations --child \(unsafeResumeTwiceChildName)), \(runs) time(s):",
                              ja: "  withUnsafeContinuation（ch05-continuations --child \(unsafeResumeTwiceChildName)）を \(runs) 回:"))
        var endings: [String: Int] = [:]
        var trapped = 0
        for _ in 0..<runs {
            guard let ending = context.runContinuationChild(unsafeResumeTwiceChildName) else { return }
            let got = ending.printed.filter { $0.hasPrefix("got ") }.joined(separator: ", ")
            let message = ending.messages.isEmpty ? "—" : ending.messages.joined(separator: " / ")
            let line = "\(ending.how); stdout: \(got.isEmpty ? "—" : got); stderr: \(message)"
            endings[line, default: 0] += 1
            if ending.messages.contains(where: { $0.contains("CONTINUATION MISUSE") }) { trapped += 1 }
            context.trace.record(Localized("withUnsafeContinuation: \(ending.shown.en)", ja: "withUnsafeContinuation: \(ending.shown.ja)"), lane: Localized("child processes", ja: "子プロセス"))
        }
        for (line, count) in endings.sorted(by: { $0.value > $1.value }) {
            context.say(Localized("  \(count)×", ja: "  \(count) 回:"))
            context.quote(line)
        }
        context.note("twice: unsafe endings", String(endings.count))
        context.note("twice: unsafe misuse messages", String(trapped))
        context.say(Localized(
            "  The runtime's continuation check caught the unsafe double resume in \(trapped) of \(runs) run(s). Whatever ended the children above was not a check for this mistake, and another build, machine or run may end differently — or not at all.",
            ja: "  ランタイムの継続のチェックが `UnsafeContinuation` の 2 回目の再開を捕まえたのは \(runs) 回中 \(trapped) 回でした。上の子プロセスを終わらせたのはこの誤りのためのチェックではなく、別のビルド、マシン、実行では違う終わり方をするかもしれません。終わらないことさえあります。"))
        context.say(Localized(
            "  withUnsafeContinuation again, with the runtime's debug switch \(validateSwitch)=1, which makes it track unsafe continuations:",
            ja: "  もう一度 withUnsafeContinuation を、チェックなしの継続を追跡させるランタイムのデバッグ用スイッチ \(validateSwitch)=1 を付けて実行:"))
        if let validated = context.runContinuationChild(unsafeResumeTwiceChildName, environment: [validateSwitch: "1"]) {
            context.trace.record(Localized("withUnsafeContinuation, tracked: \(validated.shown.en)", ja: "withUnsafeContinuation（追跡あり）: \(validated.shown.ja)"), lane: Localized("child processes", ja: "子プロセス"))
            context.note("twice: validated ending", validated.how)
            context.note("twice: validated message", validated.messages.first ?? "")
            context.report(validated, survived: Localized("  The child survived.", ja: "  子プロセスは動き続けました。"))
        }
    }
}
