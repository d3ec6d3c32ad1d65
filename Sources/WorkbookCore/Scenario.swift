/// One runnable lesson of a chapter: narration, knobs to tweak, an optional prediction, and a
/// body that records what happened into a `Trace`.
public struct Scenario: Sendable {
    /// A number the learner can tweak with `run N name=value`.
    public struct Knob: Sendable {
        public let name: String
        public let defaultValue: Int
        public let range: ClosedRange<Int>
        public let help: Localized

        public init(_ name: String, default defaultValue: Int, range: ClosedRange<Int>, help: Localized) {
            precondition(range.contains(defaultValue), "knob \(name): default outside its range")
            self.name = name
            self.defaultValue = defaultValue
            self.range = range
            self.help = help
        }
    }

    /// A question the learner answers before the run (`predict N`); the run then says whether
    /// the answer matched what happened, and why.
    public struct Prediction: Sendable {
        public let question: Localized
        /// What this run answered, read from the run (by default: the emitted labels, joined).
        public let observe: @Sendable (ScenarioContext) -> String
        /// Whether an answer is an outcome the rules allow, even if this run showed another; it
        /// may depend on the run's knobs (how many threads were started, say).
        private let possible: @Sendable (String, ScenarioContext) -> Bool
        public let explanation: Localized
        /// The answer is a set of letters (which tasks saw it), not an order: `TGA` matches `AGT`.
        public var ignoresOrder = false

        public init(
            question: Localized,
            explanation: Localized,
            observe: @escaping @Sendable (ScenarioContext) -> String = { $0.emitted.joined() },
            ignoresOrder: Bool = false,
            isPossible: @escaping @Sendable (String) -> Bool
        ) {
            self.init(question: question, explanation: explanation, observe: observe, isPossibleAfter: { answer, _ in isPossible(answer) })
            self.ignoresOrder = ignoresOrder
        }

        /// For a question whose possible answers depend on the run's knobs.
        public init(
            question: Localized,
            explanation: Localized,
            observe: @escaping @Sendable (ScenarioContext) -> String = { $0.emitted.joined() },
            isPossibleAfter: @escaping @Sendable (_ answer: String, _ run: ScenarioContext) -> Bool
        ) {
            self.question = question
            self.observe = observe
            self.possible = isPossibleAfter
            self.explanation = explanation
        }

        /// The letters a question offers as `A) … B) …`, if it offers them.
        public var offeredLetters: [Character] {
            let marked = question.en.split(separator: " ").compactMap { word -> Character? in
                word.count == 2 && word.last == ")" && word.first!.isUppercase && word.first!.isASCII ? word.first : nil
            }
            return marked.count >= 2 ? marked : []
        }

        /// Why a normalized answer is not one to compare with a run: empty, or with a letter
        /// the question does not offer. Nil for an answer worth running.
        public func problem(with guess: String) -> Localized? {
            if guess.isEmpty { return Localized("No answer given.", ja: "答えが入力されていません。") }
            let offered = offeredLetters
            guard !offered.isEmpty, let stray = guess.first(where: { !offered.contains($0) }) else { return nil }
            let list = offered.map(String.init).joined(separator: ", ")
            return Localized("\(stray) is not one of the answers offered (\(list)).", ja: "\(stray) は選択肢（\(list)）にありません。")
        }

        /// Whether `answer` is allowed by the rules for `run` (its knobs), whatever `run` showed.
        public func isPossible(_ answer: String, after run: ScenarioContext) -> Bool { possible(answer, run) }

        /// Upper-cased, without spaces, commas, arrows or dashes: `a, b -> c` becomes `ABC`;
        /// full-width letters typed with a Japanese input method count as the same letters (`ＡＢ`).
        public static func normalize(_ answer: String) -> String {
            let halfWidth = String(String.UnicodeScalarView(answer.unicodeScalars.map { scalar in
                (0xFF01...0xFF5E).contains(scalar.value) ? Unicode.Scalar(scalar.value - 0xFEE0)! : scalar
            }))
            return halfWidth.uppercased().filter { !" ,->→、，　".contains($0) }
        }

        /// Whether `guess` says the same as `observed` (normalized answers).
        public func matches(_ guess: String, _ observed: String) -> Bool {
            guess == observed || (ignoresOrder && guess.sorted() == observed.sorted())
        }
    }

    public let slug: String
    public let title: Localized
    public let narration: Localized
    public let knobs: [Knob]
    public let prediction: Prediction?
    public let run: @Sendable (ScenarioContext) async throws -> Void

    public init(
        slug: String,
        title: Localized,
        narration: Localized,
        knobs: [Knob] = [],
        prediction: Prediction? = nil,
        run: @escaping @Sendable (ScenarioContext) async throws -> Void
    ) {
        self.slug = slug
        self.title = title
        self.narration = narration
        self.knobs = knobs
        self.prediction = prediction
        self.run = run
    }

