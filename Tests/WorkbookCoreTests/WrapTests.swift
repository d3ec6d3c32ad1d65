import Foundation
import Testing
import WorkbookCore

@Suite("Wrapping prose to the terminal", .workbookSelfTest)
struct WrapTests {
    @Test("English breaks at spaces and no line is wider than the terminal")
    func english() {
        let text = "The same two experiments run on a private concurrent queue and on the global one, twice."
        let lines = wrap(text, width: 30)
        #expect(lines.allSatisfy { displayWidth($0) <= 30 })
        #expect(lines.joined(separator: " ") == text)
    }

    @Test("Japanese breaks between characters, never before closing punctuation, never inside an ASCII word")
    func japanese() {
        let text = "シナリオは 1000 回繰り返し、`iterations` の値だけ集計します。集計を読んでください。"
        let lines = wrap(text, width: 20)
        #expect(lines.allSatisfy { displayWidth($0) <= 20 })
        func withoutSpaces(_ s: String) -> String { s.replacingOccurrences(of: " ", with: "") }
        #expect(withoutSpaces(lines.joined()) == withoutSpaces(text))
        #expect(!lines.dropFirst().contains { $0.hasPrefix("、") || $0.hasPrefix("。") })
        #expect(lines.contains { $0.contains("`iterations`") })
    }

    @Test("code longer than a line is cut at a space, each piece in backticks")
    func longCode() {
        let lines = wrap("`DispatchQueue(label: \"com.example.importer\", qos: .utility, attributes: .initiallyInactive)` は", width: 40)
        #expect(lines.allSatisfy { displayWidth($0) <= 40 })
        #expect(lines.allSatisfy { $0.filter { $0 == "`" }.count % 2 == 0 })
    }

    @Test("a scenario's sentence wraps each of its lines with that line's indent")
    func sayKeepsIndents() {
        let printed = Locked<[String]>([])
        let context = ScenarioContext(language: .en, seed: 1, knobs: [:], terminal: Terminal(usesColor: false, usesUnicode: true, width: 30),
                                      output: { text in printed.withLock { $0.append(text) } })
        context.say(Localized("  first part of a sentence that is long enough to wrap\n  second line", ja: "-"))
        let lines = printed.current.joined(separator: "\n").split(separator: "\n")
        #expect(lines.count >= 3)
        #expect(lines.allSatisfy { $0.hasPrefix("  ") && displayWidth(String($0)) <= 30 })
    }

    @Test("a short group such as (a, x) and a number with its unit stay on one line")
    func groupsStayTogether() {
        let text = "pairs: (, )@0ms, (a, )@10ms, (a, x)@20ms, (a, x)@30ms, at 20 ms and 30 ms, (ab, x)@50ms"
        for width in 20...40 {
            let lines = wrap(text, prefix: "  Seen: ", width: width)
            #expect(lines.allSatisfy { displayWidth($0) <= width }, "\(width): \(lines)")
            #expect(!lines.contains { $0.hasSuffix("(a,") || $0.hasSuffix(" 20") || $0.hasSuffix(" 30") }, "\(width): \(lines)")
        }
    }

    @Test("a Japanese paragraph does not end on a line of one or two characters")
    func noOrphan() {
        let lines = wrap("網羅探索で見つけたスケジュール、プリエンプション 0 回（⟲）、一度に 1 ジョブずつ:", prefix: "  ", width: 80)
        #expect(lines.count == 2)
        #expect(displayWidth(lines[1].trimmingCharacters(in: .whitespaces)) > 4, "\(lines)")
        #expect(lines.allSatisfy { displayWidth($0) <= 80 })
    }

    @Test("with keepsLongTokens a command longer than a line stays whole, on a line of its own")
    func longTokensKept() {
        let command = "`swift run exercise-runner CombineLatest.keepsRepeats --replay 3:w1d:0x2,1,2x5,0,1x5,0x4,2,0,1x13,0x9`"
        let lines = wrap("This schedule alone, after an edit: \(command), or not.", prefix: "  ", width: 60, keepsLongTokens: true)
        #expect(lines.contains { $0.contains(command) })
        #expect(lines.filter { displayWidth($0) > 60 }.count == 1)
    }

    @Test("paragraphs get a hanging indent as wide as the label")
    func hangingIndent() {
        let lines = wrapParagraphs("直前に送ったペアと等しいペアは、もう一度は送らない（すでにあるのと同じ文字列がフィールドに入った場合）。", prefix: "  ルール: ", width: 50)
        #expect(lines.count >= 2)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 10)) && !$0.hasPrefix(String(repeating: " ", count: 11)) })
        #expect(lines.allSatisfy { displayWidth($0) <= 50 })
    }

    @Test("Japanese loses the spaces left beside a full-width bracket, and keeps the others")
    func japaneseSpacing() {
        #expect(tidyJapaneseSpacing("子プロセスは SIGILL（不正命令: Swift ランタイムのトラップ） で終了しました。") == "子プロセスは SIGILL（不正命令: Swift ランタイムのトラップ）で終了しました。")
        #expect(tidyJapaneseSpacing("実行していたのは 「ソースが 1、2 を渡す」") == "実行していたのは「ソースが 1、2 を渡す」")
        #expect(tidyJapaneseSpacing("フラグ オフ、タスク  結果、（実行） A") == "フラグ オフ、タスク  結果、（実行） A")
        let printed = Locked<[String]>([])
        let context = ScenarioContext(language: .ja, seed: 1, knobs: [:], terminal: Terminal(usesColor: false, usesUnicode: true, width: 200),
                                      output: { text in printed.withLock { $0.append(text) } })
        context.say(Localized("-", ja: "  子プロセスは \(describeSignal(4).ja) で終了しました。"))
        #expect(printed.current == ["  子プロセスは SIGILL（不正命令: Swift ランタイムまたは libdispatch のトラップ）で終了しました。"])
    }

    @Test("a typed line loses escape sequences and control characters")
    func inputLine() {
        #expect(InputLine("\u{1B}[A").hadEscapeSequence && InputLine("\u{1B}[A").isBlank)
        #expect(InputLine("\u{1B}OB").isBlank)
        #expect(InputLine("\u{1B}[1;5D\u{1B}[3~").isBlank)
        #expect(InputLine("\u{1B}[Dlist").text == "list")
        #expect(InputLine("\u{0C}run 3").text == "run 3")
        #expect(!InputLine("\u{0C}run 3").hadEscapeSequence)
        #expect(InputLine("run\t3\r").text == "run 3")
        #expect(InputLine("予想 A").text == "予想 A")
    }
}
