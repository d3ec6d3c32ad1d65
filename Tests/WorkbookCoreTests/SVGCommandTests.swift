import Foundation
import Testing
@testable import WorkbookCore

/// A new empty folder for one test's files.
func temporaryFolder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("svg-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("svg N PATH and --svg", .workbookSelfTest)
struct SVGCommandTests {
    @Test("svg N PATH runs a scenario not run yet, then writes its timeline as a picture that parses")
    func runsFirst() async throws {
        let folder = try temporaryFolder()
        let (code, transcript) = await repl(["svg 1 \(folder)/t.svg", "list"])
        #expect(code == 0)
        let text = transcript.text
        #expect(text.contains("── 1. Letters"))
        #expect(text.contains(": A") && text.contains(": B"))
        #expect(text.contains("Wrote the timeline of scenario 1 (its last run) to \(folder)/t.svg (1600×"))
        #expect(text.contains("ch99-sample — Sample"))  // the REPL carried on
        let svg = try #require(ParsedSVG(try String(contentsOfFile: "\(folder)/t.svg", encoding: .utf8)))
        #expect(svg.texts("title").map(\.text) == ["1. Letters  count=2"])
        #expect(svg.texts("label").map(\.text) == ["A", "B"])
    }

    @Test("svg N PATH draws the last run, with its knobs, without running it again")
    func lastRun() async throws {
        let folder = try temporaryFolder()
        let (_, transcript) = await repl(["run 1 count=2", "run 1 count=3", "svg 1 \(folder)/letters.svg"])
        #expect(transcript.text.components(separatedBy: "── 1. Letters").count == 3)  // two runs, not three
        let svg = try #require(ParsedSVG(try String(contentsOfFile: "\(folder)/letters.svg", encoding: .utf8)))
        #expect(svg.texts("title").map(\.text) == ["1. Letters  count=3"])
        #expect(svg.texts("label").map(\.text) == ["A", "B", "C"])
    }

    @Test("the path is the rest of the line, spaces and all; in Japanese the picture and the message are Japanese")
    func pathWithSpacesInJapanese() async throws {
        let folder = try temporaryFolder()
        let (_, transcript) = await repl(["svg 1 \(folder)/my timeline.svg"], language: .ja)
        #expect(transcript.text.contains("シナリオ 1 のタイムライン（最後の実行）を \(folder)/my timeline.svg に保存しました（1600×"))
        let svg = try #require(ParsedSVG(try String(contentsOfFile: "\(folder)/my timeline.svg", encoding: .utf8)))
        #expect(svg.texts("title").map(\.text) == ["1. 文字  count=2"])
    }

    @Test("replaces a picture it wrote, but refuses a file it did not write and leaves it unchanged")
    func neverLosesAFile() async throws {
        let folder = try temporaryFolder()
        let notes = "\(folder)/notes.svg"
        let mine = "<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- my own drawing --></svg>\n"
        try mine.write(toFile: notes, atomically: true, encoding: .utf8)
        let (_, refused) = await repl(["svg 1 \(notes)", "run 1"])
        #expect(refused.text.contains("\(notes) already exists and is not a timeline this workbook wrote, so it was left as it is."))
        #expect(refused.text.contains("── 1. Letters"))  // carried on
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == mine)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.svg"])  // no temporary file left

        let ours = "\(folder)/ours.svg"
        let (_, replaced) = await repl(["svg 1 \(ours)", "run 1 count=4", "svg 1 \(ours)"])
        #expect(replaced.text.components(separatedBy: "Wrote the timeline of scenario 1").count == 3)
        let svg = try #require(ParsedSVG(try String(contentsOfFile: ours, encoding: .utf8)))
        #expect(svg.texts("label").map(\.text) == ["A", "B", "C", "D"])
    }

    @Test("a folder as the path, or a folder that does not exist, is said clearly and the REPL carries on")
    func badFolders() async throws {
        let folder = try temporaryFolder()
        let (code, transcript) = await repl(["svg 1 \(folder)", "svg 1 \(folder)/missing/t.svg", "run 1"], language: .en)
        #expect(code == 0)
        #expect(transcript.text.contains("\(folder) is a folder; give a file name, e.g. \(folder)/timeline.svg."))
        #expect(transcript.text.contains("Could not write \(folder)/missing/t.svg: the folder \(folder)/missing does not exist."))
        #expect(transcript.text.components(separatedBy: "── 1. Letters").count == 3)  // the first svg's run, and run 1
    }

    @Test("bad usage is explained and writes nothing", arguments: ["svg", "svg 1", "svg x t.svg", "svg 9 t.svg", "svg t.svg"])
    func badUsage(command: String) async throws {
        let folder = try temporaryFolder()
        let (_, transcript) = await repl([command.replacingOccurrences(of: "t.svg", with: "\(folder)/t.svg")])
        #expect(transcript.text.contains("usage: svg N PATH") || transcript.text.contains("no scenario 9"))
        #expect(!transcript.text.contains("── 1. Letters"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("--run N --svg PATH runs the scenario and writes its picture; a path it cannot write exits 1 after the run")
    func oneShot() async throws {
        let folder = try temporaryFolder()
        let (session, transcript) = WorkbookCoreTests.session(input: [], svgPath: "\(folder)/one.svg")
        #expect(await onDedicatedThread { session.perform(.run(number: 1, knobs: ["count": 3])) } == 0)
        #expect(transcript.text.contains(": C"))
        #expect(transcript.text.contains("Wrote the timeline of scenario 1 to \(folder)/one.svg (1600×"))
        #expect(ParsedSVG(try String(contentsOfFile: "\(folder)/one.svg", encoding: .utf8)) != nil)

        let (missing, missingTranscript) = WorkbookCoreTests.session(input: [], svgPath: "\(folder)/missing/one.svg")
        #expect(await onDedicatedThread { missing.perform(.run(number: 1, knobs: [:])) } == 1)
        #expect(missingTranscript.text.contains(": B"))

        // A failing scenario still gets its picture, and still exits 1.
        let (failing, _) = WorkbookCoreTests.session(input: [], svgPath: "\(folder)/fails.svg")
        #expect(await onDedicatedThread { failing.perform(.run(number: 2, knobs: [:])) } == 1)
        #expect(FileManager.default.fileExists(atPath: "\(folder)/fails.svg"))
    }

    @Test("the REPL help lists svg in both languages, its description in the same column as the others'")
    func help() throws {
        /// The cell where a help line's description starts: after the command and two spaces or more.
        func descriptionColumn(_ line: String) -> Int? {
            let body = line.dropFirst(2)
            guard let gap = body.range(of: "  ") else { return nil }
            let description = body[gap.lowerBound...].drop { $0 == " " }
            return displayWidth(String(line[..<description.startIndex]))
        }
        for language in Language.allCases {
            let (session, _) = WorkbookCoreTests.session(input: [], language: language)
            let lines = session.helpForCommands().split(separator: "\n").map(String.init)
            let svg = try #require(lines.first { $0.hasPrefix("  svg N ") })
            let list = try #require(lines.first { $0.hasPrefix("  list ") })
            #expect(descriptionColumn(svg) != nil && descriptionColumn(svg) == descriptionColumn(list), "\(language): \(svg)")
        }
    }
}
