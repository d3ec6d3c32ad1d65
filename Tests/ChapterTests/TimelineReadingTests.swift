import Foundation
import Testing
import WorkbookCore

/// Reads a rendered timeline back and says what a learner could not read in it.
///
/// The lanes are split into runs of text between the drawing glyphs; every run must be a whole
/// label of an event on that lane or a marker explained in the legend under the lanes. Problems:
/// - a run that is the start of a label but not all of it: a label cut into a fragment;
/// - a run that is neither a label nor a marker (two labels run together, say);
/// - an event with no label or marker on its lane, or fewer marks than events: an event gone;
/// - a line wider than the terminal.
///
/// Only Unicode renderings are read glyph by glyph (an ASCII label may contain `.`, `=` or `*`,
/// the ASCII glyphs); an ASCII rendering must be the Unicode one with the glyphs swapped.
enum TimelineReading {
    static let unicodeGlyphs: [Character: Character] = ["●": "*", "━": "=", "┣": "[", "┫": "]", "·": ".", "▶": ">", "◀": "<"]

    /// The text a timeline shows for `event` in `language`.
    static func shownLabel(_ event: Trace.Event, _ language: Language) -> String { event.label(in: language) }

    /// Main first, then in order of first appearance: the timeline's order of lanes.
    static func lanes(_ events: [Trace.Event]) -> [String] {
        var seen: [String] = []
        for event in events where !seen.contains(event.lane) { seen.append(event.lane) }
        return seen.filter { $0 == "main" } + seen.filter { $0 != "main" }
    }

    /// The legend under the lanes: "  a = label   b = other label".
    static func legend(_ lines: ArraySlice<String>) -> [String: String] {
        var legend: [String: String] = [:]
        for line in lines {
            for entry in line.components(separatedBy: "   ") {
                let entry = entry.trimmingCharacters(in: .whitespaces)
                guard let range = entry.range(of: " = "), entry.distance(from: entry.startIndex, to: range.lowerBound) == 1 else { continue }
                legend[String(entry[..<range.lowerBound])] = String(entry[range.upperBound...])
            }
        }
        return legend
    }

    /// The problems of a Unicode rendering `text` of `events` on a terminal `width` wide.
    static func problems(_ text: String, events: [Trace.Event], language: Language, width: Int) -> [String] {
        var problems: [String] = []
        let lines = text.components(separatedBy: "\n")
        for line in lines where displayWidth(line) > width {
            problems.append("line wider than \(width) (\(displayWidth(line))): \(line)")
        }
        let lanes = lanes(events)
        guard lines.count > lanes.count, let header = lines.first else { return problems + ["no lanes drawn"] }
        // The lane area starts where the header's time axis starts.
        let offset = header.prefix { $0 == " " }.count
        let laneRows = lines[1...lanes.count]
        let legendEnd = lines[(lanes.count + 1)...].firstIndex(of: "") ?? lines.count
        let legend = legend(lines[(lanes.count + 1)..<legendEnd])
        let glyphs = Set("●━┣┫·")

        for (lane, row) in zip(lanes, laneRows) {
            let area = cells(row).dropFirst(offset)
            let onLane = events.filter { $0.lane == lane }
            // Every event that should be named: points, span starts, and ends with no start.
            var opened: [String: Int] = [:]
            var named: [String] = []
            var closes = 0
            for event in onLane {
                switch event.kind {
                case .point: named.append(shownLabel(event, language))
                case .begin:
                    opened[event.label, default: 0] += 1
                    named.append(shownLabel(event, language))
                case .end:
                    if let count = opened[event.label], count > 0 {
                        opened[event.label] = count - 1
                        closes += 1
                    } else {
                        named.append(shownLabel(event, language))
                    }
                }
            }
            let labels = Set(named)
            // The runs of text between glyphs.
            var runs: [String] = [], current = ""
            for cell in area {
                if cell.count == 1, glyphs.contains(cell.first!) {
                    if !current.isEmpty { runs.append(current) }
                    current = ""
                } else {
                    current += cell
                }
            }
            if !current.isEmpty { runs.append(current) }
            var shown: [String: Int] = [:]
            for run in runs {
                if labels.contains(run) {
                    shown[run, default: 0] += 1
                } else if let label = legend[run] {
                    shown[label, default: 0] += 1
                } else if let whole = labels.first(where: { $0.hasPrefix(run) }) {
                    problems.append("\(lane): label cut to \"\(run)\" (of \"\(whole)\"): \(row)")
                } else {
                    problems.append("\(lane): text that is no label or legend marker, \"\(run)\": \(row)")
                }
            }
            for label in labels where !label.isEmpty {
                let events = named.filter { $0 == label }.count
                if shown[label, default: 0] < events {
                    problems.append("\(lane): \(events) event(s) \"\(label)\", \(shown[label, default: 0]) named on the lane or in the legend: \(row)")
                }
            }
            let marks = (points: area.filter { $0 == "●" }.count, opens: area.filter { $0 == "┣" }.count, closes: area.filter { $0 == "┫" }.count)
            let points = onLane.filter { $0.kind == .point }.count, begins = onLane.filter { $0.kind == .begin }.count
            if marks.points < points { problems.append("\(lane): \(points) point(s), \(marks.points) ● drawn: \(row)") }
            if marks.opens < begins { problems.append("\(lane): \(begins) span(s), \(marks.opens) ┣ drawn: \(row)") }
            if marks.closes < closes { problems.append("\(lane): \(closes) ended span(s), \(marks.closes) ┫ drawn: \(row)") }
        }
        return problems
    }

