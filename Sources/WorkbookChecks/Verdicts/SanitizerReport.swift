import Foundation
import WorkbookCore

/// The first ThreadSanitizer report in a run's standard error, reduced to what a learner needs:
/// the kind of bug and, for each of the two accesses, the place in the learner's file.
///
/// TSan prints, between lines of `=`:
/// ```text
/// WARNING: ThreadSanitizer: Swift access race (pid=3612)
///   Read of size 8 at 0x7208… by thread T2:
///     #0 $s9Exercises11SafeCounterC5count… /…/exercises/Exercises/01-gcd/SafeCounter.swift:15:15 (exercise-runner+0x…)
///     #1 …
///   Previous modifying access of Swift variable at 0x7208… by thread T1:
///     #0 … /…/SafeCounter.swift (exercise-runner+0x…)          ← a frame may lack its line
/// ```
public struct SanitizerReport: Sendable, Equatable {
    public struct Access: Sendable, Equatable {
        /// `Read`, `Write`, `Previous modifying access of Swift variable`, … as TSan says it.
        public let description: String
        public let isWrite: Bool
        public let thread: String
        /// The learner's innermost frame with a line, else their innermost frame.
        public let place: Place?
        /// Made in a closure, and TSan gave no line for it.
        var isClosure: Bool { place.map { $0.line == nil && $0.function.hasPrefix("closure in ") } ?? false }
    }

    public struct Place: Sendable, Equatable {
        /// Relative to the package: `exercises/Exercises/01-gcd/SafeCounter.swift`.
        public let file: String
        public let line: Int?
        /// Demangled and shortened: `SafeCounter.count(of:)`, `closure in SafeCounter.increment(_:)`.
        public let function: String
    }

    /// TSan's words after `ThreadSanitizer:` — `data race`, `Swift access race`, `heap-use-after-free`, …
    public let kind: String
    public let accesses: [Access]
    /// Every learner frame in the report, innermost first, for reports that are not races.
    public let learnerPlaces: [Place]
    /// Where the memory raced on was made, when the learner's code made it ("Location is heap
    /// block … allocated by thread T4:" and its frames).
    public var allocation: Place? = nil
    /// Names TSan gives threads (`thread T5` → `caller`), where a thread was named after a task
    /// (the explorer's lanes); other threads' names (the program's, a lane's own) are left out.
    public var threadNames: [String: String] = [:]

    public var isDataRace: Bool { kind.contains("race") }

