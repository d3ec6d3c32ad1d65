import Dispatch
import WorkbookCore

extension Chapter01 {
    /// `asyncAfter` runs blocks by their deadlines, not in the order they were submitted.
    static let asyncAfter = Scenario(
        slug: "async-after",
        title: Localized("asyncAfter: deadlines, not submission order", ja: "asyncAfter: 投入順ではなく期限順"),
        narration: Localized(
            """
            Three blocks go to a serial queue with `asyncAfter`, submitted in the order C, A, B, \
            with deadlines C at +3×spacing, A at +1×spacing, B at +2×spacing (spacing = 10 ms by default). \
            A block joins the queue only when its deadline passes, so they print in deadline order: A B C. \
            The table shows how late each one ran: a deadline is a "not before", never an exact time, and the system may \
            stretch it a little to wake the CPU less often. \
            With a tiny `spacing` (1–2 ms) that slack can exceed the gap between deadlines and the order is no longer guaranteed. \
            The scenario waits for the three blocks with a DispatchGroup; it never sleeps.
            """,
            ja: """
            3 つのブロックを C, A, B の順に `asyncAfter` でシリアルキューへ投入します。\
            期限は C が +3×spacing、A が +1×spacing、B が +2×spacing です（spacing の既定値は 10 ms）。\
            ブロックは期限が来てはじめてキューに入るので、表示は期限の順、つまり A B C になります。\
            表には各ブロックの遅れが出ます。\
            期限は「これより前には動かない」という意味で正確な時刻ではなく、システムは CPU を起こす回数を減らすために少し引き延ばすことがあります。\
            `spacing` をごく小さく（1〜2 ms）すると、この遅れの許容幅が期限の間隔を超え、順番は保証されなくなります。\
            シナリオは 3 つのブロックをスリープではなく DispatchGroup で待ちます。
            """),
        knobs: [
            .init("spacing", default: 10, range: 1...200, help: Localized("ms between the deadlines", ja: "期限どうしの間隔（ms）")),
        ],
        prediction: .init(
            question: Localized(
                "Submitted in the order C (+30 ms), A (+10 ms), B (+20 ms) with asyncAfter. In what order do they print?",
                ja: "asyncAfter で C（+30 ms）、A（+10 ms）、B（+20 ms）の順に投入します。表示の順番は？"),
            explanation: Localized(
                "asyncAfter adds a block to the queue when its deadline passes, so submission order does not matter: A, B, C by deadline. Only when deadlines are a millisecond or two apart can the system's timer slack reorder them.",
                ja: "asyncAfter は期限が来たときにブロックをキューに加えるので、投入の順番は関係なく、期限順に A, B, C となります。期限の間隔が 1〜2 ms しかないときだけ、システムのタイマーの遅れの許容幅（slack）のせいで順番が入れ替わることがあります。"),
            isPossible: { $0 == "ABC" })
    ) { context in
        try await blocking { try runAsyncAfter(context) }
    }

    private static func runAsyncAfter(_ context: ScenarioContext) throws {
        let spacing = context.knob("spacing")
        let queue = DispatchQueue(label: "workbook.timers")
        let group = DispatchGroup()
        let lateness = Locked<[String: UInt64]>([:])
        let start = DispatchTime.now()
        let plan = [("C", 3), ("A", 1), ("B", 2)]  // submission order, and deadline in units of spacing
        context.trace.record(Localized("submit C, A, B", ja: "C, A, B を投入"))
        for (letter, units) in plan {
            let deadline = start + .milliseconds(units * spacing)
            group.enter()
            queue.asyncAfter(deadline: deadline) {
                let late = DispatchTime.now().uptimeNanoseconds &- deadline.uptimeNanoseconds
                context.emit(letter)
                lateness.withLock { $0[letter] = late }
                group.leave()
            }
        }
        try wait(for: group, seconds: Double(3 * spacing) / 1000 + 5,
                 Localized("the timers did not fire", ja: "タイマーが発火しませんでした"))

        let header = (Localized("block", ja: "ブロック").text(context.language), Localized("deadline", ja: "期限").text(context.language),
                      Localized("ran late by", ja: "遅れ").text(context.language))
        context.show("")
        context.show("  " + padded(header.0, to: 10) + padded(header.1, to: 10) + header.2)
        let late = lateness.current
        for (letter, units) in plan.sorted(by: { $0.1 < $1.1 }) {
            context.show("  " + padded(letter, to: 10) + padded("+\(units * spacing)ms", to: 10)
                         + formatDuration(nanoseconds: late[letter] ?? 0))
        }
    }
}
