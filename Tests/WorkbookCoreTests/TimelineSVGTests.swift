import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import WorkbookCore

/// An SVG document read back with `XMLParser`: its root's attributes, its comments, and every
/// element with its attributes and its text.
struct ParsedSVG {
    struct Element {
        let name: String
        let attributes: [String: String]
        var text = ""

        var role: String { attributes["class"] ?? "" }
        func number(_ attribute: String) -> Double { Double(attributes[attribute] ?? "") ?? .nan }
    }

    var root: [String: String] = [:]
    var comments: [String] = []
    var elements: [Element] = []

    /// Nil unless `document` is well-formed XML.
    init?(_ document: String) {
        let reader = Reader()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = reader
        guard parser.parse(), let root = reader.elements.first, root.name == "svg" else { return nil }
        self.root = root.attributes
        comments = reader.comments
        elements = reader.elements
    }

    var texts: [Element] { elements.filter { $0.name == "text" } }
    func texts(_ role: String) -> [Element] { texts.filter { $0.role == role } }

    /// The viewBox's width and height.
    var viewBox: (width: Double, height: Double)? {
        let parts = (root["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        return parts.count == 4 && parts[0] == 0 && parts[1] == 0 ? (parts[2], parts[3]) : nil
    }

    /// The legend under the lanes: marker → label.
    var legend: [String: String] {
        var legend: [String: String] = [:]
        for line in texts("legend") {
            for entry in line.text.components(separatedBy: "   ") {
                guard let range = entry.range(of: " = ") else { continue }
                legend[String(entry[..<range.lowerBound])] = String(entry[range.upperBound...])
            }
        }
        return legend
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var comments: [String] = []
        var open: [Int] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            open.append(elements.count)
            elements.append(Element(name: elementName, attributes: attributes))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }

        func parser(_ parser: XMLParser, foundComment comment: String) { comments.append(comment) }
    }
}

@Suite("Timeline as SVG", .workbookSelfTest)
struct TimelineSVGTests {
    func events(_ list: [(UInt64, String, String, Trace.Kind)]) -> [Trace.Event] {
        list.enumerated().map { Trace.Event(sequence: $0.offset, time: $0.element.0, lane: $0.element.1, label: $0.element.2, kind: $0.element.3) }
    }

    /// Three lanes with every kind of mark: instants, spans, a span inside a span, an instant on
    /// a bar, a span that never ended and an end whose start is not in the trace.
    var everyKind: [Trace.Event] {
        events([
            (0, "T2", "request", .point), (10, "main", "load", .begin), (20, "main", "tick", .point),
            (25, "T1", "earlier work", .end), (30, "main", "decode", .begin), (40, "main", "decode", .end),
            (50, "main", "load", .end), (60, "T1", "wait", .begin), (70, "T2", "done", .point),
        ])
    }

    /// Marks at the same moment on one lane, each right after the last one's text.
    var tight: [Trace.Event] {
        events([
            (0, "T1", "x", .point), (0, "T1", "why", .point), (0, "T1", "held", .begin), (0, "T1", "zed", .point),
            (0, "T1", "held", .end), (0, "T1", "before", .end), (0, "T1", "then", .point), (1_000, "T2", "later", .point),
        ])
    }

    /// Long labels close together in time, so the layout turns some of them into markers.
    var crowded: [Trace.Event] {
        var list: [(UInt64, String, String, Trace.Kind)] = []
        for i in 0..<14 {
            list.append((UInt64(i * 10), "T\(i % 2 + 1)", "a rather long label number \(i)", .begin))
            list.append((UInt64(i * 10 + 9), "T\(i % 2 + 1)", "a rather long label number \(i)", .end))
            list.append((UInt64(i * 10 + 9), "main", "step \(i) of the work", .point))
        }
        return events(list)
    }

    func parsed(_ events: [Trace.Event], title: String = "1. A title  knob=1", language: Language = .en,
                axis: Timeline.Axis = .time) throws -> (ParsedSVG, TimelineSVG.Picture) {
        let picture = TimelineSVG(axis: axis).picture(events, title: title, language: language)
        let svg = try #require(ParsedSVG(picture.document), "not well-formed:\n\(picture.document)")
        return (svg, picture)
    }

    /// The labels a reader must find for `events`: every instant's, every span's (once, at its
    /// start), and those of ends whose start is not in the trace.
    func namedLabels(_ events: [Trace.Event], _ language: Language) -> [String] {
        var opened: [String: Int] = [:]
        var named: [String] = []
        for event in events {
            let key = "\(event.lane)|\(event.label)"
            switch event.kind {
            case .point: named.append(event.label(in: language))
            case .begin:
                opened[key, default: 0] += 1
                named.append(event.label(in: language))
            case .end:
                if opened[key, default: 0] > 0 { opened[key]! -= 1 } else { named.append(event.label(in: language)) }
            }
        }
        return named
    }