    /// Finds the first report; nil when there is none.
    public static func first(in standardError: String, learnerFolder: String = "exercises/Exercises/") -> SanitizerReport? {
        let lines = standardError.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("WARNING: ThreadSanitizer:") }) else { return nil }
        var kind = String(lines[start].dropFirst("WARNING: ThreadSanitizer:".count)).trimmingCharacters(in: .whitespaces)
        if let pid = kind.range(of: " (pid=") { kind = String(kind[..<pid.lowerBound]) }

        var accesses: [Access] = []
        var allPlaces: [Place] = []
        var current: (description: String, thread: String, frames: [Place])?
        var allocation: Place?
        var inAllocation = false
        var threadNames: [String: String] = [:]
        func closeAccess() {
            guard let open = current else { return }
            let place = open.frames.first { $0.line != nil } ?? open.frames.first
            let lowered = open.description.lowercased()
            accesses.append(Access(description: open.description,
                                   isWrite: lowered.contains("write") || lowered.contains("modifying"),
                                   thread: open.thread, place: place))
            current = nil
        }
        for line in lines[(start + 1)...] {
            if line.hasPrefix("====") || line.hasPrefix("SUMMARY:") { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  ") && !line.hasPrefix("    ") {
                closeAccess()
                inAllocation = trimmed.hasPrefix("Location is heap block")
                // "Thread T5 'caller' (tid=26274, running) created by thread T3 at:"
                if trimmed.hasPrefix("Thread T"), let open = trimmed.firstIndex(of: "'"),
                   let close = trimmed[trimmed.index(after: open)...].firstIndex(of: "'") {
                    let id = trimmed.dropFirst("Thread ".count).prefix { $0 != " " }
                    let name = String(trimmed[trimmed.index(after: open)..<close])
                    // Not libdispatch's pool threads ("com.apple.root.default-qos.overcommit",
                    // which TSan shows cut to its last 15 characters: "-qos.overcommit").
                    let poolThread = name.hasPrefix("com.apple.") || name.contains("-qos")
                    if !name.isEmpty, !poolThread, !name.contains("runner"), !name.hasPrefix("explorer-") { threadNames["thread \(id)"] = name }
                }
                // "Read of size 8 at 0x… by thread T2:" / "Previous write of size 8 at … by main thread:"
                if let by = trimmed.range(of: " by "), trimmed.hasSuffix(":"),
                   trimmed.contains(" at 0x") || trimmed.contains("access"),
                   !trimmed.hasPrefix("Location is"), !trimmed.hasPrefix("Thread ") && !trimmed.hasPrefix("Mutex ") {
                    let what = String(trimmed[..<(trimmed.range(of: " at 0x")?.lowerBound ?? by.lowerBound)])
                    var thread = String(trimmed[by.upperBound...].dropLast())
                    if let paren = thread.range(of: " (") { thread = String(thread[..<paren.lowerBound]) }
                    current = (what, thread, [])
                }
                continue
            }
            guard trimmed.hasPrefix("#"), let place = place(inFrame: trimmed, learnerFolder: learnerFolder) else { continue }
            if inAllocation {
                if allocation == nil, place.line != nil { allocation = place }
                continue
            }
            allPlaces.append(place)
            current?.frames.append(place)
        }
        closeAccess()
        return SanitizerReport(kind: kind, accesses: accesses, learnerPlaces: allPlaces, allocation: allocation, threadNames: threadNames)
    }

    /// `#0 $s9Exercises…F /path/exercises/Exercises/01-gcd/X.swift:15:15 (exercise-runner+0x…)` → a place.
    static func place(inFrame frame: String, learnerFolder: String) -> Place? {
        let parts = frame.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, let folder = parts[2].range(of: learnerFolder) else { return nil }
        var location = String(parts[2][parts[2].index(folder.lowerBound, offsetBy: 0)...])
        if let module = location.range(of: " (") { location = String(location[..<module.lowerBound]) }
        let pieces = location.split(separator: ":").map(String.init)
        return Place(file: pieces[0], line: pieces.count > 1 ? Int(pieces[1]) : nil, function: readableFunction(parts[1]))
    }

    /// `$s9Exercises11SafeCounterC5count2ofSiSS_tF` → `SafeCounter.count(of:)`.
    static func readableFunction(_ symbol: String) -> String {
        var name = demangle(symbol) ?? symbol
        // "closure #1 () -> () in Exercises.SafeCounter.increment(Swift.String) -> ()"
        for module in ["Exercises.", "Solutions.", "ExerciseKit.", "Swift.", "Foundation.", "Dispatch."] {
            name = name.replacingOccurrences(of: module, with: "")
        }
        // An async function's pieces: "(1) suspend resume partial function for closure #1 …".
        name = name.replacingOccurrences(of: #"^\(\d+\) (suspend|await) resume partial function for "#, with: "", options: .regularExpression)
        name = name.replacingOccurrences(of: #"closure #\d+ .*? in "#, with: "closure in ", options: .regularExpression)
        while name.contains("closure in closure in ") { name = name.replacingOccurrences(of: "closure in closure in ", with: "closure in ") }
        if let arrow = name.range(of: " -> ", options: .backwards), !name[arrow.upperBound...].contains("(") || name.hasSuffix("()") {
            name = String(name[..<arrow.lowerBound])
        }
        for effect in [" async throws", " throws", " async"] where name.hasSuffix(effect) { name.removeLast(effect.count) }
        return name
    }
}

@_silgen_name("swift_demangle")
private func swiftDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                           _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// The Swift runtime's own demangler.
func demangle(_ symbol: String) -> String? {
    symbol.withCString { pointer -> String? in
        guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return nil }
        defer { free(result) }
        return String(cString: result)
    }
}
