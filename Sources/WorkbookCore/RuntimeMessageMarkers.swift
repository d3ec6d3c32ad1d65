/// What starts the lines in which the Swift runtime, Foundation or libdispatch say why they
/// stopped a program (or, for a leaked continuation, what went wrong): a report shows those lines
/// whole. Shared by the exercise verdicts and the chapter programs' `replay`.
public let swiftRuntimeMessageMarkers = [
    "Fatal error", "fatal error", "Precondition failed", "Assertion failed", "precondition failure",
    "SWIFT TASK CONTINUATION MISUSE", "BUG IN CLIENT", "Unbalanced call", "API MISUSE",
    "operations finished, executing or already in a queue",
]

/// The lines of `standardError` in which the Swift runtime reports a misused continuation —
/// `SWIFT TASK CONTINUATION MISUSE: … leaked its continuation …` or `… tried to resume its
/// continuation more than once …` — each once, in order.
public func continuationMisuseLines(_ standardError: String) -> [String] {
    var seen = Set<String>()
    return standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { $0.contains("SWIFT TASK CONTINUATION MISUSE") && seen.insert($0).inserted }
}
