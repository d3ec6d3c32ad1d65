import Foundation

/// Draws a trace as an SVG picture for slides: the same layout as the text timeline
/// (`Timeline.Drawing`), on a wider grid of fixed-size cells.
///
/// - One row per lane, its name at the left in the lane's colour.
/// - A span is a rounded bar in the lane's colour with its label inside in white bold; a span
///   that never ended runs to the right edge and ends in an arrow; an end whose start is not in
///   the trace is a closing bracket.
/// - An instant is a dot with its label right of it.
/// - A label with no room is the text timeline's one-letter marker, explained under the lanes.
///
/// Text is monospace, one grid cell per character and two per wide (CJK) character, so its width
/// is known: nothing runs past the right edge, and no label covers another event's mark.
public struct TimelineSVG: Sendable {
    /// What the horizontal axis counts, as for `Timeline`.
    public var axis: Timeline.Axis

    public init(axis: Timeline.Axis = .time) {
        self.axis = axis
    }

    /// A rendered picture and its size in pixels.
    public struct Picture: Sendable {
        public let document: String
        public let width: Int
        public let height: Int
    }

    /// The line after the XML declaration that marks a file as one this tool wrote.
    public static let generatorComment = "<!-- swift-concurrency-workbook timeline -->"

    // MARK: Geometry

    /// Cells across the whole picture (lane names and lanes), as a terminal's columns.
    static let gridCells = 140
    /// One grid cell, in pixels, for text of `fontSize`.
    static let cell = 11.0
    static let fontSize = 18.0
    static let titleFontSize = 24.0
    static let margin = 24.0
    /// Room right of the lanes for the arrow of a span that never ended.
    static let arrowRoom = 12.0
    static let titleLineHeight = 34.0
    static let axisHeight = 26.0
    static let laneHeight = 44.0
    static let barHeight = 32.0
    static let legendLineHeight = 28.0
    /// How far the text beside a dot or a bracket starts right of its cell (less than the
    /// layout's gap cell after it).
    static let textShift = 3.0
    static let fontFamily = "ui-monospace, Menlo, 'DejaVu Sans Mono', monospace"

    /// The width of one character cell for text of `fontSize`: a monospace font's advance is
    /// about 0.6 em, and a cell is a little wider than that.
    static func cellWidth(forFontSize fontSize: Double) -> Double { fontSize * cell / Self.fontSize }

    /// How wide `text` is drawn at `fontSize`: its cells (a wide character takes two) times the
    /// cell width.
    static func estimatedWidth(of text: String, fontSize: Double) -> Double {
        Double(Timeline.cells(text)) * cellWidth(forFontSize: fontSize)
    }

    static var pictureWidth: Double { margin + Double(gridCells) * cell + arrowRoom + margin }

