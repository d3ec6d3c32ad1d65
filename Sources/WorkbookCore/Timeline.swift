/// Draws a trace as swimlanes, one row per lane, time flowing left to right, then the events
/// as a numbered list: which thread or task did what, when.
///
/// ```
/// lane  0                                          1.2ms
/// main  ●A━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━●done
/// T1       ┣B━━━━━━━━━━━━━━━━━━━┫···┣a━┫
///   a = a label too long for its span
/// ```
///
/// The rules, whatever the trace:
/// - Every event gets a mark of its own: `●` for an instant, `┣` and `┫` for the ends of a span.
///   Marks on one lane never share a cell, and an event drawn left of another never happened
///   after it (events are placed in the order they were recorded, on every lane at once).
/// - Every named event gets its whole label right after its mark (inside the bar, for a span),
///   or, where the label does not fit, a one-letter marker there and the label in the legend
///   under the lanes. A label is never cut.
/// - Time is to scale where it can be: crowded moments are widened only as much as their marks
///   and labels need. When keeping every label would squeeze the time scale below
///   `minimumTimeScale`, the labels that take the most room become markers instead.
/// - No line is wider than the terminal.
public struct Timeline: Sendable {
    public var terminal: Terminal
    /// At most this many events are listed under the lanes; the lanes always show all.
    public var maxListedEvents: Int
    /// What the horizontal axis counts: nanoseconds, or explorer steps (time = step number).
    public var axis: Axis = .time
    /// How much of the width must stay proportional to time (0…1) before labels give way to
    /// legend markers, measured against the scale one-letter markers alone allow.
    public var minimumTimeScale = 0.6
    /// Empty cells kept after a label or marker before the next mark on its lane (a picture
    /// wants room to breathe; a terminal has none to spare).
    var labelGap = 0

    public enum Axis: Sendable { case time, steps }

    /// Lane names longer than this many cells are shortened, with "…": a third of the terminal,
    /// between 14 and 28 cells. A report's timeline (78 columns in an 80-column terminal) has 26:
    /// `タイマー（A のユーザー）`, `クライアント（MainActor）` and `caller on MainActor` fit whole,
    /// and the lanes keep 50 cells. The column is only as wide as the longest name needs.
    var maxLaneWidth: Int { max(14, min(28, terminal.width / 3)) }

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
        guard !events.isEmpty else {
            return Self.nothingRecorded.text(language)
        }
        let drawing = drawing(events, language: language)
        let (width, columns) = (drawing.width, drawing.columns)

        // The lanes: bars first, then the marks on top, then the labels and markers beside them.
        var rows: [String: [String]] = [:]  // one display cell each; "" follows a wide character
        for lane in drawing.lanes { rows[lane] = Array(repeating: glyphs.idle, count: width) }
        for (index, mark) in drawing.marks.enumerated() where mark.kind == .open {
            for column in columns[index]...drawing.spanEnd(index) { rows[mark.lane]![column] = glyphs.bar }
        }
        for (index, mark) in drawing.marks.enumerated() {
            let glyph: String = switch mark.kind {
            case .point: glyphs.point
            case .open: glyphs.open
            case .close, .closeAlone: glyphs.close
            }
            rows[mark.lane]![columns[index]] = glyph
        }
        for (index, mark) in drawing.marks.enumerated() {
            if let text = drawing.texts[index] { write(text, at: columns[index] + 1, in: &rows[mark.lane]!) }
        }

