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
}