    /// One colour per lane, in order, repeating: each dark enough for white bold text on it
    /// (contrast at least 4.5 : 1).
    static let laneColors = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#b34700",
                             "#00695c", "#ad1457", "#283593", "#5d6b00", "#6d4c41"]
    static let ink = "#1f2328"
    static let quietInk = "#57606a"

    // MARK: Rendering

    public func picture(_ events: [Trace.Event], title: String, language: Language) -> Picture {
        var svg = Canvas()
        let width = Self.pictureWidth
        let textCells = Int((width - 2 * Self.margin) / Self.cell)
        var y = Self.margin

        let titleCells = Int((width - 2 * Self.margin) / Self.cellWidth(forFontSize: Self.titleFontSize))
        for line in wrap(title, width: titleCells) {
            svg.text(line, x: Self.margin, y: y + 25, size: Self.titleFontSize, bold: true, fill: Self.ink, role: "title")
            y += Self.titleLineHeight
        }
        y += 8

        guard !events.isEmpty else {
            let nothing = Timeline.nothingRecorded.text(language)
            svg.text(nothing, x: Self.margin, y: y + 20, size: Self.fontSize, bold: false, fill: Self.quietInk, role: "note")
            return svg.picture(width: width, height: y + 28 + Self.margin)
        }

        var timeline = Timeline(terminal: Terminal(usesColor: false, usesUnicode: true, width: Self.gridCells))
        timeline.axis = axis
        timeline.labelGap = 1
        var drawing = timeline.drawing(events, language: language)
        // A cell of space after each label costs room: where that would turn more labels into
        // markers, the picture does without it.
        if !drawing.legend.isEmpty || drawing.unlettered {
            timeline.labelGap = 0
            let tight = timeline.drawing(events, language: language)
            if tight.legend.count < drawing.legend.count || (drawing.unlettered && !tight.unlettered) { drawing = tight }
        }
        let left = Self.margin + Double(drawing.laneWidth + 2) * Self.cell  // where the lanes start
        let right = left + Double(drawing.width) * Self.cell                // and end
        func x(_ column: Int) -> Double { left + Double(column) * Self.cell }

        // The time axis: its ends written above a line with a tick at each end.
        let endX = right - Self.estimatedWidth(of: drawing.endText, fontSize: Self.fontSize)
        svg.text(drawing.startText, x: left, y: y + 18, size: Self.fontSize, bold: false, fill: Self.quietInk, role: "axis")
        svg.text(drawing.endText, x: endX, y: y + 18, size: Self.fontSize, bold: false, fill: Self.quietInk, role: "axis")
        y += Self.axisHeight
        svg.element("<path d=\"M\(n(left)) \(n(y - 6))V\(n(y))H\(n(right))V\(n(y - 6))\" fill=\"none\" stroke=\"\(Self.quietInk)\" stroke-width=\"1.5\"/>")
        y += 8

        // The lanes: a band and an idle line each, then bars, brackets and dots, then the texts.
        var middle: [String: Double] = [:]
        var color: [String: String] = [:]
        for (index, lane) in drawing.lanes.enumerated() {
            let top = y + Double(index) * Self.laneHeight
            middle[lane] = top + Self.laneHeight / 2
            color[lane] = Self.laneColors[index % Self.laneColors.count]
            if index.isMultiple(of: 2) {
                svg.element("<rect x=\"\(n(Self.margin - 8))\" y=\"\(n(top))\" width=\"\(n(right + Self.arrowRoom + 16 - Self.margin))\" height=\"\(n(Self.laneHeight))\" fill=\"#f3f5f8\"/>")
            }
            svg.element("<line x1=\"\(n(left))\" y1=\"\(n(middle[lane]!))\" x2=\"\(n(right))\" y2=\"\(n(middle[lane]!))\" stroke=\"#c4c9d0\" stroke-width=\"2\" stroke-dasharray=\"2 6\"/>")
            svg.text(drawing.laneNames[lane]!, x: Self.margin, y: middle[lane]! + 6, size: Self.fontSize, bold: true, fill: color[lane]!, role: "lane")
        }
        y += Double(drawing.lanes.count) * Self.laneHeight

        var bars: [String: [ClosedRange<Int>]] = [:]
        let half = Self.barHeight / 2
        for (index, mark) in drawing.marks.enumerated() where mark.kind == .open {
            let start = drawing.columns[index], end = drawing.spanEnd(index)
            bars[mark.lane, default: []].append(start...end)
            let (top, bottom) = (middle[mark.lane]! - half, middle[mark.lane]! + half)
            // From the middle of the start's cell to the middle of the end's, where the text
            // timeline draws `┣` and `┫`: a span that ends in the cell where another starts (on
            // another lane) touches it rather than overlapping it.
            let from = x(start) + Self.cell / 2
            if mark.partner == nil {
                // Never ended: square to the lanes' right edge, then an arrow pointing on.
                svg.element("<path class=\"open-span\" d=\"M\(n(from + 6)) \(n(top))H\(n(right))L\(n(right + Self.arrowRoom)) \(n(middle[mark.lane]!))L\(n(right)) \(n(bottom))H\(n(from + 6))A6 6 0 0 1 \(n(from)) \(n(bottom - 6))V\(n(top + 6))A6 6 0 0 1 \(n(from + 6)) \(n(top))Z\" fill=\"\(color[mark.lane]!)\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>")
            } else {
                svg.element("<rect class=\"span\" x=\"\(n(from))\" y=\"\(n(top))\" width=\"\(n(max(3, x(end) + Self.cell / 2 - from)))\" height=\"\(n(Self.barHeight))\" rx=\"6\" fill=\"\(color[mark.lane]!)\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>")
            }
        }
        for (index, mark) in drawing.marks.enumerated() {
            let (column, middle) = (drawing.columns[index], middle[mark.lane]!)
            switch mark.kind {
            case .point:
                // On a bar of its lane, a white dot; elsewhere, one in the lane's colour.
                let onBar = bars[mark.lane, default: []].contains { $0.contains(column) }
                svg.element("<circle class=\"point\" cx=\"\(n(x(column) + Self.cell / 2 - 0.5))\" cy=\"\(n(middle))\" r=\"5.5\" fill=\"\(onBar ? "#ffffff" : color[mark.lane]!)\"/>")
            case .closeAlone:
                // An end whose start is before the trace: a closing bracket.
                svg.element("<path class=\"close\" d=\"M\(n(x(column) + 1)) \(n(middle - half + 2))H\(n(x(column) + Self.cell - 2.5))V\(n(middle + half - 2))H\(n(x(column) + 1))\" fill=\"none\" stroke=\"\(color[mark.lane]!)\" stroke-width=\"3.5\"/>")
            case .open, .close:
                break
            }
        }
        var markCells: [String: Set<Int>] = [:]
        for (index, mark) in drawing.marks.enumerated() { markCells[mark.lane, default: []].insert(drawing.columns[index]) }
        for (index, mark) in drawing.marks.enumerated() {
            guard let text = drawing.texts[index] else { continue }
            let first = drawing.columns[index] + 1, last = first + Timeline.cells(text) - 1
            let onBar = bars[mark.lane, default: []].contains { $0.contains(first) && $0.contains(last) }
            let role = text == mark.text ? "label" : "marker"
            // Beside a dot or bracket, a little apart from it, into the gap the layout leaves
            // after the text (a crowded drawing may have none).
            let shift = mark.kind != .open && !markCells[mark.lane]!.contains(last + 1) ? Self.textShift : 0
            svg.text(text, x: x(first) + shift, y: middle[mark.lane]! + 6, size: Self.fontSize, bold: true,
                     fill: onBar ? "#ffffff" : Self.ink, role: role)
        }

        // The legend and the note on crowding, under the lanes.
        var entries = drawing.legend.map { "\($0.marker) = \($0.label)" }
        if drawing.unlettered {
            entries.append(Localized("? = one of the other labels", ja: "? = ほかのラベルのどれか").text(language))
        }
        var notes = Timeline.packed(entries, width: textCells).map { (String($0.dropFirst(2)), "legend") }
        if drawing.crowded {
            let crowded = Localized("(more events than this width can show apart: some marks overlap)",
                                    ja: "（この幅では離して描けないほどイベントが多いため、重なった印があります）").text(language)
            notes += wrap(crowded, width: textCells - 2).map { ($0, "note") }
        }
        if !notes.isEmpty { y += 12 }
        for (line, role) in notes {
            svg.text(line, x: Self.margin + 2 * Self.cell, y: y + 20, size: Self.fontSize, bold: false,
                     fill: role == "legend" ? Self.ink : Self.quietInk, role: role)
            y += Self.legendLineHeight
        }
        return svg.picture(width: width, height: y + Self.margin)
    }
}

