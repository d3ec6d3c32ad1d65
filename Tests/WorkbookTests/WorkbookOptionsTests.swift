import Foundation
import Testing
@testable import workbook

@Suite("workbook's command line")
struct WorkbookOptionsTests {
    @Test("no arguments is the status; a command takes its operand and flags")
    func commands() throws {
        #expect(try WorkbookOptions.parse([]).command == .status)
        let check = try WorkbookOptions.parse(["check", "SafeCounter", "--lang", "ja"])
        #expect(check.command == .check && check.operands == ["SafeCounter"] && check.language == .ja)
        #expect(try WorkbookOptions.parse(["solution", "FanOut", "--force"]).force)
        #expect(try WorkbookOptions.parse(["progress", "--json"]).progressFormat == .json)
        #expect(try WorkbookOptions.parse(["hint", "--help"]).wantsHelp)
        #expect(try WorkbookOptions.parse(["watch"]).command == .watch)
    }

    @Test("bad input is refused with a message: unknown command (with the closest), option, language, missing or extra operands, misplaced flags",
          arguments: [["chek"], ["--bogus"], ["--lang", "fr"], ["--lang"], ["hint"], ["reset"], ["session"], ["hint", "A", "B"], ["status", "X"], ["check", "--force"], ["check", "--json"], ["watch", "SafeCounter"], ["watch", "--force"], ["progress", "--json", "--markdown"]])
    func refused(_ arguments: [String]) {
        #expect(throws: WorkbookOptions.ParseError.self) { try WorkbookOptions.parse(arguments) }
    }

    @Test("a typo is matched to the nearest name; a word far from every name is not")
    func nearest() {
        #expect(closest(to: "chek", in: ["check", "hint"]) == "check")
        #expect(closest(to: "safecountr", in: ["SafeCounter", "FanOut"]) == "SafeCounter")
        #expect(closest(to: "zzzzzz", in: ["check", "hint"]) == nil)
    }

    @Test("the compiler's messages are shown once each, without the driver's emit-module line")
    func diagnostics() {
        let block = "exercises/Exercises/01-gcd/SafeCounter.swift:3:1: error: cannot find 'x' in scope\n3 | x\n  | `- error: cannot find 'x' in scope"
        let log = "[1/3] Compiling Exercises\n\(block)\nerror: emit-module command failed with exit code 1\n\(block)\n[2/3] Compiling"
        let shown = Checking.diagnostics(in: log)
        #expect(shown == block)
        // The same message once more at the log's end, followed by blank lines: still one.
        #expect(Checking.diagnostics(in: log + "\n\(block)\n\n\n") == block)
    }

    @Test("the runners are built where this program was built: its scratch path and configuration")
    func buildFolder() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)")
        let products = scratch.appendingPathComponent("x86_64-unknown-linux-gnu/release")
        try FileManager.default.createDirectory(at: products, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Not a SwiftPM scratch folder (no workspace-state.json): SwiftPM's defaults.
        #expect(Checking.buildFolderArguments(executable: products.appendingPathComponent("workbook")).isEmpty)
        try Data("{}".utf8).write(to: scratch.appendingPathComponent("workspace-state.json"))
        #expect(Checking.buildFolderArguments(executable: products.appendingPathComponent("workbook"))
                == ["--scratch-path", scratch.resolvingSymlinksInPath().path, "-c", "release"])
    }
}
