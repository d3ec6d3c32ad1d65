import Foundation
import WorkbookCore

/// The lines of a crashed run's standard error worth showing a learner: the runtime's own
/// message whole (`Fatal error: …`, `…: Precondition failed: …`, libdispatch's
/// `BUG IN CLIENT OF LIBDISPATCH: …`), what a libdispatch trap means, and the crashed thread's
/// frames in the learner's code. The runtime's lines stay as it wrote them; what a trap means is
/// said in `language`. The runtime names a file by its module (`Exercises/SafeCounter.swift:16`);
/// `learnerFile` (`exercises/Exercises/01-gcd/SafeCounter.swift`) is put in its place.
/// A ThreadSanitizer trace's frames are the learner's by the learner folder in their path
/// (Linux) or by their bare file name in `learnerFiles` (Apple platforms' `atos`).
func runtimeMessages(_ standardError: String, language: Language = .en, learnerFile: String? = nil,
                     learnerFolder: String = "exercises/", learnerFiles: LearnerFiles = LearnerFiles([])) -> [String] {
    let learnerFiles = learnerFiles.adding(learnerFile)
    let lines = standardError.split(separator: "\n").map(String.init)
    var shown: [String] = []
    var inCrashedThread = false
    for line in lines {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { inCrashedThread = false; continue }
        if runtimeMessageMarkers.contains(where: trimmed.contains) || trimmed.hasPrefix("*** Program crashed") {
            shown.append(trimmed)
        } else if trimmed.hasPrefix("Thread") && trimmed.hasSuffix("crashed:") {
            inCrashedThread = true
            shown.append(trimmed)
        } else if inCrashedThread && trimmed.contains("exercises/") {
            shown.append("  " + trimmed)
        } else if trimmed.hasPrefix("#"), let frame = learnerFrame(trimmed, learnerFolder: learnerFolder, learnerFiles: learnerFiles) {
            // A frame of a ThreadSanitizer SEGV report in the learner's file.
            shown.append("  " + frame)
        }
    }
    if shown.isEmpty { shown = Array(lines.suffix(8)) }
    var seen = Set<String>()
    shown = shown.filter { seen.insert($0).inserted && !$0.hasPrefix("Backtrace took") }
    for (needle, meaning) in libdispatchTraps where standardError.contains(needle) && !shown.contains(meaning.text(language)) {
        shown.insert(meaning.text(language), at: 0)
    }
    // TSan's "ERROR: ThreadSanitizer: ILL on unknown address …" only repeats that the program
    // trapped; where the runtime or libdispatch said why, that is enough.
    let explained = shown.contains { line in
        line.hasPrefix("libdispatch:") || swiftRuntimeMessageMarkers.contains(where: line.contains)
    }
    if explained { shown.removeAll { $0.contains("ERROR: ThreadSanitizer") } }
    guard let learnerFile else { return shown }
    let fileID = "Exercises/" + (learnerFile as NSString).lastPathComponent + ":"
    var seenMapped = Set<String>()
    return shown.map { line in
        line.replacingOccurrences(of: #"(^|[ (])\#(NSRegularExpression.escapedPattern(for: fileID))"#,
                                  with: "$1" + NSRegularExpression.escapedTemplate(for: learnerFile + ":"), options: .regularExpression)
    }.filter { seenMapped.insert($0).inserted }  // the runtime's line and TSan's copy of it read the same once mapped
}

/// `#3 $s9Exercises…F /…/exercises/Exercises/01-gcd/X.swift:12:5 (exercise-runner+0x…)` →
/// `exercises/Exercises/01-gcd/X.swift:12:5 in X.f()`; `#3 X.f() X.swift:12 (exercise-runner:arm64+0x…)`
/// → `exercises/Exercises/01-gcd/X.swift:12 in X.f()`.
private func learnerFrame(_ line: String, learnerFolder: String, learnerFiles: LearnerFiles) -> String? {
    guard let frame = Frame(line), let file = frame.learnerFile(learnerFolder: learnerFolder, learnerFiles: learnerFiles) else { return nil }
    let location = file + (frame.line.map { ":\($0)" } ?? "") + (frame.column.map { ":\($0)" } ?? "")
    return "\(location) in \(SanitizerReport.readableFunction(frame.symbol))"
}

private let runtimeMessageMarkers = ["ERROR: ThreadSanitizer"] + swiftRuntimeMessageMarkers

/// libdispatch stops a program with a terse message; what each means for the learner. Each
/// starts with "libdispatch:" in both languages (`runtimeMessages` looks for it).
private let syncOntoOwnQueue = Localized(
    "libdispatch: `sync` onto a serial queue this thread is already running would wait for itself forever; libdispatch stops the program instead.",
    ja: "libdispatch: このスレッドがすでに実行中のシリアルキューへの `sync` は、自分自身を永久に待つことになります。そうなる代わりに、libdispatch がプログラムを止めました。")
private let libdispatchTraps: [(String, Localized)] = [
    ("__DISPATCH_WAIT_FOR_QUEUE__", syncOntoOwnQueue),
    ("dispatch_sync called on queue already owned by current thread", syncOntoOwnQueue),
    ("Unbalanced call to dispatch_group_leave",
     Localized("libdispatch: `leave()` was called more times than `enter()` on a DispatchGroup.",
               ja: "libdispatch: DispatchGroup で `leave()` が `enter()` より多く呼ばれました。")),
    ("Semaphore object deallocated while in use", semaphoreFreedInUse),
    // Linux prints no message for it: TSan's report names the frame that trapped.
    ("_dispatch_semaphore_dispose", semaphoreFreedInUse),
    ("_dispatch_group_dispose",
     Localized("libdispatch: a DispatchGroup was freed while work had entered it and not left (an `enter()` without its `leave()`, on some path).",
               ja: "libdispatch: DispatchGroup が、enter したまま leave していない処理がある状態で解放されました（どこかの経路で `enter()` に対応する `leave()` がありません）。")),
]

private let semaphoreFreedInUse = Localized(
    "libdispatch: a DispatchSemaphore was freed while its count was below its starting value (a `wait()` without its `signal()`, on some path — a failure's, say).",
    ja: "libdispatch: DispatchSemaphore が、値が初期値より小さいまま（どこかの経路、たとえば失敗時に、`signal()` のない `wait()` がある状態で）解放されました。")
