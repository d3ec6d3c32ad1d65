/// What starts the lines in which the Swift runtime, Foundation or libdispatch say why they
/// stopped a program (or, for a leaked continuation, what went wrong): a report shows those lines
/// whole. Shared by the exercise verdicts and the chapter programs' `replay`.
public let swiftRuntimeMessageMarkers = [
    "Fatal error", "fatal error", "Precondition failed", "Assertion failed", "precondition failure",
    "SWIFT TASK CONTINUATION MISUSE", "BUG IN CLIENT", "Unbalanced call", "API MISUSE",
    "operations finished, executing or already in a queue",
]
