import Foundation

/// The languages every learner-facing word exists in.
public enum Language: String, Sendable, CaseIterable {
    case en, ja

    /// `ja` when `LANG` (or `LC_ALL`, `LC_MESSAGES`) starts with `ja`, otherwise `en`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Language {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            return value.lowercased().hasPrefix("ja") ? .ja : .en
        }
        return .en
    }
}

/// A learner-facing string in English and Japanese.
///
/// Keeping both languages side by side in one value means a string cannot exist in one
/// language only: the type has no initializer that takes just one.
public struct Localized: Sendable, Hashable {
    public let en: String
    public let ja: String

    public init(_ en: String, ja: String) {
        self.en = en
        self.ja = ja
    }

    public func text(_ language: Language) -> String {
        switch language {
        case .en: en
        case .ja: ja
        }
    }

    /// Both languages with `{name}` placeholders filled in.
    public func with(_ values: [String: String]) -> Localized {
        func fill(_ s: String) -> String {
            values.reduce(s) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
        }
        return Localized(fill(en), ja: fill(ja))
    }

    /// The same text in both languages (numbers, code, names).
    public static func verbatim(_ s: String) -> Localized { Localized(s, ja: s) }
}

extension Localized {
    /// "1st", "2nd", "3rd", "11th" … / "1 回目" ….
    public static func ordinal(_ number: Int) -> Localized {
        let suffix = (11...13).contains(number % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][number % 10] ?? "th"
        return Localized("\(number)\(suffix)", ja: "\(number) 回目")
    }
}