        var lines: [String] = []
        let gap = max(1, width - displayWidth(drawing.startText) - displayWidth(drawing.endText))
        lines.append(terminal.paint(padded("", to: drawing.laneWidth) + "  " + drawing.startText + String(repeating: " ", count: gap) + drawing.endText, .dim))
        for lane in drawing.lanes {
            lines.append(terminal.paint(padded(drawing.laneNames[lane]!, to: drawing.laneWidth), .cyan) + "  " + rows[lane]!.joined())
        }
        var entries = drawing.legend.map { "\($0.marker) = \($0.label)" }
        if drawing.unlettered {
            entries.append(Localized("? = one of the other labels (see the list below)", ja: "? = ほかのラベルのどれか（下の一覧を参照）").text(language))
        }
        lines += Self.packed(entries, width: terminal.width)
        if drawing.crowded {
            lines += wrap(Localized(
                "(more events than this width can show apart: some marks share a cell; see the list below)",
                ja: "（この幅では離して描けないほどイベントが多いため、同じ位置に重なった印があります。下の一覧を見てください）").text(language),
                prefix: "  ", width: terminal.width)
        }
        lines.append("")
        lines += listLines(drawing.events, laneWidth: drawing.laneWidth, first: drawing.first, language: language)
        return lines.joined(separator: "\n")
    }

    /// What is drawn for an empty trace.
    static let nothingRecorded = Localized("(nothing was recorded)", ja: "（記録なし）")

    // MARK: Drawing

    /// A trace laid out once, for every renderer: where each mark goes on a grid of cells, and
    /// what is written beside it.
    struct Drawing {
        struct LegendEntry: Equatable {
            let marker: String
            let label: String
        }

        /// The events in the order they were recorded.
        let events: [Trace.Event]
        /// Lanes by English name: main first, then in order of first appearance.
        let lanes: [String]
        /// Each lane's name as drawn: in the learner's language, at most `laneWidth` cells.
        let laneNames: [String: String]
        /// Cells for the lane names.
        let laneWidth: Int
        /// Cells of the lane area, right of the names and two cells of space.
        let width: Int
        let marks: [Mark]
        /// The cell of each mark.
        let columns: [Int]
        /// What is written from the cell right after each mark: its label or its legend marker.
        /// Nil for a span's end, and where a crowded drawing has no room.
        let texts: [String?]
        /// The labels drawn as markers, in order of first use (those with a letter).
        let legend: [LegendEntry]
        /// More labels than letters: the rest share the marker "?".
        let unlettered: Bool
        /// Even markers alone could not keep the marks apart: some share a cell.
        let crowded: Bool
        let first: UInt64
        /// The ends of the axis: "0" and the duration, or the first and last step.
        let startText: String
        let endText: String

        /// The last cell of the bar of the span that mark `index` opens: its end's, or the last
        /// cell of the lane area for a span that never ended.
        func spanEnd(_ index: Int) -> Int {
            max(columns[index], marks[index].partner.map { columns[$0] } ?? width - 1)
        }
    }

    /// Lays out non-empty `events` for this terminal's width.
    func drawing(_ events: [Trace.Event], language: Language) -> Drawing {
        let events = events.sorted { $0.sequence < $1.sequence }
        let lanes = orderedLanes(events)
        // Lanes are told apart by their English name; each is drawn in the learner's language.
        var laneNames: [String: String] = [:]
        for event in events where laneNames[event.lane] == nil { laneNames[event.lane] = event.lane(in: language) }
        let laneWidth = min(maxLaneWidth, lanes.map { displayWidth(laneNames[$0] ?? $0) }.max() ?? 4)
        for (lane, name) in laneNames { laneNames[lane] = shortened(name, to: laneWidth) }
        let width = max(20, terminal.width - laneWidth - 2)
        let first = events.map(\.time).min() ?? 0
        let last = events.map(\.time).max() ?? 0

        let marks = Self.marks(events, language)
        let layout = Layout.fit(marks, width: width, first: first, span: max(1, last - first), minimumScale: minimumTimeScale, gap: labelGap)
        let markers = Self.markers(for: marks, labelled: layout.labelled, avoiding: Set(marks.map(\.text)))

        // Each text goes after its mark where its cells hold no mark and no earlier text: all of
        // it or nothing (the layout leaves room, so nothing is only possible when crowded).
        var taken: [String: Set<Int>] = [:]
        for (index, mark) in marks.enumerated() { taken[mark.lane, default: []].insert(layout.columns[index]) }
        var texts = [String?](repeating: nil, count: marks.count)
        for (index, mark) in marks.enumerated() where !mark.text.isEmpty {
            let text = layout.labelled.contains(mark.text) ? mark.text : markers[mark.text] ?? "?"
            let cells = (layout.columns[index] + 1)..<(layout.columns[index] + 1 + Self.cells(text))
            guard cells.upperBound <= width, taken[mark.lane]!.isDisjoint(with: cells) else { continue }
            taken[mark.lane]!.formUnion(cells)
            texts[index] = text
        }

        var legend: [Drawing.LegendEntry] = []
        var seen: Set<String> = []
        var unlettered = false
        for mark in marks where !mark.text.isEmpty && !layout.labelled.contains(mark.text) && seen.insert(mark.text).inserted {
            if let marker = markers[mark.text], marker != "?" {
                legend.append(.init(marker: marker, label: mark.text))
            } else {
                unlettered = true
            }
        }
        return Drawing(
            events: events, lanes: lanes, laneNames: laneNames, laneWidth: laneWidth, width: width,
            marks: marks, columns: layout.columns, texts: texts, legend: legend, unlettered: unlettered,
            crowded: layout.crowded, first: first,
            startText: axis == .time ? "0" : axisLabel(first, language),
            endText: axis == .time ? formatDuration(nanoseconds: last - first) : axisLabel(last, language))
    }

    /// The cells `text` takes on the grid, character by character (a wide one takes two).
    static func cells(_ text: String) -> Int {
        text.reduce(0) { $0 + displayWidth(String($1)) }
    }

    /// Legend entries packed into lines of at most `width` cells, each indented two cells and
    /// three cells apart; an entry wider than a line is wrapped.
    static func packed(_ entries: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for entry in entries {
            let candidate = line.isEmpty ? "  " + entry : line + "   " + entry
            if displayWidth(candidate) <= width || line.isEmpty {
                line = candidate
            } else {
                lines.append(line)
                line = "  " + entry
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.flatMap { displayWidth($0) <= width ? [$0] : wrap(String($0.dropFirst(2)), prefix: "  ", width: width) }
    }

    // MARK: Marks

    /// One event as drawn: an instant, or one end of a span.
    struct Mark {
        enum Kind { case point, open, close, closeAlone }
        let kind: Kind
        let lane: String
        let time: UInt64
        /// What is written beside the mark: the label, in the learner's language. A span's end
        /// has none (its label is at its start).
        let text: String
        /// For `open`, the index of its `close` (nil: the span never ended and runs to the edge);
        /// for `close`, the index of its `open`.
        var partner: Int?
    }

    static func marks(_ events: [Trace.Event], _ language: Language) -> [Mark] {
        var marks: [Mark] = []
        var open: [String: [Int]] = [:]  // "lane|English label" -> indices of opens not yet closed
        for event in events {
            let key = "\(event.lane)|\(event.label)"
            switch event.kind {
            case .point:
                marks.append(Mark(kind: .point, lane: event.lane, time: event.time, text: event.label(in: language)))
            case .begin:
                open[key, default: []].append(marks.count)
                marks.append(Mark(kind: .open, lane: event.lane, time: event.time, text: event.label(in: language)))
            case .end:
                if let start = open[key]?.popLast() {
                    marks[start].partner = marks.count
                    marks.append(Mark(kind: .close, lane: event.lane, time: event.time, text: "", partner: start))
                } else {  // an end whose start is not in this trace (a window of a longer one)
                    marks.append(Mark(kind: .closeAlone, lane: event.lane, time: event.time, text: event.label(in: language)))
                }
            }
        }
        return marks
    }

    /// Where each mark goes, and which labels are written out (the others get legend markers).
    struct Layout {
        var columns: [Int]
        var labelled: Set<String>
        /// True when even one-letter markers and no regard for time could not keep marks apart.
        var crowded = false

        static func fit(_ marks: [Mark], width: Int, first: UInt64, span: UInt64, minimumScale: Double, gap: Int = 0) -> Layout {
            let fractions = marks.map { Double($0.time - first) / Double(span) }
            var labelled = Set(marks.map(\.text).filter { !$0.isEmpty })

            /// Columns at `scale` (the share of the width kept proportional to time), or nil if
            /// the marks and their labels do not fit.
            func columns(_ scale: Double, clamped: Bool = false) -> [Int]? {
                var columns = [Int](repeating: 0, count: marks.count)
                var previous = 0
                var next: [String: Int] = [:]  // per lane: the first column free for a mark
                for (index, mark) in marks.enumerated() {
                    var column = max(Int(fractions[index] * Double(width - 1) * scale), previous, next[mark.lane, default: 0])
                    if column > width - 1 {
                        guard clamped else { return nil }
                        column = width - 1
                    }
                    columns[index] = column
                    previous = column
                    let room = mark.text.isEmpty ? 0 : labelled.contains(mark.text) ? displayWidth(mark.text) : 1
                    let end = column + 1 + (mark.kind == .close ? 0 : room)  // past the mark and its text
                    if end > width && !clamped { return nil }
                    next[mark.lane] = end + (room > 0 ? gap : 0)
                }
                return columns
            }
            /// The largest scale that fits, if any does.
            func bestScale() -> Double? {
                if columns(1) != nil { return 1 }
                guard columns(0) != nil else { return nil }
                var fits = 0.0, fails = 1.0
                for _ in 0..<20 {
                    let middle = (fits + fails) / 2
                    if columns(middle) != nil { fits = middle } else { fails = middle }
                }
                return fits
            }

            // Labels that would save room as markers (all events that share a label share its
            // marker). How far time may be squeezed is measured against the best scale markers
            // alone allow: a crowded trace cannot be drawn to scale whatever the labels do.
            var candidates: [String] = []
            var seen: Set<String> = []
            for mark in marks where !mark.text.isEmpty && displayWidth(mark.text) > 1 && seen.insert(mark.text).inserted {
                candidates.append(mark.text)
            }
            let all = labelled
            labelled.subtract(candidates)
            let floor = bestScale()
            guard let floor else {
                return Layout(columns: columns(0, clamped: true)!, labelled: labelled, crowded: true)
            }
            // A long trace (a whole failing check) is drawn with markers only: choosing labels
            // one by one would take too long, and its lanes have no room for words anyway.
            if marks.count > 400 { return Layout(columns: columns(floor)!, labelled: labelled) }
            labelled = all
            while true {
                let scale = bestScale()
                if let scale, scale >= minimumScale * floor || candidates.isEmpty {
                    return Layout(columns: columns(scale)!, labelled: labelled)
                }
                // Give up the label whose marker gains the most scale (with many labels, simply
                // the one that takes the most room).
                let counts = Dictionary(marks.map { ($0.text, 1) }, uniquingKeysWith: +)
                let costs = candidates.map { counts[$0, default: 0] * (displayWidth($0) - 1) }
                var gains = [Double](repeating: 0, count: candidates.count)
                if candidates.count * marks.count <= 20_000 {
                    for (index, candidate) in candidates.enumerated() {
                        labelled.remove(candidate)
                        gains[index] = bestScale() ?? -1
                        labelled.insert(candidate)
                    }
                }
                let pick = candidates.indices.max { (gains[$0], costs[$0]) < (gains[$1], costs[$1]) } ?? 0
                labelled.remove(candidates.remove(at: pick))
            }
        }
    }

    /// A one-letter marker for every label that is not written out, in order of first use.
    /// Letters that start a word of some label are skipped: beside spans `a1`, `a2`, a marker
    /// `a` would read as a name.
    static func markers(for marks: [Mark], labelled: Set<String>, avoiding labels: Set<String>) -> [String: String] {
        var taken: Set<Character> = []
        for label in labels {
            var previous: Character = " "
            for character in label {
                if character.isASCII && character.isLetter && !(previous.isASCII && (previous.isLetter || previous.isNumber)) {
                    taken.insert(character)
                }
                previous = character
            }
        }
        let letters = Array("abcdefghijklmnopqrstuvwxyz") + Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var free = (letters.filter { !taken.contains($0) } + letters.filter { taken.contains($0) }).map(String.init).filter { !labels.contains($0) }[...]
        var markers: [String: String] = [:]
        for mark in marks where !mark.text.isEmpty && !labelled.contains(mark.text) && markers[mark.text] == nil {
            markers[mark.text] = free.popFirst() ?? "?"
        }
        return markers
    }

    // MARK: Text

    private func listLines(_ events: [Trace.Event], laneWidth: Int, first: UInt64, language: Language) -> [String] {
        var lines: [String] = []
        let listed = events.prefix(maxListedEvents)
        let timeWidth = max(9, (listed.map { displayWidth(axis == .time ? "" : axisLabel($0.time, language)) }.max() ?? 0) + 2)
        for event in listed {
            let marker: String
            switch event.kind {
            case .point: marker = ""
            case .begin: marker = terminal.usesUnicode ? "▶ " : "> "
            case .end: marker = terminal.usesUnicode ? "◀ " : "< "
            }
            let number = padded("\(event.sequence + 1)", to: 4)
            let time = padded(axis == .time ? formatDuration(nanoseconds: event.time - first) : axisLabel(event.time, language), to: timeWidth)
            let prefix = "  \(number)\(time)\(padded(shortened(event.lane(in: language), to: laneWidth), to: laneWidth))  \(marker)"
            lines += wrap(event.label(in: language), prefix: prefix, width: terminal.width)
        }
        if events.count > listed.count {
            let more = events.count - listed.count
            lines.append(Localized("  … \(more) more events", ja: "  … ほか \(more) 件").text(language))
        }
        return lines
    }

    private func orderedLanes(_ events: [Trace.Event]) -> [String] {
        var seen: [String] = []
        for event in events where !seen.contains(event.lane) { seen.append(event.lane) }
        // main first, then in order of first appearance
        return seen.filter { $0 == "main" } + seen.filter { $0 != "main" }
    }

    /// Writes `text` from `column` on (the drawing has checked it fits); wide characters take
    /// two cells.
    private func write(_ text: String, at column: Int, in row: inout [String]) {
        var c = column
        for character in text {
            switch displayWidth(String(character)) {
            case 0:
                if c > column { row[c - 1] += String(character) }
            case 2:
                row[c] = String(character)
                row[c + 1] = ""
                c += 2
            default:
                row[c] = String(character)
                c += 1
            }
        }
    }

    /// `name` in at most `width` cells, ending in "…" when shortened.
    private func shortened(_ name: String, to width: Int) -> String {
        guard displayWidth(name) > width else { return name }
        var result = ""
        for character in name {
            if displayWidth(result + String(character)) > width - 1 { break }
            result.append(character)
        }
        return result + "…"
    }
}
