import WorkbookExplorer
/// Counts how often each outcome of a racy experiment happened, jcstress style: every outcome
/// is declared acceptable, interesting or forbidden, and the table shows count, share and verdict.
///
/// A single run of racy code proves little; a tally over many runs shows what the rules allow
/// and how often the bad case really happens on this machine.
public struct OutcomeTally: Sendable {
    public enum Verdict: Sendable, Equatable {
        /// Allowed by the rules and expected.
        case acceptable
        /// Allowed, but worth a look (e.g. a rare interleaving).
        case interesting
        /// Must never happen: a bug.
        case forbidden

        var label: Localized {
            switch self {
            case .acceptable: Localized("acceptable", ja: "許容")
            case .interesting: Localized("interesting", ja: "注目")
            case .forbidden: Localized("FORBIDDEN", ja: "禁止")
            }
        }
    }

    private let classify: @Sendable (String) -> Verdict
    /// Outcomes in order of first appearance, with counts.
    public private(set) var outcomes: [(outcome: String, count: Int)] = []
    /// Outcomes recorded as forbidden whatever `classify` says (a deadlock, a livelock, a
    /// broken invariant: no rule allows them).
    private var alwaysForbidden: Set<String> = []

    public init(classify: @escaping @Sendable (String) -> Verdict) {
        self.classify = classify
    }

    /// Counts `outcome`; `forbidden` marks it so even if `classify` would allow it.
    public mutating func record(_ outcome: String, forbidden: Bool = false) {
        if forbidden { alwaysForbidden.insert(outcome) }
        if let index = outcomes.firstIndex(where: { $0.outcome == outcome }) {
            outcomes[index].count += 1
        } else {
            outcomes.append((outcome, 1))
        }
    }

    public var total: Int { outcomes.reduce(0) { $0 + $1.count } }

    public func verdict(of outcome: String) -> Verdict { alwaysForbidden.contains(outcome) ? .forbidden : classify(outcome) }

    public func count(of outcome: String) -> Int { outcomes.first { $0.outcome == outcome }?.count ?? 0 }

    /// How many runs ended in a forbidden outcome.
    public var forbiddenCount: Int { outcomes.filter { verdict(of: $0.outcome) == .forbidden }.reduce(0) { $0 + $1.count } }

    /// The table, most frequent outcome first, no wider than the terminal: the count, share and
    /// verdict columns take what they need, and an outcome longer than the room left is wrapped
    /// inside its column.
    public func render(terminal: Terminal, language: Language) -> String {
        let header = (Localized("outcome", ja: "結果").text(language), Localized("count", ja: "回数").text(language),
                      Localized("share", ja: "割合").text(language), Localized("verdict", ja: "判定").text(language))
        let rows = outcomes.sorted { $0.count > $1.count }
        // An outcome may be given in two languages (`BilingualLabel`).
        func shown(_ outcome: String) -> String { language == .ja ? BilingualLabel.japanese(outcome) : BilingualLabel.english(outcome) }
        let countWidth = max(displayWidth(header.1), String(total).count)
        let verdictWidth = max(displayWidth(header.3), rows.map { displayWidth(verdict(of: $0.outcome).label.text(language)) }.max() ?? 0)
        let room = max(12, terminal.width - (2 + 2 + countWidth + 2 + 7 + 2 + verdictWidth))
        let outcomeWidth = max(displayWidth(header.0), min(room, rows.map { displayWidth(shown($0.outcome)) }.max() ?? 0))
        var lines = ["  " + padded(header.0, to: outcomeWidth) + "  " + padded(header.1, to: countWidth) + "  " + padded(header.2, to: 7) + "  " + header.3]
        for row in rows {
            let verdict = verdict(of: row.outcome)
            let share = total == 0 ? 0 : Double(row.count) * 100 / Double(total)
            let shareText = share > 0 && share < 0.1 ? "<0.1%" : String(format: "%.1f%%", share)
            var verdictText = verdict.label.text(language)
            switch verdict {
            case .acceptable: verdictText = terminal.paint(verdictText, .green)
            case .interesting: verdictText = terminal.paint(verdictText, .yellow)
            case .forbidden: verdictText = terminal.paint(verdictText, .red)
            }
            let countText = String(repeating: " ", count: max(0, countWidth - String(row.count).count)) + String(row.count)
            let outcome = wrap(shown(row.outcome), width: outcomeWidth)
            lines.append("  " + padded(outcome[0], to: outcomeWidth) + "  " + countText + "  " + padded(shareText, to: 7) + "  " + verdictText)
            lines += outcome.dropFirst().map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
