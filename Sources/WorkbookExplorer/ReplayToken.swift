/// A schedule written down: the index chosen from the ready list at every step.
///
/// Text form: `w1:` then the choices, with runs written `0x12` (twelve zeros), e.g.
/// `w1:0x5,1,0x3,2`. The same code and the same token give the same schedule.
public struct ReplayToken: Sendable, Equatable, CustomStringConvertible {
    public let choices: [Int]

    public init(choices: [Int]) { self.choices = choices }

    public var description: String {
        var runs: [String] = []
        var index = 0
        while index < choices.count {
            var end = index
            while end + 1 < choices.count && choices[end + 1] == choices[index] { end += 1 }
            let length = end - index + 1
            runs.append(length > 1 ? "\(choices[index])x\(length)" : "\(choices[index])")
            index = end + 1
        }
        return "w1:" + runs.joined(separator: ",")
    }

    /// Parses the text form; nil if it is not a token.
    public init?(_ text: String) {
        guard text.hasPrefix("w1:") else { return nil }
        let body = text.dropFirst(3)
        var choices: [Int] = []
        if !body.isEmpty {
            for run in body.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = run.split(separator: "x", omittingEmptySubsequences: false)
                guard parts.count <= 2, let value = Int(parts[0]), value >= 0 else { return nil }
                let count = parts.count == 2 ? Int(parts[1]) : 1
                guard let count, count > 0, count <= 1_000_000 else { return nil }
                choices += Array(repeating: value, count: count)
            }
        }
        self.choices = choices
    }
}