    /// A line as display cells: a wide character is one cell here followed by an empty one.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        for character in line {
            let width = displayWidth(String(character))
            if width == 0, !cells.isEmpty { cells[cells.count - 1] += String(character); continue }
            cells.append(String(character))
            if width == 2 { cells.append("") }
        }
        return cells
    }

    /// Every rendering the test reads of a trace recorded in `language` (its lane names are in
    /// that language): 80 and 120 columns, Unicode and ASCII.
    static func allProblems(_ events: [Trace.Event], language: Language) -> [String] {
        var problems: [String] = []
        for width in [80, 120] {
            do {
                let unicode = Timeline(terminal: Terminal(usesColor: false, usesUnicode: true, width: width)).render(events, language: language)
                let ascii = Timeline(terminal: Terminal(usesColor: false, usesUnicode: false, width: width)).render(events, language: language)
                let where_ = "\(width) columns, \(language.rawValue)"
                problems += self.problems(unicode, events: events, language: language, width: width).map { "[\(where_)] \($0)" }
                let swapped = String(unicode.map { unicodeGlyphs[$0] ?? $0 })
                if ascii != swapped {
                    problems.append("[\(where_)] the ASCII rendering is not the Unicode one with ASCII glyphs:\n\(ascii)\n---\n\(swapped)")
                }
                for line in ascii.components(separatedBy: "\n") where displayWidth(line) > width {
                    problems.append("[\(where_), ASCII] line wider than \(width): \(line)")
                }
            }
        }
        return problems
    }
}

@Suite("Timelines", .workbookSelfTest)
struct TimelineReadingTests {
    @Test("every scenario's timeline reads at 80 and 120 columns, in en and ja, Unicode and ASCII: labels whole or in the legend, every event marked, no line too wide",
          arguments: allScenarios)
    func scenarioTimeline(_ name: ScenarioName) async throws {
        for language in Language.allCases {
            let context = try await run(name.scenario, language: language)
            let events = context.trace.events
            let problems = TimelineReading.allProblems(events, language: language)
            if !problems.isEmpty {
                let shown = Timeline(terminal: Terminal(usesColor: false, usesUnicode: true, width: 80)).render(events, language: language)
                Issue.record("\(name.testDescription) in \(language.rawValue): \(problems.count) problem(s)\n\(problems.prefix(12).joined(separator: "\n"))\n\(shown)")
            }
        }
    }

    @Test("the reader finds a cut label, a lost mark, an unexplained letter and a line too wide")
    func theReader() {
        func event(_ sequence: Int, _ lane: String, _ label: String, _ kind: Trace.Kind) -> Trace.Event {
            Trace.Event(sequence: sequence, time: UInt64(sequence), lane: lane, label: label, kind: kind)
        }
        let events = [event(0, "T1", "start consumer", .point), event(1, "T1", "notify", .point), event(2, "T2", "held task", .begin), event(3, "T2", "held task", .end)]
        let header = "    0" + String(repeating: " ", count: 10) + "1ms"
        func problems(_ rows: [String], legend: [String] = []) -> [String] {
            TimelineReading.problems(([header] + rows + legend + ["", "  1   0ns  T1  start consumer"]).joined(separator: "\n"), events: events, language: .en, width: 40)
        }
        #expect(problems(["T1  ●start consumer●notify···", "T2  ┣held task┫·············"]).isEmpty)
        #expect(problems(["T1  ●a●notify···", "T2  ┣b┫·····"], legend: ["  a = start consumer   b = held task"]).isEmpty)
        #expect(problems(["T1  ●st●notify···", "T2  ┣held task┫·····"]).contains { $0.contains("label cut to \"st\"") })
        #expect(problems(["T1  ●start consumer······", "T2  ┣held task┫·····"]).contains { $0.contains("\"notify\"") })
        #expect(problems(["T1  ●start consumer●notify", "T2  ┣z┫·····"]).contains { $0.contains("no label or legend marker, \"z\"") })
        #expect(problems(["T1  ●start consumer●notify" + String(repeating: "·", count: 30), "T2  ┣held task┫"]).contains { $0.contains("wider than 40") })
    }
}
