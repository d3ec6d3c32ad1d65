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
}
