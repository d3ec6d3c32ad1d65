/// Draws a trace as swimlanes, one row per lane, time flowing left to right, then the events
/// as a numbered list: which thread or task did what, when.
///
/// ```
/// lane  0                                          1.2ms
/// main  *A-----------------------------------------*done
/// T1       [=========B=========]
/// ```
public struct Timeline: Sendable {
    public var terminal: Terminal
    /// At most this many events are listed under the lanes; the lanes always show all.
    public var maxListedEvents: Int
    /// What the horizontal axis counts: nanoseconds, or explorer steps (time = step number).
    public var axis: Axis = .time

    public enum Axis: Sendable { case time, steps }

    private func axisLabel(_ value: UInt64, _ language: Language) -> String {
        switch axis {
        case .time: formatDuration(nanoseconds: value)
        case .steps: Localized("step \(value)", ja: "ステップ \(value)").text(language)
        }
    }

    public init(terminal: Terminal, maxListedEvents: Int = 40) {
        self.terminal = terminal
        self.maxListedEvents = maxListedEvents
    }

    private var glyphs: (point: String, bar: String, open: String, close: String, idle: String) {
        terminal.usesUnicode ? ("●", "━", "┣", "┫", "·") : ("*", "=", "[", "]", ".")
    }

    public func render(_ events: [Trace.Event], language: Language = .en) -> String {
        guard let last = events.map(\.time).max() else {
            return Localized("(nothing was recorded)", ja: "（記録なし）").text(language)
        }
        let lanes = orderedLanes(events)
        let laneWidth = min(14, lanes.map(displayWidth).max() ?? 4)
        let width = max(20, terminal.width - laneWidth - 2)
        let first = events.map(\.time).min() ?? 0
        let span = max(1, last - first)
        func column(_ time: UInt64) -> Int { Int((Double(time - first) / Double(span)) * Double(width - 1)) }

        var rows: [String: [String]] = [:]  // one display cell each; "" follows a wide character
        for lane in lanes { rows[lane] = Array(repeating: glyphs.idle, count: width) }
        var labelsToPlace: [(lane: String, column: Int, text: String, isSpan: Bool)] = []
        var openSpans: [String: [Int]] = [:]  // "lane|label" -> begin columns

        for event in events {
            let c = column(event.time)
            switch event.kind {
            case .point:
                rows[event.lane]![c] = glyphs.point
                labelsToPlace.append((event.lane, c + 1, event.label, false))
            case .begin:
                openSpans["\(event.lane)|\(event.label)", default: []].append(c)
            case .end:
                let key = "\(event.lane)|\(event.label)"
                let start = openSpans[key]?.popLast() ?? c
                fillBar(&rows[event.lane]!, from: start, to: c)
                labelsToPlace.append((event.lane, start + 1, event.label, true))
            }
        }
        for (key, starts) in openSpans {  // spans that never ended run to the right edge
            let lane = String(key.split(separator: "|", maxSplits: 1)[0])
            let label = String(key.split(separator: "|", maxSplits: 1)[1])
            for start in starts {
                fillBar(&rows[lane]!, from: start, to: width - 1, closed: false)
                labelsToPlace.append((lane, start + 1, label, true))
            }
        }
        // Span labels first: a bar says what is running; points fill the room that is left.
        for placement in labelsToPlace.filter(\.isSpan) + labelsToPlace.filter({ !$0.isSpan }) {
            place(placement.text, at: placement.column, in: &rows[placement.lane]!)
        }

        var lines: [String] = []
        let startText = axis == .time ? "0" : axisLabel(first, language)
        let endText = axis == .time ? formatDuration(nanoseconds: span) : axisLabel(last, language)
        let gap = max(1, width - startText.count - endText.count)
        lines.append(terminal.paint(padded("", to: laneWidth) + "  " + startText + String(repeating: " ", count: gap) + endText, .dim))
        for lane in lanes {
            let name = String(lane.prefix(laneWidth))
            lines.append(terminal.paint(padded(name, to: laneWidth), .cyan) + "  " + rows[lane]!.joined())
        }
        lines.append("")
        let listed = events.prefix(maxListedEvents)
        let timeWidth = max(9, (listed.map { displayWidth(axis == .time ? "" : axisLabel($0.time, language)) }.max() ?? 0) + 1)
        for event in listed {
            let marker: String
            switch event.kind {
            case .point: marker = ""
            case .begin: marker = terminal.usesUnicode ? "▶ " : "> "
            case .end: marker = terminal.usesUnicode ? "◀ " : "< "
            }
            let number = padded("\(event.sequence + 1)", to: 4)
            let time = padded(axis == .time ? formatDuration(nanoseconds: event.time - first) : axisLabel(event.time, language), to: timeWidth)
            lines.append("  \(number)\(time)\(padded(String(event.lane.prefix(laneWidth)), to: laneWidth))  \(marker)\(event.label)")
        }
        if events.count > listed.count {
            let more = events.count - listed.count
            lines.append(Localized("  … \(more) more events", ja: "  … ほか \(more) 件").text(language))
        }
        return lines.joined(separator: "\n")
    }

    private func orderedLanes(_ events: [Trace.Event]) -> [String] {
        var seen: [String] = []
        for event in events where !seen.contains(event.lane) { seen.append(event.lane) }
        // main first, then in order of first appearance
        return seen.filter { $0 == "main" } + seen.filter { $0 != "main" }
    }

    private func fillBar(_ row: inout [String], from start: Int, to end: Int, closed: Bool = true) {
        let lower = min(start, end), upper = max(start, end)
        for i in lower...upper { row[i] = glyphs.bar }
        row[lower] = glyphs.open
        if closed && upper > lower { row[upper] = glyphs.close }
    }

    /// Writes a label over idle or bar cells only, so markers are never hidden. Wide characters
    /// take two cells; a label that does not fit is cut.
    private func place(_ text: String, at column: Int, in row: inout [String]) {
        var c = column
        for character in text {
            let cells = displayWidth(String(character))
            guard cells > 0, c + cells <= row.count else { return }
            guard (c..<(c + cells)).allSatisfy({ row[$0] == glyphs.idle || row[$0] == glyphs.bar }) else { return }
            row[c] = String(character)
            if cells == 2 { row[c + 1] = "" }
            c += cells
        }
    }
}
