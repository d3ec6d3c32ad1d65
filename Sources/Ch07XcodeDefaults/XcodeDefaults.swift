// This module is compiled as a new Xcode 26 app target is: every declaration without an isolation
// of its own is `@MainActor` (SE-0466, `-default-isolation MainActor`), and a `nonisolated async`
// function runs on its caller's actor (SE-0461, `NonisolatedNonsendingByDefault`). The package
// declares the target only for Swift 6.2 and later (Package.swift).

/// Where a function ran: the type of the actor `#isolation` named there (`MainActor`), or `nil`.
public nonisolated func placement(_ isolation: (any Actor)?) -> String {
    guard let isolation else { return "nil" }
    return String(describing: type(of: isolation))
}

/// No annotation: `@MainActor` in this module, like a view model in a new app.
public final class ProfileScreen {
    public private(set) var lines: [String] = []

    public init() {}

    /// Touches the screen's state without `await`: the class is on the main actor.
    public func show(_ line: String) {
        lines.append(line)
    }

    /// Loads a profile through both helpers below and says where each ran.
    public func reload() async -> (screen: String, nonsending: String, concurrent: String) {
        let screen = placement(#isolation)
        let nonsending = await decodeProfile()               // stays on the main actor
        let concurrent = await decodeProfileConcurrently()   // leaves it
        show("profile")
        return (screen, nonsending, concurrent)
    }
}

/// `nonisolated` and `async`: with `NonisolatedNonsendingByDefault` it runs on the caller's
/// actor — here, wherever it is called from.
public nonisolated func decodeProfile() async -> String {
    placement(#isolation)
}

/// `@concurrent`: always off any actor, as every `nonisolated async` function was before SE-0461.
@concurrent public nonisolated func decodeProfileConcurrently() async -> String {
    placement(#isolation)
}

/// The static rule for `Task {}` still holds: made in a `nonisolated` function, the task is not
/// on the main actor, whatever the module's default.
public nonisolated func startTaskFromNonisolatedCode() -> Task<String, Never> {
    Task { placement(#isolation) }
}

/// The same `Task {}` made in a function with no annotation, so on the main actor here.
public func startTaskFromDefaultCode() -> Task<String, Never> {
    Task { placement(#isolation) }
}
