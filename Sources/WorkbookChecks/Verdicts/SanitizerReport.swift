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
/// That is Linux, where llvm-symbolizer gives a symbol and an absolute path. On Apple platforms
/// `atos` gives a demangled name (with spaces) and a bare file name, its line if it has one:
/// ```text
///     #0 closure #1 in SafeCounter.increment(_:) SafeCounter.swift:9 (exercise-runner:arm64+0x…)
///     #1 partial apply for closure #1 in SafeCounter.increment(_:) <compiler-generated> (exercise-runner:arm64+0x…)
/// ```
/// Both are read (`Frame`); a bare name is the learner's when `LearnerFiles` knows it.
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

    /// Finds the first report; nil when there is none. `learnerFiles` names the learner's files
    /// for frames that give only a file's bare name (Apple platforms).
    public static func first(in standardError: String, learnerFolder: String = "exercises/Exercises/",
                             learnerFiles: LearnerFiles = LearnerFiles([])) -> SanitizerReport? {
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
            guard trimmed.hasPrefix("#"), let place = Frame(trimmed)?.place(learnerFolder: learnerFolder, learnerFiles: learnerFiles) else { continue }
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

    /// `$s9Exercises11SafeCounterC5count2ofSiSS_tF` → `SafeCounter.count(of:)`. The same for what
    /// `atos` prints (`closure #1 in SafeCounter.increment(_:)`) and for the full demangled form
    /// (`closure #1 () -> () in Exercises.SafeCounter.increment(Swift.String) -> ()`): the
    /// function's name with its argument labels, as Swift writes a function's name.
    static func readableFunction(_ symbol: String) -> String {
        var name = demangle(symbol) ?? symbol
        let modules = #"\b(Exercises|Solutions|CheckerVariants|ExerciseKit|Swift|Foundation|Dispatch|__C)\."#
        name = name.replacingOccurrences(of: modules, with: "", options: .regularExpression)
        name = name.replacingOccurrences(of: #"\(extension in [^)]*\):"#, with: "", options: .regularExpression)
        // Thunks around the learner's function, and an async function's pieces:
        // "(1) suspend resume partial function for closure #1 …".
        for prefix in [#"^\(\d+\) (suspend|await) resume partial function for "#, "^partial apply (forwarder )?for ",
                       "^specialized ", "^merged ", "^@objc "] {
            name = name.replacingOccurrences(of: prefix, with: "", options: .regularExpression)
        }
        // "closure #1 @Sendable () -> () in …", "implicit closure #2 in closure #1 in …" → "closure in …".
        name = name.replacingOccurrences(of: #"(implicit )?closure #\d+ (.*? )?in "#, with: "closure in ", options: .regularExpression)
        while name.contains("closure in closure in ") { name = name.replacingOccurrences(of: "closure in closure in ", with: "closure in ") }
        // The result type (" -> …") and an accessor's type (".getter : Int"), outside brackets.
        if let end = topLevel([" -> ", " : "], in: name) { name = String(name[..<end]) }
        for effect in [" async throws", " throws", " async"] where name.hasSuffix(effect) { name.removeLast(effect.count) }
        return selectorForm(name)
    }

    /// The first of `separators` outside (), <> and [] in `text`.
    private static func topLevel(_ separators: [String], in text: String) -> String.Index? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if depth == 0, separators.contains(where: { rest.hasPrefix($0) }) { return index }
            if rest.hasPrefix("->") { index = text.index(index, offsetBy: 2); continue }
            switch text[index] {
            case "(", "<", "[": depth += 1
            case ")", ">", "]": depth = max(0, depth - 1)
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `SafeCounter.count(of: String)` → `SafeCounter.count(of:)`, `increment(String)` →
    /// `increment(_:)`, `fetchAll<A>(_:)` → `fetchAll(_:)`; a name already so is kept.
    private static func selectorForm(_ name: String) -> String {
        guard name.hasSuffix(")"), let open = matchingOpen(in: name, closingAt: name.index(before: name.endIndex)),
              open > name.startIndex, name[name.index(before: open)] != " " else { return name }
        let inside = name[name.index(after: open)..<name.index(before: name.endIndex)]
        var head = name[..<open]
        // A generic function's parameter clause: `fetchAll<A where A: Sequence>` → `fetchAll`.
        if head.hasSuffix(">"), let angle = matchingOpen(in: String(head), closingAt: head.index(before: head.endIndex)) {
            head = head[..<angle]
        }
        if inside.isEmpty || (!inside.contains(" ") && inside.hasSuffix(":")) { return "\(head)(\(inside))" }
        var labels = ""
        var depth = 0
        var parameter = ""
        func close() {
            let trimmed = parameter.trimmingCharacters(in: .whitespaces)
            let label = trimmed.range(of: #"^[A-Za-z_][A-Za-z0-9_]*: "#, options: .regularExpression).map { String(trimmed[$0].dropLast(2)) }
            labels += (label ?? "_") + ":"
            parameter = ""
        }
        var previous: Character = " "
        for character in inside {
            switch character {
            case "(", "<", "[": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            case "," where depth == 0: close(); previous = character; continue
            default: break
            }
            parameter.append(character)
            previous = character
        }
        close()
        return "\(head)(\(labels))"
    }

    /// The index of the bracket that `closing` (a `)` or `>`) closes.
    private static func matchingOpen(in text: String, closingAt closing: String.Index) -> String.Index? {
        let pairs: [Character: Character] = [")": "(", ">": "<", "]": "["]
        var stack: [Character] = []
        var index = closing
        while true {
            let character = text[index]
            let isArrowHead = character == ">" && index > text.startIndex && text[text.index(before: index)] == "-"
            if !isArrowHead, pairs[character] != nil {
                stack.append(pairs[character]!)
            } else if let last = stack.last, character == last {
                stack.removeLast()
                if stack.isEmpty { return index }
            }
            guard index > text.startIndex else { return nil }
            index = text.index(before: index)
        }
    }
}

/// The package-relative paths of the learner's files, found by the bare file name `atos` gives
/// (Apple platforms). A Swift module cannot hold two files of one name, so within the learner's
/// folder a name is one file.
public struct LearnerFiles: Sendable {
    private var byName: [String: String]

    public init(_ paths: [String]) {
        // The first path given for a name wins.
        byName = Dictionary(paths.map { (($0 as NSString).lastPathComponent, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every `.swift` file under `folder` (`exercises/Exercises/`) of the package, `first` (the
    /// exercise's own file) winning a name.
    public static func under(_ folder: String, packageRoot: URL, first: String? = nil) -> LearnerFiles {
        let root = packageRoot.appendingPathComponent(folder)
        let found = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted().map { folder + $0 } ?? []
        return LearnerFiles((first.map { [$0] } ?? []) + found)
    }

    /// These and `path` (the exercise's file), which wins its name.
    func adding(_ path: String?) -> LearnerFiles {
        guard let path else { return self }
        var copy = self
        copy.byName[(path as NSString).lastPathComponent] = path
        return copy
    }

    /// `SafeCounter.swift` → `exercises/Exercises/01-gcd/SafeCounter.swift`.
    public func path(named name: String) -> String? { byName[name] }
}

/// One frame of a ThreadSanitizer report, in either symbolizer's format.
struct Frame: Equatable {
    /// The symbol as printed: mangled (Linux) or demangled with spaces (`atos`).
    let symbol: String
    /// An absolute path (Linux), a bare file name (`atos`), `<null>` or `<compiler-generated>`.
    let file: String
    let line: Int?
    let column: Int?
}

extension Frame {
    /// `#0 $s9Exercises…F /w/exercises/Exercises/01-gcd/X.swift:15:15 (exercise-runner+0x…) (BuildId: …)`
    /// `#0 closure #1 in X.f(_:) X.swift:9 (exercise-runner:arm64+0x…)`
    init?(_ line: String) {
        guard line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { return nil }
        var text = line[line.index(after: space)...].trimmingCharacters(in: .whitespaces)
        // The module and offset ("(exercise-runner+0x…)", "(libdispatch.dylib:arm64e+0x…)",
        // "(0x0001b16b7e50)"), and a build id after them.
        let tail = #" \((BuildId: [0-9a-fA-F]+|[^()\s]*0x[0-9a-fA-F]+)\)$"#
        while let range = text.range(of: tail, options: .regularExpression) { text = String(text[..<range.lowerBound]) }
        let location: Substring
        let symbol: Substring
        if let path = text.range(of: " /") {
            // llvm-symbolizer: the symbol has no spaces, the path may.
            symbol = text[..<path.lowerBound]
            location = text[text.index(after: path.lowerBound)...]
        } else if let last = text.lastIndex(of: " ") {
            // atos: the name has spaces, the file name none.
            symbol = text[..<last]
            location = text[text.index(after: last)...]
        } else {
            return nil
        }
        // "File.swift:15:15", "File.swift:9", "File.swift", "<null>:1059888".
        var pieces = location.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var numbers: [Int] = []
        while pieces.count > 1, let number = Int(pieces[pieces.count - 1]) { numbers.insert(number, at: 0); pieces.removeLast() }
        self.symbol = symbol.trimmingCharacters(in: .whitespaces)
        self.file = pieces.joined(separator: ":")
        self.line = file.hasPrefix("<") ? nil : numbers.first
        self.column = file.hasPrefix("<") || numbers.count < 2 ? nil : numbers[1]
    }

    /// The package-relative path of the frame's file when it is the learner's: found by the
    /// learner folder in an absolute path, or by a bare name.
    func learnerFile(learnerFolder: String, learnerFiles: LearnerFiles) -> String? {
        if let folder = file.range(of: learnerFolder) { return String(file[folder.lowerBound...]) }
        return file.contains("/") ? nil : learnerFiles.path(named: file)
    }

    func place(learnerFolder: String, learnerFiles: LearnerFiles) -> SanitizerReport.Place? {
        learnerFile(learnerFolder: learnerFolder, learnerFiles: learnerFiles).map {
            SanitizerReport.Place(file: $0, line: line, function: SanitizerReport.readableFunction(symbol))
        }
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