/// The elements of a picture, written in order.
private struct Canvas {
    var elements: [String] = []

    mutating func element(_ markup: String) { elements.append(markup) }

    /// One line of text at (x, baseline y); `role` names what it is (title, lane, label, …).
    mutating func text(_ text: String, x: Double, y: Double, size: Double, bold: Bool, fill: String, role: String) {
        let weight = bold ? " font-weight=\"bold\"" : ""
        elements.append("<text class=\"\(role)\" xml:space=\"preserve\" x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\"\(weight) fill=\"\(fill)\">\(escapedXML(text))</text>")
    }

    func picture(width: Double, height: Double) -> TimelineSVG.Picture {
        let (w, h) = (Int(width.rounded(.up)), Int(height.rounded(.up)))
        let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        \(TimelineSVG.generatorComment)
        <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)" \
        font-family="\(escapedXML(TimelineSVG.fontFamily))">
        <rect width="100%" height="100%" fill="#ffffff"/>
        \(elements.joined(separator: "\n"))
        </svg>

        """
        return TimelineSVG.Picture(document: document, width: w, height: h)
    }
}

/// A coordinate: whole numbers without a decimal point, others to one decimal.
private func n(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
}

/// `text` safe inside an XML element or attribute: the five special characters as entities, and
/// the characters XML 1.0 does not allow left out (control characters take no cell anyway).
func escapedXML(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&apos;"
        default:
            if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}
