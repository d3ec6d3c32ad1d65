/// A schedule written down: the index chosen from the ready list at every step, and the build
/// configuration it was found in.
///
/// Text form: `w1d:` (debug) or `w1r:` (release), then the choices, with runs written `0x12`
/// (twelve zeros), e.g. `w1d:0x5,1,0x3,2`. The same code, built the same way, and the same
/// token give the same schedule. An optimized build runs the same body in far fewer steps (68
/// against 9 were measured for one body), so a token from the other configuration would
/// silently replay a different schedule: it is refused with a message instead.
public struct ReplayToken: Sendable, Equatable, CustomStringConvertible {
    public enum Configuration: String, Sendable {
        case debug = "d", release = "r"
        /// The configuration this code was built in.
        public static var current: Configuration {
            #if DEBUG
            .debug
            #else
            .release
            #endif
        }
        public var name: String { self == .debug ? "debug" : "release" }
    }

    public enum ParseError: Error, Equatable, Sendable {
        /// Not a token at all.
        case malformed
        /// A token found in the other build configuration.
        case otherConfiguration(Configuration)
    }

    public let choices: [Int]
    public let configuration: Configuration

    public init(choices: [Int], configuration: Configuration = .current) {
        self.choices = choices
        self.configuration = configuration
    }

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
        return "w1\(configuration.rawValue):" + runs.joined(separator: ",")
    }

    /// Parses the text form; nil if it is not a token, or one from the other configuration.
    public init?(_ text: String) {
        guard case let .success(token) = Self.parse(text) else { return nil }
        self = token
    }

    /// Parses the text form, saying why a text is refused.
    public static func parse(_ text: String) -> Result<ReplayToken, ParseError> {
        guard text.count >= 4, text.hasPrefix("w1"), text.dropFirst(3).first == ":",
              let configuration = Configuration(rawValue: String(text.dropFirst(2).prefix(1))) else { return .failure(.malformed) }
        let body = text.dropFirst(4)
        var choices: [Int] = []
        if !body.isEmpty {
            for run in body.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = run.split(separator: "x", omittingEmptySubsequences: false)
                guard parts.count <= 2, let value = Int(parts[0]), value >= 0 else { return .failure(.malformed) }
                let count = parts.count == 2 ? Int(parts[1]) : 1
                guard let count, count > 0, count <= 1_000_000 else { return .failure(.malformed) }
                choices += Array(repeating: value, count: count)
            }
        }
        guard configuration == .current else { return .failure(.otherConfiguration(configuration)) }
        return .success(ReplayToken(choices: choices, configuration: configuration))
    }
}
