import Testing
@testable import WorkbookCore

@Suite("Timeline", .workbookSelfTest)
struct TimelineTests {
    func events(_ list: [(UInt64, String, String, Trace.Kind)]) -> [Trace.Event] {
        list.enumerated().map { Trace.Event(sequence: $0.offset, time: $0.element.0, lane: $0.element.1, label: $0.element.2, kind: $0.element.3) }
    }

    @Test("draws one row per lane, main first, then by first appearance")
    func lanesInOrder() {
        let text = Timeline(terminal: .plain).render(events([(0, "T2", "a", .point), (10, "main", "b", .point), (20, "T1", "c", .point)]))
        let rows = text.split(separator: "\n").map(String.init)
        #expect(rows[1].hasPrefix("main"))
        #expect(rows[2].hasPrefix("T2"))
        #expect(rows[3].hasPrefix("T1"))
    }

    @Test("draws a span as a bar with its label, in ASCII on a plain terminal")
    func spanAsBar() {
        let text = Timeline(terminal: .plain).render(events([(0, "T1", "work", .begin), (1_000_000, "T1", "work", .end)]))
        let row = text.split(separator: "\n")[1]
        #expect(row.contains("[work"))
        #expect(row.hasSuffix("]"))
        #expect(!text.contains("━"))
    }

    @Test("uses Unicode box drawing when the terminal can show it")
    func unicode() {
        let terminal = Terminal(usesColor: false, usesUnicode: true, width: 80)
        let text = Timeline(terminal: terminal).render(events([(0, "T1", "x", .begin), (5, "T1", "x", .end)]))
        #expect(text.contains("┣"))
    }

