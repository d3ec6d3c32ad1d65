import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 06-streams/CombineLatest under the explorer, on a fresh answer and fresh
/// inputs per schedule. Two "typist" tasks feed the inputs (`email`, `password`) at set moments
/// of virtual time; a consumer task reads the answer's pairs and notes when each came. The pairs
/// must be those of the inputs' values in the order they were typed — values typed at the same
/// moment in either order — each coming at the moment of the value that caused it.
///
/// 1. Fields typed at different moments, at the same moments, starting empty with repeated
///    values; one field finishing early; one failing: the pairs, then the end (when both
///    finished) or the error.
/// 2. The consumer's task is cancelled: the iteration of both inputs is cancelled.
public enum CombineLatestCheck {
    public static let waitsForBoth = Property(
        id: "pair-before-both",
        name: Localized("no pair until both inputs have a value", ja: "両方の入力に値が来るまでペアを出さない"),
        rule: Localized("The first pair comes when the second of the two inputs produces its first value — never a pair with a placeholder for the input that has said nothing yet.",
                        ja: "最初のペアは、2 つの入力のうち遅いほうが最初の値を出したときに来る。まだ何も出していない入力の代わりに仮の値を入れたペアは出さない。"))
    public static let latestPairs = Property(
        id: "latest-pairs",
        name: Localized("one pair per change, with the latest of each, at once", ja: "変化ごとに、両方の最新の値のペアをすぐに 1 つ"),
        rule: Localized("Each value either input produces (once both have one) gives one pair, at that moment, of that value and the other input's latest — in the order the values came.",
                        ja: "（両方に値が来た後）どちらかの入力が値を出すたびに、その時点で、その値ともう一方の最新の値のペアを 1 つ出す。値が来た順に出す。"))
    public static let dropsRepeats = Property(
        id: "repeated-pair",
        name: Localized("an unchanged pair is not sent again", ja: "変わらないペアは送り直さない"),
        rule: Localized("A pair equal to the one sent just before it is not sent again (a field set to the text it already had).",
                        ja: "直前に送ったペアと等しいペアは、もう一度は送らない（すでにあるのと同じ文字列がフィールドに入った場合）。"))
    public static let endsWithInputs = Property(
        id: "ends-with-inputs",
        name: Localized("the stream ends when both inputs end, or with the first error", ja: "両方の入力が終わるか、最初のエラーでストリームが終わる"),
        rule: Localized("The stream finishes once both inputs have finished (one finishing early is not the end: the other's values still pair with its last value), and throws the first error an input throws, at once.",
                        ja: "ストリームは両方の入力が終わったときに終わる（片方が先に終わっても終わりではなく、もう一方の値はその最後の値とペアになる）。入力が最初にスローしたエラーは、すぐにスローする。"))
    public static let inputsCancelled = Property(
        id: "inputs-left-running",
        name: Localized("the consumer's stop cancels both inputs", ja: "消費者が止まると両方の入力を止める"),
        rule: Localized("When the consumer stops — a `break`, a cancelled task, the stream dropped — the iteration of both inputs is cancelled (the tasks reading them end) before either types again.",
                        ja: "消費者が止まると（`break`、キャンセルされたタスク、捨てられたストリーム）、どちらかが次に入力する前に、両方の入力の反復がキャンセルされる（入力を読むタスクが終わる）。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [waitsForBoth, latestPairs, dropsRepeats, endsWithInputs, inputsCancelled, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.05)
    /// Values typed at the same moments: the pairs' order is where interleavings matter most —
    /// every schedule with one preemption runs, however loaded the machine (a pair yielded after
    /// an actor call returns is overtaken at one).
    static let tiesBudget = Explorer.Budget.guaranteeing(preemptions: 1, maxSchedules: 5_000)
    static let ok = "ok"

    /// What one field does, and when (ms of virtual time after the start).
    enum Keystroke: Equatable {
        case text(String)
        case finish
        case fail
    }

    /// A field's script; `endless`: "a", "aa", … every 10 ms until its stream is terminated.
    enum Field: Equatable {
        case script([(at: Int, Keystroke)])
        case endless

        static func == (lhs: Field, rhs: Field) -> Bool {
            switch (lhs, rhs) {
            case (.endless, .endless): true
            case let (.script(a), .script(b)): a.map(\.at) == b.map(\.at) && a.map(\.1) == b.map(\.1)
            default: false
            }
        }
    }

    enum Consumer: Equatable {
        case reads, cancelledAt(Int)
    }

    struct Case {
        let email: Field
        let password: Field
        let consumer: Consumer
        let call: Localized
        var budget = CombineLatestCheck.budget
        /// The ThreadSanitizer pass after a clean search: the cases that differ only in how the
        /// fields end share the first two cases' accesses, and skip it (the check stays quick).
        var raceLane = true
    }

    static let cases: [Case] = [
        Case(email: .script([(10, .text("a@")), (30, .text("ab@")), (50, .finish)]),
             password: .script([(20, .text("x")), (40, .text("xy")), (50, .finish)]), consumer: .reads,
             call: Localized("email \"a@\" at 10 ms, \"ab@\" at 30; password \"x\" at 20, \"xy\" at 40; both finish at 50",
                             ja: "メールは 10 ms に \"a@\"、30 ms に \"ab@\"。パスワードは 20 ms に \"x\"、40 ms に \"xy\"。50 ms に両方終わる")),
        Case(email: .script([(0, .text("a")), (10, .text("ab")), (20, .finish)]),
             password: .script([(0, .text("x")), (10, .text("xy")), (20, .finish)]), consumer: .reads,
             call: Localized("both fields typed at the same moments: \"a\" and \"x\" at once, \"ab\" and \"xy\" at 10 ms; both finish at 20",
                             ja: "両方のフィールドに同じ時点で入力: すぐに \"a\" と \"x\"、10 ms に \"ab\" と \"xy\"。20 ms に両方終わる"),
             budget: tiesBudget),
        Case(email: .script([(0, .text("")), (10, .text("a")), (30, .text("a")), (50, .text("ab")), (60, .finish)]),
             password: .script([(0, .text("")), (20, .text("x")), (40, .text("x")), (60, .finish)]), consumer: .reads,
             call: Localized("both fields start empty (\"\" at once, as a text field's first value); email \"a\" at 10 ms and \"a\" again at 30, \"ab\" at 50; password \"x\" at 20 and \"x\" again at 40; both finish at 60",
                             ja: "両方のフィールドが空で始まる（テキストフィールドの最初の値として、すぐに \"\"）。メールは 10 ms と 30 ms に同じ \"a\"、50 ms に \"ab\"。パスワードは 20 ms と 40 ms に同じ \"x\"。60 ms に両方終わる"),
             raceLane: false),
        Case(email: .script([(10, .text("a@")), (15, .finish)]),
             password: .script([(20, .text("x")), (30, .text("xy")), (40, .finish)]), consumer: .reads,
             call: Localized("email \"a@\" at 10 ms, then finishes at 15; password \"x\" at 20, \"xy\" at 30, finishes at 40",
                             ja: "メールは 10 ms に \"a@\"、15 ms に終わる。パスワードは 20 ms に \"x\"、30 ms に \"xy\"、40 ms に終わる"),
             raceLane: false),
        Case(email: .script([(10, .text("a@")), (60, .finish)]),
             password: .script([(20, .text("x")), (30, .fail)]), consumer: .reads,
             call: Localized("email \"a@\" at 10 ms; password \"x\" at 20, then fails with FieldError.unavailable at 30",
                             ja: "メールは 10 ms に \"a@\"。パスワードは 20 ms に \"x\"、30 ms に FieldError.unavailable で失敗する"),
             raceLane: false),
        Case(email: .endless, password: .endless, consumer: .cancelledAt(25),
             call: Localized("both fields typed every 10 ms, endlessly; the consuming task is cancelled at 25 ms",
                             ja: "両方のフィールドに 10 ms ごとに入力が続く。消費者のタスクを 25 ms にキャンセルする")),
    ]

    public static func run(_ make: @escaping @Sendable () -> any CombineLatestProtocol) -> CheckResult {
        for item in cases {
            if let failure = check(make, item) { return .failed(failure) }
        }
        return .passed(properties)
    }

    // MARK: One case

    /// One input of the answer: its stream, fed by a typist task, and how it was terminated.
    final class Input: Sendable {
        let name: Localized
        let stream: AsyncThrowingStream<String, any Error>
        private let continuation: AsyncThrowingStream<String, any Error>.Continuation
        private let state = QuietLocked<(terminated: Bool, cancelled: Bool, stopped: Bool)>((false, false, false))

        init(_ name: Localized) {
            self.name = name
            (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
            let state = self.state
            continuation.onTermination = { termination in
                state.withLock {
                    $0.terminated = true
                    if case .cancelled = termination { $0.cancelled = true }
                }
            }
        }

        var terminated: Bool { state.current.terminated }
        var cancelled: Bool { state.current.cancelled }

        var stopped: Bool { state.current.stopped }

        func press(_ stroke: Keystroke) -> Bool {
            switch stroke {
            case let .text(text):
                checkpoint(Localized("\(name.en) ← \"\(text)\"", ja: "\(name.ja) ← \"\(text)\""))
                if case .terminated = continuation.yield(text) { return false }
            case .finish:
                checkpoint(Localized("\(name.en) finishes", ja: "\(name.ja)が終わる"))
                continuation.finish()
            case .fail:
                checkpoint(Localized("\(name.en) fails", ja: "\(name.ja)が失敗する"))
                continuation.finish(throwing: FieldError.unavailable)
            }
            return true
        }

        /// Ends the typist and the input for good (the check's, once it has what it needs).
        func shutDown() {
            state.withLock { $0.stopped = true }
            continuation.finish()
        }
    }

    /// One keyboard types both fields, from a task of its own: what is typed at the same moment
    /// goes in one step (the email first), as an autofill fills a form — so the two readers wake
    /// together and their order is the search's choice.
    static func type(_ email: Input, _ emailField: Field, _ password: Input, _ passwordField: Field) {
        Task {
            nameTask(Localized("keyboard", ja: "キーボード"))
            guard case let .script(emailStrokes) = emailField, case let .script(passwordStrokes) = passwordField else {
                // Endless: "a", "aa", … in both every 10 ms, while either is still read.
                var text = ""
                while true {
                    try? await ExplorerClock().sleep(for: .milliseconds(10))
                    text += "a"
                    let typed = [email, password].filter { !$0.stopped }.map { $0.press(.text(text)) }
                    if !typed.contains(true) { return }
                }
            }
            let strokes = (emailStrokes.map { (at: $0.at, input: email, stroke: $0.1) } + passwordStrokes.map { (at: $0.at, input: password, stroke: $0.1) })
                .enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
            var now = 0
            for stroke in strokes {
                if stroke.at > now { try? await ExplorerClock().sleep(for: .milliseconds(stroke.at - now)) }
                now = stroke.at
                if stroke.input.stopped { continue }
                _ = stroke.input.press(stroke.stroke)
            }
        }
    }

    static func check(_ make: @escaping @Sendable () -> any CombineLatestProtocol, _ item: Case) -> CheckFailure? {
        checkExplored(latestPairs, title: item.call, broken: brokenProperty(in: properties), deadlock: endsWithInputs,
                      leftWaiting: leftWaiting, observed: { observed(item.call, $0) }, budget: item.budget,
                      classify: { $0 == ok ? .acceptable : .forbidden }, raceLane: item.raceLane) {
            let email = Input(Localized("email", ja: "メール")), password = Input(Localized("password", ja: "パスワード"))
            let answer = make()
            let consumer = item.consumer
            nameNextTasks(BilingualLabel.join("consumer", "消費者"))
            let reading = Task { () -> (pairs: [Received], ending: String, at: Int) in
                var received: [Received] = []
                do {
                    // The stream made here, held by the loop alone: a `break` drops it.
                    for try await (first, second) in answer.combineLatest(email.stream, password.stream) {
                        received.append(Received(email: first, password: second, at: virtualMilliseconds()))
                        checkpoint(Localized("loop ← (\(first), \(second))", ja: "ループ ← (\(first), \(second))"))
                    }
                    return (received, "end", virtualMilliseconds())
                } catch {
                    return (received, errorName(error), virtualMilliseconds())
                }
            }
            type(email, item.email, password, item.password)
            if case let .cancelledAt(moment) = consumer {
                try? await ExplorerClock().sleep(for: .milliseconds(moment))
                checkpoint("consumer.cancel()")
                reading.cancel()
            }
            let (received, ending, endedAt) = await reading.value
            if consumer != .reads {
                // The consumer stopped: both inputs' iteration must end before the next keystroke
                // (5 ms: past the explorer's work quantum, so all ready work runs first).
                try? await ExplorerClock().sleep(for: .milliseconds(5))
                let running = [email, password].filter { !$0.terminated }.map(\.name)
                email.shutDown()
                password.shutDown()
                await untilQuiet()
                if !running.isEmpty {
                    return brokenOutcome(inputsCancelled, Localized(
                        "after the consumer's task was cancelled, the iteration of \(running.map(\.en).joined(separator: " and ")) went on",
                        ja: "消費者のタスクがキャンセルされた後も、\(running.map(\.ja).joined(separator: "と")) の反復が続いた"))
                }
                return judgeStopped(item, received)
            }
            await untilQuiet()
            email.shutDown()
            password.shutDown()
            return judge(item, received: received, ending: ending, endedAt: endedAt)
        }
    }

    struct Received: Equatable {
        let email: String, password: String, at: Int
        var pair: String { "(\(email), \(password))" }
    }

    /// What a correct answer sends for `item`, in each order the values typed at the same moment
    /// may be taken: the pairs with their moments, the ending and its moment.
    static func expectations(_ item: Case) -> [(pairs: [Received], ending: String, at: Int)] {
        guard case let .script(email) = item.email, case let .script(password) = item.password else { return [] }
        let strokes = email.map { (at: $0.at, field: 0, stroke: $0.1) } + password.map { (at: $0.at, field: 1, stroke: $0.1) }
        let moments = Set(strokes.map(\.at)).sorted()
        // Every order of each moment's strokes (two fields: at most two orders a moment).
        var orders: [[(at: Int, field: Int, stroke: Keystroke)]] = [[]]
        for moment in moments {
            let here = strokes.filter { $0.at == moment }
            let permutations = here.count == 2 ? [here, here.reversed()] : [here]
            orders = orders.flatMap { prefix in permutations.map { prefix + $0 } }
        }
        return orders.map { order in
            var latest: [String?] = [nil, nil], finished = [false, false]
            var pairs: [Received] = []
            for stroke in order {
                switch stroke.stroke {
                case let .text(text):
                    latest[stroke.field] = text
                    if let first = latest[0], let second = latest[1], pairs.last.map({ ($0.email, $0.password) != (first, second) }) ?? true {
                        pairs.append(Received(email: first, password: second, at: stroke.at))
                    }
                case .finish:
                    finished[stroke.field] = true
                    if finished[0], finished[1] { return (pairs, "end", stroke.at) }
                case .fail:
                    return (pairs, "FieldError.unavailable", stroke.at)
                }
            }
            return (pairs, "end", moments.last ?? 0)
        }
    }

    static func judge(_ item: Case, received: [Received], ending: String, endedAt: Int) -> String {
        let expected = expectations(item)
        if expected.contains(where: { $0.pairs == received && $0.ending == ending && $0.at == endedAt }) { return ok }
        let want = expected[0]
        let got = list(received)
        // Which rule broke, most specific first.
        if let first = received.first, let bothAt = want.pairs.first?.at, first.at < bothAt {
            return brokenOutcome(waitsForBoth, Localized(
                "the first pair \(first.pair) came at \(first.at) ms, before both fields had a value (\(bothAt) ms); pairs: \(got)",
                ja: "最初のペア \(first.pair) が、両方のフィールドに値が来る前（\(bothAt) ms）の \(first.at) ms に来た。ペア: \(got)"))
        }
        if let repeated = zip(received, received.dropFirst()).first(where: { $0.email == $1.email && $0.password == $1.password }) {
            return brokenOutcome(dropsRepeats, Localized(
                "\(repeated.1.pair) was sent twice in a row (at \(repeated.0.at) and \(repeated.1.at) ms); pairs: \(got)",
                ja: "\(repeated.1.pair) が続けて 2 回送られた（\(repeated.0.at) ms と \(repeated.1.at) ms）。ペア: \(got)"))
        }
        // The pairs right, or right so far and then the end came early: the ending is what differs.
        if expected.contains(where: { $0.pairs.starts(with: received) }) {
            let wanted = want.ending == "end" ? Localized("end at \(want.at) ms", ja: "\(want.at) ms に終わる") : Localized("throw \(want.ending) at \(want.at) ms", ja: "\(want.at) ms に \(want.ending) をスローする")
            let did = ending == "end" ? Localized("it ended at \(endedAt) ms", ja: "\(endedAt) ms に終わった") : Localized("it threw \(ending) at \(endedAt) ms", ja: "\(endedAt) ms に \(ending) をスローした")
            return brokenOutcome(endsWithInputs, Localized("pairs \(got); the stream should \(wanted.en), but \(did.en)",
                                                           ja: "ペア \(got)。ストリームは\(wanted.ja)はずが、\(did.ja)"))
        }
        return brokenOutcome(latestPairs, Localized(
            "expected \(list(want.pairs))\(expected.count > 1 ? " (or the same with the values typed together taken in the other order)" : ""); got \(got)",
            ja: "\(list(want.pairs))\(expected.count > 1 ? "（同時に入力された値を逆の順に受け取ったものでもよい）" : "") のはずが、\(got) でした"))
    }

    /// The consumer stopped after a break or a cancel: the pairs it got must be right so far.
    static func judgeStopped(_ item: Case, _ received: [Received]) -> String {
        if let first = received.first, first.at < 10 {
            return brokenOutcome(waitsForBoth, Localized("the first pair \(first.pair) came at \(first.at) ms, before both fields had a value (10 ms)",
                                                         ja: "最初のペア \(first.pair) が、両方のフィールドに値が来る前（10 ms）の \(first.at) ms に来た"))
        }
        return ok
    }

    static func list(_ pairs: [Received]) -> String {
        pairs.isEmpty ? "—" : pairs.map { "\($0.pair)@\($0.at)ms" }.joined(separator: ", ")
    }

    static func virtualMilliseconds() -> Int {
        let (seconds, attoseconds) = ExplorerClock().now.offset.components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    static let leftWaiting = Localized(
        "The loop over the pairs never ended. Finish the stream once both inputs have finished — e.g. after a task group whose two children each read one input to its end — and finish it throwing the error an input throws.",
        ja: "ペアのループが終わりませんでした。両方の入力が終わったら、ストリームを終えましょう（たとえば、子タスク 2 つがそれぞれ入力を最後まで読むタスクグループの後で）。入力がエラーをスローしたら、そのエラーでストリームを終えます。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case waitsForBoth.id:
                Localized("Keep each input's latest value as an optional, and send a pair only when both are non-nil.",
                          ja: "各入力の最新の値をオプショナルで持ち、両方が nil でなくなってからペアを送りましょう。")
            case latestPairs.id:
                Localized("Read the two inputs at the same time (two child tasks), update the latest values and send the pair in one step under one lock — an `await` between updating and sending (an actor call, a `Task {}`) lets the other input's pair overtake this one.",
                          ja: "2 つの入力を同時に読み（子タスク 2 つ）、最新の値の更新とペアの送信を 1 つのロックの下で一度に行いましょう。更新と送信の間に `await`（アクターの呼び出しや `Task {}`）があると、もう一方の入力のペアに追い越されます。")
            case dropsRepeats.id:
                Localized("Remember the last pair sent and skip a pair equal to it (`removeDuplicates`).",
                          ja: "最後に送ったペアを覚えておき、それと等しいペアは送らないようにしましょう（`removeDuplicates`）。")
            case endsWithInputs.id:
                Localized("Finish only when both inputs have ended (wait for both child tasks), and let an input's error end the stream at once: in a throwing task group, `while try await group.next() != nil {}` rethrows the first error as it comes, and leaving the group then cancels the other child — `group.waitForAll()` waits for every child before it throws.",
                          ja: "両方の入力が終わってから終えましょう（2 つの子タスクを両方待つ）。入力のエラーはすぐにストリームを終えるようにします。スローするタスクグループでは、`while try await group.next() != nil {}` が最初のエラーを来たときに再スローし、グループを抜けるともう一方の子がキャンセルされます。`group.waitForAll()` は、すべての子を待ってからスローします。")
            case inputsCancelled.id:
                Localized("Keep the task that reads the inputs and cancel it from `continuation.onTermination`: the child tasks reading the inputs are cancelled with it, and their `for try await` loops end.",
                          ja: "入力を読むタスクを保持し、`continuation.onTermination` からキャンセルしましょう。入力を読む子タスクも一緒にキャンセルされ、その `for try await` ループが終わります。")
            default:
                nil
            }
        }
    }
}

/// A field's failure in exercise 06-streams/CombineLatest.
public enum FieldError: Error, Equatable, Sendable {
    case unavailable
}
