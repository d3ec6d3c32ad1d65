import WorkbookCore
import WorkbookExplorer

extension Chapter04 {
    /// The photos of scenario 5 in input order (the order a screen shows them), with how long
    /// each one's download takes.
    static let orderPhotos: [(id: String, milliseconds: Int)] = [("p4", 50), ("p1", 10), ("p5", 40), ("p2", 20), ("p3", 30)]

    /// Three children A, B, C that each download for the same 20 ms and return their index with
    /// their name; the parent collects the results twice. Returns `appended=… indexed=…`.
    /// The download sleeps on an `ExplorerClock`: under the explorer its end is a timer that the
    /// schedule (or the player) fires, in real runs it is a plain sleep.
    ///
    /// The wrong way, when the order matters: `appended.append(result)` — results come out of a
    /// group in the order the children finish. The right way: each child carries its index and
    /// the parent stores the result there. (Sorting afterwards is no fix: it restores an order,
    /// not necessarily the one you started with.)
    @Sendable static func collectThree() async throws -> String {
        let names = ["A", "B", "C"]
        let clock = ExplorerClock()
        nameNextTasks("A", "B", "C")
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, name) in names.enumerated() {
                group.addTask {
                    nameTask(name)
                    checkpoint("\(name): download(\"\(name)\")")
                    try await clock.sleep(for: .milliseconds(20))
                    checkpoint("\(name): → (\(index), \"\(name)\")")
                    return (index, name)
                }
            }
            var appended = ""
            var indexed = [String](repeating: "?", count: names.count)
            for try await (index, name) in group {
                appended += name
                indexed[index] = name
                checkpoint("next() → (\(index), \"\(name)\")")
            }
            return "appended=\(appended) indexed=\(indexed.joined())"
        }
    }

    /// Input order kept by both arrays: acceptable. The appended array in any other order is the
    /// naive code's bug showing; the indexed one out of order would be a bug in the right way.
    static func classifyCollected(_ outcome: String) -> OutcomeTally.Verdict {
        outcome == "appended=ABC indexed=ABC" ? .acceptable : .forbidden
    }

    static let completionOrderExplanation = Localized(
        """
        Results come out of a task group in the order the children finish, not the order they were added. \
        `appended` followed the arrivals; `indexed` put each result at the index its child carried, so it stayed ABC. \
        Sorting would not rescue `appended` in general: it gives a sorted order, which is the input order only by luck.
        """,
        ja: """
        タスクグループの結果は、子を追加した順ではなく、子が終わった順に出てきます。\
        `appended` は届いた順に並び、`indexed` は子が持っていたインデックスの位置に結果を置いたので、ABC のままでした。\
        `appended` を並べ替えても一般には救えません。並べ替えて得られるのはソート順で、入力の順と一致するのはたまたまです。
        """)

    /// Game 1: you choose which child's download finishes first.
    static let completionOrderGame = Game(
        slug: "completion-order",
        title: Localized("Completion order: reverse the arrivals, keep the input order", ja: "完了順: 届く順を逆にし、入力の順は保つ"),
        narration: Localized(
            """
            A task group starts children A, B and C, in that order; each downloads for the same 20 ms and returns its index with its name. \
            The parent collects every result twice: `appended` in the order they arrive, `indexed` at the index the child carried. \
            The screen needs the input order, ABC. Each child's download is a timer; when several are due together, you pick which fires first. \
            Can you make the results arrive as C, B, A — while `indexed` stays ABC?
            """,
            ja: """
            タスクグループが子 A、B、C をこの順に始めます。どれも 20 ms かけてダウンロードし、自分のインデックスと名前を返します。\
            親はそれぞれの結果を 2 通りに集めます。`appended` は届いた順に、`indexed` は子が持っていたインデックスの位置に。\
            画面に必要なのは入力の順 ABC です。子のダウンロードはタイマーで、同時に満了したときはどれを先に発火させるかをあなたが選びます。\
            結果が C、B、A の順に届くようにできますか？ そのとき `indexed` は ABC のままでしょうか？
            """),
        explanation: completionOrderExplanation,
        classify: classifyCollected,
        body: collectThree)

    /// Scenario 5: task-group results arrive in completion order; collect them by index.
    static let taskGroupOrder = Scenario(
        slug: "task-group-order",
        title: Localized("Task group results arrive in completion order (then: play 1)", ja: "タスクグループの結果は終わった順に届く（続けて: play 1）"),
        narration: Localized(
            """
            Five photos, in the order the screen shows them: p4 p1 p5 p2 p3. A task group downloads them all at once; \
            their downloads take 50, 10, 40, 20 and 30 ms. `for try await` hands the parent each result when its child finishes, \
            so the results arrive in completion order, not in the order the children were added. \
            The parent collects them three ways: appending in arrival order (wrong if the order matters), sorting that (an order, but not the input's), \
            and storing each at the index its child carried, `[(index, value)]` into an array (right). \
            Then the explorer runs a group of three children A, B, C that take the same time, under `schedules` seeded random schedules, \
            and tallies the arrival orders: every order can happen, and the indexed array is ABC in all of them. \
            Then type `play 1` and choose the order yourself.
            """,
            ja: """
            画面に表示する順に並んだ 5 枚の写真 p4 p1 p5 p2 p3 を、タスクグループで一度にダウンロードします。\
            ダウンロードにかかる時間はそれぞれ 50、10、40、20、30 ms です。`for try await` は子が終わるたびにその結果を親に渡すので、\
            結果は子を追加した順ではなく、終わった順に届きます。\
            親は 3 通りに集めます。届いた順に追加する（順番が大事なら誤り）、それを並べ替える（ある順にはなるが入力の順ではない）、\
            子が持っていたインデックスの位置に置く、つまり `[(index, value)]` を配列に入れる（正しい）。\
            続いてエクスプローラが、同じ時間がかかる 3 つの子 A、B、C のグループを、シード付きのランダムなスケジュールで `schedules` 回実行し、\
            届いた順を集計します。どの順番も起こり得て、インデックスで集めた配列はどれでも ABC です。\
            続けて `play 1` で、順番を自分で選んでみましょう。
            """),
        knobs: [
            .init("schedules", default: 300, range: 1...20_000, help: Localized("how many schedules the explorer runs", ja: "エクスプローラが実行するスケジュール数")),
        ]
    ) { context in
        try await collectFivePhotos(context)
        let schedules = context.knob("schedules"), seed = context.seed
        let result = await onDedicatedThread {
            Explorer.explore(.random(seed: seed), budget: .init(maxSchedules: schedules, maxSeconds: 10), collectThree)
        }
        var tally = OutcomeTally(classify: classifyCollected)
        for (outcome, count) in result.outcomes { for _ in 0..<count { tally.record(outcome) } }
        let orders = Set(result.outcomes.map { $0.outcome.split(separator: " ").first.map(String.init) ?? "" })
        let indexedAlwaysABC = result.outcomes.allSatisfy { $0.outcome.hasSuffix("indexed=ABC") }
        context.note("explored arrival orders", String(orders.count))
        context.note("indexed always ABC", String(indexedAlwaysABC))
        context.say(Localized(
            "The explorer: children A, B, C of one group, \(result.schedulesRun) schedules (seed \(seed)); FORBIDDEN marks the appended array out of input order:",
            ja: "エクスプローラ: 1 つのグループの子 A、B、C を \(result.schedulesRun) 個のスケジュールで実行（シード \(seed)）。「禁止」は `appended` が入力の順になっていないもの:"))
        context.show(tally.render(terminal: context.terminal, language: context.language))
        context.say(Localized(
            "  \(orders.count) of the 6 possible arrival orders happened; the indexed array was \(indexedAlwaysABC ? "ABC in every one" : "NOT always ABC").",
            ja: "  起こり得る 6 通りの届く順のうち \(orders.count) 通りが起こりました。インデックスで集めた配列は\(indexedAlwaysABC ? "どれでも ABC でした" : "ABC でないことがありました")。"))
        if !result.uncontrolled.isEmpty || result.sharedState != nil {
            context.say(Localized("  (The exploration was not fully under control: \(result.uncontrolled.joined(separator: "; ")) \(result.sharedState ?? ""))",
                                  ja: "  （探索が完全には制御できませんでした: \(result.uncontrolled.joined(separator: "; ")) \(result.sharedState ?? "")）"))
        }
    }

    /// The real run: five photos with different download times, collected three ways.
    private static func collectFivePhotos(_ context: ScenarioContext) async throws {
        let parent = Localized("parent", ja: "親タスク")
        let (arrived, indexed) = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, photo) in orderPhotos.enumerated() {
                group.addTask {
                    let label = Localized.verbatim("download(\(photo.id))"), lane = Localized.verbatim(photo.id)
                    context.trace.begin(label, lane: lane)
                    try await Task.sleep(for: .milliseconds(photo.milliseconds))  // simulated latency
                    context.trace.end(label, lane: lane)
                    return (index, photo.id)
                }
            }
            var arrived: [String] = []
            var indexed = [String?](repeating: nil, count: orderPhotos.count)
            for try await (index, id) in group {
                arrived.append(id)          // the wrong way, when the order matters
                indexed[index] = id         // the right way
                context.trace.record(.verbatim("next() → \(id)"), lane: parent)
            }
            return (arrived, indexed.compactMap { $0 })
        }
        let input = orderPhotos.map(\.id)
        context.note("input", input.joined(separator: " "))
        context.note("arrived", arrived.joined(separator: " "))
        context.note("sorted", arrived.sorted().joined(separator: " "))
        context.note("indexed", indexed.joined(separator: " "))
        let widths = [26, 16]
        let rows: [(Localized, [String], Localized)] = [
            (Localized("input order", ja: "入力の順"), input, Localized("what the screen shows", ja: "画面に表示する順")),
            (Localized("appended as they arrive", ja: "届いた順に追加"), arrived, Localized("completion order", ja: "終わった順")),
            (Localized("appended, then sorted()", ja: "追加して sorted()"), arrived.sorted(),
             arrived.sorted() == input ? Localized("the input order, by luck", ja: "たまたま入力の順") : Localized("an order, not the input's", ja: "ある順だが入力の順ではない")),
            (Localized("stored at its index", ja: "インデックスの位置に格納"), indexed,
             indexed == input ? Localized("the input order", ja: "入力の順") : Localized("NOT the input order", ja: "入力の順ではない")),
        ]
        for (name, ids, comment) in rows {
            context.show(tableRow([context.text(name), ids.joined(separator: " "), context.text(comment)], widths: widths))
        }
    }
}