    @Test("fits the terminal width", arguments: [40, 80, 132])
    func fitsWidth(width: Int) {
        let terminal = Terminal(usesColor: false, usesUnicode: true, width: width)
        let text = Timeline(terminal: terminal).render(events([(0, "a-very-long-lane-name", "start", .begin), (900, "T1", "日本語のラベル", .point), (1000, "a-very-long-lane-name", "start", .end)]))
        let lanes = text.split(separator: "\n").prefix(3)
        for line in lanes { #expect(displayWidth(String(line)) <= width, "\(line)") }
    }

    @Test("lists the events with their lane and label, and says how many were left out")
    func listsEvents() {
        let many = (0..<50).map { (UInt64($0), "T1", "e\($0)", Trace.Kind.point) }
        let text = Timeline(terminal: .plain, maxListedEvents: 10).render(events(many))
        #expect(text.contains("T1  e0"))
        #expect(!text.contains("e10\n"))
        #expect(text.contains("40 more events"))
    }

    @Test("a label with no room becomes a one-letter marker explained under the lanes, never a fragment")
    func legendInsteadOfFragments() {
        let terminal = Terminal(usesColor: false, usesUnicode: true, width: 40)
        var list: [(UInt64, String, String, Trace.Kind)] = []
        for i in 0..<6 {
            let label = "a long label \(i)"
            list.append((UInt64(i * 10), "T1", label, .begin))
            list.append((UInt64(i * 10 + 9), "T1", label, .end))
        }
        let text = Timeline(terminal: terminal).render(events(list))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = lines[1]
        #expect(row.filter { $0 == "┣" }.count == 6)
        #expect(row.filter { $0 == "┫" }.count == 6)
        let runs = row.dropFirst(4).split(whereSeparator: { "┣┫━·".contains($0) }).map(String.init)
        #expect(runs.count == 6)
        for run in runs {
            let whole = run.hasPrefix("a long label ") && run.count == 14
            let marker = run.count == 1 && lines.contains { $0.contains("\(run) = a long label ") }
            #expect(whole || marker, "\"\(run)\" is neither a whole label nor an explained marker:\n\(text)")
        }
        for line in lines { #expect(displayWidth(line) <= 40, "\(line)") }
    }

    @Test("instants at the same moment on one lane, or where a span starts, all keep a mark")
    func noMarkHidden() {
        let text = Timeline(terminal: .plain).render(events([
            (0, "T1", "x", .point), (0, "T1", "y", .point), (0, "T1", "held", .begin), (5, "T1", "z", .point), (5, "T1", "held", .end),
        ]))
        let row = String(text.split(separator: "\n")[1])
        #expect(row.filter { $0 == "*" }.count == 3, "\(row)")
        #expect(row.contains("[") && row.contains("]"), "\(row)")
        for label in ["x", "y", "z"] { #expect(row.contains("*\(label)"), "\(row)") }
    }

    @Test("an event drawn left of another never happened after it, on any lane")
    func orderAcrossLanes() {
        let text = Timeline(terminal: .plain).render(events([
            (0, "T1", "first", .point), (1, "T2", "second", .point), (2, "T1", "third", .point),
        ]))
        let rows = text.split(separator: "\n").map(String.init)
        let first = rows[1].range(of: "*first")!.lowerBound.utf16Offset(in: rows[1])
        let second = rows[2].range(of: "*second")!.lowerBound.utf16Offset(in: rows[2])
        let third = rows[1].range(of: "*third")!.lowerBound.utf16Offset(in: rows[1])
        #expect(first <= second && second <= third)
    }

    @Test("a localized label is drawn in the language asked for; queries match its English")
    func localizedLabels() {
        let trace = Trace()
        trace.record(Localized("start", ja: "開始"), lane: "T1")
        trace.span(Localized("work", ja: "作業"), lane: "T1") {}
        #expect(trace.pointLabels == ["start"])
        #expect(trace.sequence(of: .begin, "work") == 1)
        let ja = Timeline(terminal: .plain).render(trace.events, language: .ja)
        #expect(ja.contains("開始") && ja.contains("作業") && !ja.contains("start"))
        let en = Timeline(terminal: .plain).render(trace.events, language: .en)
        #expect(en.contains("start") && !en.contains("開始"))
    }

    @Test("the list under the lanes wraps long labels within the width")
    func listWraps() {
        let long = String(repeating: "word ", count: 30)
        let text = Timeline(terminal: .plain).render(events([(0, "T1", long, .point), (10, "T1", "end", .point)]))
        for line in text.split(separator: "\n") { #expect(displayWidth(String(line)) <= 80, "\(line)") }
        #expect(text.contains("word word"))
    }

    @Test("a long trace with a label per event still fits, keeps every mark it can, and says when marks share a cell")
    func longTrace() {
        var list: [(UInt64, String, String, Trace.Kind)] = []
        for i in 0..<600 {
            let lane = "T\(i % 3 + 1)", label = "call \(i)"
            list.append((UInt64(i * 10), lane, label, .begin))
            list.append((UInt64(i * 10 + 5), lane, label, .end))
        }
        let clock = ContinuousClock()
        var text = ""
        let took = clock.measure { text = Timeline(terminal: .plain).render(events(list)) }
        #expect(took < .seconds(10), "rendering took \(took)")
        for line in text.split(separator: "\n") { #expect(displayWidth(String(line)) <= 80, "\(line)") }
        #expect(text.contains("share a cell"))
        #expect(text.contains("? = "))
    }

    @Test("says so when nothing was recorded, in both languages")
    func empty() {
        #expect(Timeline(terminal: .plain).render([], language: .en).contains("nothing"))
        #expect(Timeline(terminal: .plain).render([], language: .ja).contains("記録なし"))
    }
}

@Suite("Trace", .workbookSelfTest)
struct TraceTests {
    @Test("names threads main, T1, T2 in order of first appearance")
    func laneNames() async {
        let trace = Trace()
        let first = await Task.detached { trace.currentThreadLane() }.value
        #expect(first.hasPrefix("T") || first == "main")
        trace.record("x", lane: "custom")
        #expect(trace.events.last?.lane == "custom")
    }

    @Test("keeps events in the order they were recorded, with non-decreasing times")
    func ordered() {
        let trace = Trace()
        for i in 0..<100 { trace.record("\(i)") }
        let events = trace.events
        #expect(events.map(\.label) == (0..<100).map(String.init))
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("records a span as begin and end around the body")
    func span() {
        let trace = Trace()
        let value = trace.span("work", lane: "L") { 42 }
        #expect(value == 42)
        #expect(trace.events.map(\.kind) == [.begin, .end])
    }

    @Test("a lane named in words is drawn in the learner's language; queries see its English")
    func localizedLane() {
        let trace = Trace()
        let worker = Localized("worker", ja: "ワーカー")
        trace.span(.verbatim("process(1)"), lane: worker) {}
        trace.record(Localized("publish", ja: "公開"), lane: Localized("publisher", ja: "パブリッシャー"))
        trace.record("x", lane: "T1")
        #expect(trace.events.map(\.lane) == ["worker", "worker", "publisher", "T1"])
        #expect(trace.events.first?.lane(in: .ja) == "ワーカー")
        let terminal = Terminal(usesColor: false, usesUnicode: true, width: 80)
        let ja = Timeline(terminal: terminal).render(trace.events, language: .ja)
        let rows = ja.split(separator: "\n").map(String.init)
        #expect(rows[1].hasPrefix("ワーカー  "), "\(ja)")
        #expect(rows[2].hasPrefix("パブリッシャー"), "\(ja)")
        #expect(!ja.contains("worker") && !ja.contains("publisher"))
        #expect(ja.contains("  ワーカー        ▶ process(1)"), "\(ja)")
        let en = Timeline(terminal: terminal).render(trace.events, language: .en)
        #expect(en.split(separator: "\n")[1].hasPrefix("worker  "))
    }
}