    @Test("is a well-formed SVG 1.1 document with the generator comment, a viewBox, its size and a white background")
    func wellFormed() throws {
        let (svg, picture) = try parsed(everyKind)
        #expect(picture.document.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(TimelineSVG.generatorComment)\n<svg "))
        #expect(svg.comments == [" swift-concurrency-workbook timeline "])
        #expect(svg.root["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(svg.root["version"] == "1.1")
        let viewBox = try #require(svg.viewBox)
        #expect(svg.root["width"] == "\(picture.width)" && svg.root["height"] == "\(picture.height)")
        #expect(viewBox.width == Double(picture.width) && viewBox.height == Double(picture.height))
        #expect(picture.width == 1600)
        let background = try #require(svg.elements.first { $0.name == "rect" })
        #expect(background.attributes["fill"] == "#ffffff" && background.attributes["width"] == "100%")
    }

    @Test("writes the title, the axis from 0 to the duration, and one lane name per lane in the text timeline's order")
    func titleAxisAndLanes() throws {
        let (svg, _) = try parsed(everyKind, title: "3. sync vs async  iterations=500")
        #expect(svg.texts("title").map(\.text) == ["3. sync vs async  iterations=500"])
        #expect(svg.texts("axis").map(\.text) == ["0", formatDuration(nanoseconds: 70)])
        #expect(svg.texts("lane").map(\.text) == ["main", "T2", "T1"])
    }

    @Test("on the steps axis, the ends are step numbers")
    func stepsAxis() throws {
        let steps = events([(3, "A", "x", .point), (9, "B", "y", .point)])
        #expect(try parsed(steps, axis: .steps).0.texts("axis").map(\.text) == ["step 3", "step 9"])
        #expect(try parsed(steps, language: .ja, axis: .steps).0.texts("axis").map(\.text) == ["ステップ 3", "ステップ 9"])
    }