    /// The knob values for a run: defaults overridden by `name=value` pairs.
    public func knobValues(_ overrides: [String: Int]) throws(KnobError) -> [String: Int] {
        var values = Dictionary(uniqueKeysWithValues: knobs.map { ($0.name, $0.defaultValue) })
        for (name, value) in overrides {
            guard let knob = knobs.first(where: { $0.name == name }) else {
                throw .unknown(name: name, known: knobs.map(\.name))
            }
            guard knob.range.contains(value) else { throw .outOfRange(knob: knob, value: value) }
            values[name] = value
        }
        return values
    }
}

public enum KnobError: Error, Equatable {
    case unknown(name: String, known: [String])
    case outOfRange(knob: String, value: Int, range: ClosedRange<Int>)
    case malformed(String)

    static func outOfRange(knob: Scenario.Knob, value: Int) -> KnobError {
        .outOfRange(knob: knob.name, value: value, range: knob.range)
    }

    public var message: Localized {
        switch self {
        case let .unknown(name, known) where known.isEmpty:
            return Localized("unknown knob '\(name)': this scenario has no knobs", ja: "不明なパラメータ '\(name)': このシナリオにはパラメータがありません")
        case let .unknown(name, known):
            let list = known.joined(separator: ", ")
            return Localized("unknown knob '\(name)' (knobs: \(list))", ja: "不明なパラメータ '\(name)'（パラメータ: \(list)）")
        case let .outOfRange(knob, value, range):
            return Localized(
                "\(knob)=\(value) is outside \(range.lowerBound)...\(range.upperBound)",
                ja: "\(knob)=\(value) は範囲 \(range.lowerBound)...\(range.upperBound) の外です")
        case let .malformed(text):
            return Localized("'\(text)' is not name=number", ja: "'\(text)' は「名前=数値」の形ではありません")
        }
    }
}

/// What a scenario's body gets: the trace to record into, the knob values, the seed, and a way
/// to talk to the learner in their language.
public final class ScenarioContext: Sendable {
    public let trace: Trace
    public let language: Language
    public let seed: UInt64
    /// What the learner's terminal can show (for tables and timelines a scenario draws itself).
    public let terminal: Terminal
    private let knobs: [String: Int]
    private let output: @Sendable (String) -> Void
    private let emittedLabels = Locked<[String]>([])
    private let notes = Locked<[String: String]>([:])

    public init(trace: Trace = Trace(), language: Language, seed: UInt64, knobs: [String: Int], terminal: Terminal = .plain,
                output: @escaping @Sendable (String) -> Void) {
        self.trace = trace
        self.terminal = terminal
        self.language = language
        self.seed = seed
        self.knobs = knobs
        self.output = output
    }

    /// The value of a declared knob.
    public func knob(_ name: String) -> Int {
        guard let value = knobs[name] else { preconditionFailure("scenario reads undeclared knob \(name)") }
        return value
    }

    /// Prints a sentence in the learner's language, wrapped to the terminal (an indented line
    /// keeps its indent on every line).
    ///
    /// Japanese loses the spaces a sentence built from pieces leaves beside a full-width bracket
    /// (`tidyJapaneseSpacing`).
    public func say(_ text: Localized) {
        let said = language == .ja ? tidyJapaneseSpacing(text.ja) : text.en
        let lines = said.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            let indent = String(line.prefix { $0 == " " })
            return wrap(String(line.dropFirst(indent.count)), prefix: indent, width: terminal.width)
        }
        output(lines.joined(separator: "\n"))
    }

    /// Prints a line as it is (numbers, tables).
    public func show(_ line: String) { output(line) }

    /// `text` in the learner's language, for building a line, a label or a lane name.
    public func text(_ text: Localized) -> String { text.text(language) }

    /// Prints a line of another program's output (a crash report, a runtime error) word for word,
    /// behind a quote bar: it stays in the language that program spoke.
    public func quote(_ line: String) { output("    " + (terminal.usesUnicode ? "│ " : "| ") + line) }

    /// "Prints" a label the way the lesson's code would, e.g. the letter `A`: it is shown with its
    /// lane, recorded on the trace, and kept for the prediction.
    public func emit(_ label: String, lane: String? = nil) { emit(.verbatim(label), lane: lane) }

    /// "Prints" a line in words, in the learner's language; the prediction and the trace's
    /// queries see its English.
    public func emit(_ label: Localized, lane: String? = nil) {
        let lane = lane ?? trace.currentThreadLane()
        trace.record(label, lane: lane)
        emittedLabels.withLock { $0.append(label.en) }
        output("  \(lane): \(label.text(language))")
    }

    /// The emitted labels in order.
    public var emitted: [String] { emittedLabels.current }

    /// Remembers a value for the prediction to read (e.g. a counter's final value).
    public func note(_ key: String, _ value: String) { notes.withLock { $0[key] = value } }

    public func noted(_ key: String) -> String? { notes.withLock { $0[key] } }
}