    @Test("every event's label is written out, or its marker is and the legend explains it",
          arguments: ["every kind", "tight", "crowded"])
    func everyLabelFound(_ trace: String) throws {
        let events = trace == "crowded" ? crowded : trace == "tight" ? tight : everyKind
        let (svg, _) = try parsed(events)
        let legend = svg.legend
        var written = svg.texts("label").map(\.text)
        var markers = svg.texts("marker").map(\.text)
        for label in namedLabels(events, .en) {
            if let index = written.firstIndex(of: label) {
                written.remove(at: index)
            } else if let marker = legend.first(where: { $0.value == label })?.key, let index = markers.firstIndex(of: marker) {
                markers.remove(at: index)
            } else {
                Issue.record("\"\(label)\" is neither written out nor a marker in the legend")
            }
        }
        #expect(written.isEmpty && markers.isEmpty, "texts for no event: \(written) \(markers)")
        if trace == "crowded" { #expect(!legend.isEmpty) }
    }

    @Test("spans are bars of positive width; one that never ended runs past the lanes; an end with no start is a closing mark")
    func marks() throws {
        let (svg, _) = try parsed(everyKind)
        let spans = svg.elements.filter { $0.role == "span" }
        #expect(spans.count == 2)  // load, decode
        for span in spans { #expect(span.number("width") > 0) }
        #expect(svg.elements.filter { $0.role == "open-span" }.count == 1)  // wait
        #expect(svg.elements.filter { $0.role == "close" }.count == 1)      // earlier work
        #expect(svg.elements.filter { $0.role == "point" }.count == 3)      // request, tick, done
        #expect(svg.texts("label").contains { $0.text == "earlier work" })
    }

    @Test("no text runs past the picture's right edge",
          arguments: ["every kind", "tight", "crowded", "long names", "Japanese", "many lanes"])
    func fitsTheWidth(_ trace: String) throws {
        let longTitle = String(repeating: "A very long scenario title that goes on ", count: 5)
        let (events, language): ([Trace.Event], Language) = switch trace {
        case "every kind": (everyKind, .en)
        case "crowded": (crowded, .en)
        case "tight": (tight, .en)
        case "long names": (self.events([
            (0, "a lane with a name much longer than the column", String(repeating: "label ", count: 40), .point),
            (1, "T1", String(repeating: "x", count: 300), .begin), (2, "T1", String(repeating: "x", count: 300), .end),
        ]), .en)
        case "Japanese": (japanese, .ja)
        default: ((0..<30).map { Trace.Event(sequence: $0, time: UInt64($0 * 3), lane: "lane \($0 % 12)", label: "event number \($0)", kind: .point) }, .en)
        }
        let (svg, _) = try parsed(events, title: longTitle, language: language)
        let width = try #require(svg.viewBox).width
        #expect(svg.texts("title").count > 1)
        for text in svg.texts {
            let end = text.number("x") + TimelineSVG.estimatedWidth(of: text.text, fontSize: text.number("font-size"))
            #expect(end <= width, "\(text.role) \"\(text.text)\" ends at \(end), past \(width)")
        }
    }

    @Test("no label or marker covers another event's mark")
    func labelsClearOfMarks() throws {
        for events in [everyKind, tight, crowded] {
            let (svg, _) = try parsed(events)
            // Each mark's left and right end and its lane's middle.
            let marks: [(role: String, left: Double, right: Double, middle: Double)] = svg.elements.compactMap { mark in
                let start = pathStart(mark.attributes["d"] ?? "")
                switch mark.role {
                case "point":
                    let (x, r) = (mark.number("cx"), mark.number("r"))
                    return (mark.role, x - r, x + r, mark.number("cy"))
                case "span":
                    return (mark.role, mark.number("x"), mark.number("x") + mark.number("width"), mark.number("y") + TimelineSVG.barHeight / 2)
                case "open-span":  // the path starts after the rounded corner, 6 px in
                    return (mark.role, start.x - 6, .infinity, start.y + TimelineSVG.barHeight / 2)
                case "close":
                    return (mark.role, start.x, start.x + TimelineSVG.cell - 3.5, start.y + TimelineSVG.barHeight / 2 - 2)
                default:
                    return nil
                }
            }
            for text in svg.texts where text.role == "label" || text.role == "marker" {
                let from = text.number("x")
                let to = from + TimelineSVG.estimatedWidth(of: text.text, fontSize: text.number("font-size"))
                let row = text.number("y") - 6  // the lane's middle
                for mark in marks where abs(mark.middle - row) < 1 {
                    // A bar that starts left of the text is its own or holds it: only one that
                    // starts under the text covers it.
                    let isBar = mark.role == "span" || mark.role == "open-span"
                    let overlap = isBar ? (mark.left > from ? to - mark.left : 0) : min(to, mark.right) - max(from, mark.left)
                    #expect(overlap <= 1, "\"\(text.text)\" (\(from)–\(to)) covers the \(mark.role) at \(mark.left)–\(mark.right)")
                }
            }
        }
    }

    /// The first point of a path ("M12 34…").
    func pathStart(_ d: String) -> (x: Double, y: Double) {
        let numbers = d.dropFirst().split(whereSeparator: { !"0123456789.".contains($0) }).prefix(2).compactMap { Double($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (.nan, .nan)
    }

    @Test("escapes XML's special characters in every text")
    func escapes() throws {
        let (svg, picture) = try parsed(events([(0, "T<1>", "a < b && c", .point), (5, "T<1>", "\"quoted\" 'too'", .point)]),
                                        title: "1. <Title> & more")
        #expect(picture.document.contains("a &lt; b &amp;&amp; c"))
        #expect(!picture.document.contains("a < b"))
        #expect(svg.texts("title").first?.text == "1. <Title> & more")
        #expect(svg.texts("lane").first?.text == "T<1>")
        #expect(Set(svg.texts("label").map(\.text)) == ["a < b && c", "\"quoted\" 'too'"])
    }

    var japanese: [Trace.Event] {
        let trace = Trace()
        trace.record(Localized("start", ja: "開始"), lane: Localized("worker", ja: "ワーカー"))
        trace.span(Localized("long work with a long name", ja: "とても長い名前の長い作業"), lane: Localized("worker", ja: "ワーカー")) {}
        trace.record(Localized("publish", ja: "公開"), lane: Localized("publisher", ja: "パブリッシャー"))
        return trace.events
    }

    @Test("draws lane names and labels in Japanese, a wide character two cells wide")
    func japaneseText() throws {
        let (svg, _) = try parsed(japanese, title: "2. 日本語のタイトル", language: .ja)
        #expect(svg.texts("lane").map(\.text) == ["ワーカー", "パブリッシャー"])
        let shown = Set(svg.texts("label").map(\.text)).union(svg.legend.values)
        #expect(shown.isSuperset(of: ["開始", "とても長い名前の長い作業", "公開"]))
        #expect(TimelineSVG.estimatedWidth(of: "開始", fontSize: TimelineSVG.fontSize) == 4 * TimelineSVG.cell)
        #expect(!svg.texts.contains { $0.text.contains("worker") || $0.text.contains("start") })
    }

    @Test("an empty trace is a picture that says nothing was recorded")
    func empty() throws {
        let (svg, _) = try parsed([], language: .ja)
        #expect(svg.texts("note").map(\.text) == ["（記録なし）"])
    }

    @Test("every lane colour is dark enough for white bold text (contrast at least 4.5 : 1)")
    func contrast() {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16)!
            func linear(_ channel: Int) -> Double {
                let c = Double(channel) / 255
                return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(value >> 16) + 0.7152 * linear((value >> 8) & 0xFF) + 0.0722 * linear(value & 0xFF)
        }
        for color in TimelineSVG.laneColors {
            #expect(1.05 / (luminance(color) + 0.05) >= 4.5, "\(color)")
        }
    }
}
