import Foundation
import WorkbookCore
import WorkbookExplorer

// What several of the chapter's scenarios share: how isolation is named, the compiler's
// diagnostics shown as text, and reading the crashed thread of a child process.

/// `#isolation` as the chapter prints it: `MainActor`, an actor's type name, or `nil`.
///
/// Where code runs is read from its isolation, never from the thread: the main actor's jobs run
/// on whichever thread drains the main queue (the main thread in the chapter program, another
/// thread under `swift test` on Linux), and an actor's jobs on any thread of the pool.
func isolationName(_ isolation: (any Actor)?) -> String {
    guard let isolation else { return "nil" }
    return String(describing: type(of: isolation))
}

/// A compiler error the chapter shows as text: the code, the error and notes Swift 6.3.1 gave
/// (without file and line), and why. `Chapter07Tests` compiles every snippet again and checks
/// that the compiler still says the same.
struct Diagnostic: Sendable {
    let code: String
    /// The `error:` lines, each without its `file:line:column:` prefix and `[#Group]` suffix.
    let errors: [String]
    /// The `note:` lines worth showing, as the compiler printed them.
    let notes: [String]
    let reason: Localized
    /// Declarations the code needs that the chapter does not show (compiled, not printed).
    var preamble = ""
    /// Found by the data-flow checks after type checking (region isolation, global variables):
    /// `swiftc -typecheck` does not show it, a build does.
    var needsBuild = false

    init(preamble: String = "", code: String, errors: [String], notes: [String] = [], reason: Localized, needsBuild: Bool = false) {
        self.preamble = preamble
        self.code = code
        self.errors = errors
        self.notes = notes
        self.reason = reason
        self.needsBuild = needsBuild
    }
}

extension ScenarioContext {
    /// The code and the compiler's words behind the quote bar (verbatim, in English in both
    /// languages), then why.
    func show(_ diagnostic: Diagnostic) {
        for line in diagnostic.code.split(separator: "\n", omittingEmptySubsequences: false) {
            quote("  " + line)
        }
        for error in diagnostic.errors { quote("error: " + error) }
        for note in diagnostic.notes { quote("note: " + note) }
        say(Localized("    " + diagnostic.reason.en, ja: "    " + diagnostic.reason.ja))
    }
}

/// A crash seen from outside: how the child ended and the first frames of its crashed thread.
struct ChildCrash: Sendable {
    let termination: ChildProcess.Termination
    /// `function (image)` or `function (File.swift:line)`, innermost first, through the chapter's own frames.
    let frames: [String]
    /// A line the runtime printed before stopping (`Fatal error: …`), if any.
    let message: String?

    /// Reads Swift's backtrace of the crashed thread (`Thread 2 "…" crashed:` and its frames).
    /// Apple platforms print crash reports their own way: there `frames` may be empty.
    init(_ outcome: ChildProcess.Outcome, ownImage: String = "ch07-actors") {
        self.init(termination: outcome.termination, standardError: outcome.standardError, ownImage: ownImage)
    }

    init(termination: ChildProcess.Termination, standardError: String, ownImage: String = "ch07-actors") {
        self.termination = termination
        let lines = standardError.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        message = lines.first { line in swiftRuntimeMessageMarkers.contains { line.contains($0) } }
        var frames: [String] = []
        var inOwnCode = false
        if let start = lines.firstIndex(where: { $0.hasSuffix(" crashed:") }) {
            for line in lines[(start + 1)...] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { if frames.isEmpty { continue } else { break } }
                guard let frame = Self.frame(trimmed) else { continue }
                if frame.function.contains("thunk for") || frame.function.hasPrefix("partial apply") || frame.function.contains(".cold.") { continue }
                let own = frame.image == ownImage
                if inOwnCode && !own { break }     // past the chapter's own frames: the runtime's task entry
                inOwnCode = inOwnCode || own
                let shown = "\(frame.function) (\(frame.place ?? frame.image))"
                if frames.last != shown { frames.append(shown) }
            }
        }
        self.frames = frames
    }

    /// `5 [ra] 0x00007f… Actor.preconditionIsolated(_:file:line:) + 76 in libswift_Concurrency.so`
    /// → the function and the image; a frame of the program itself may end with
    /// `in ch07-actors at /…/StaticIsolation.swift:70:27`, which gives `StaticIsolation.swift:70`.
    private static func frame(_ line: String) -> (function: String, image: String, place: String?)? {
        guard let first = line.first, first.isNumber, let address = line.range(of: " 0x") else { return nil }
        var rest = line[address.upperBound...].drop { $0.isHexDigit }.drop { $0 == " " }
        var place: String?
        if let at = rest.range(of: " at /", options: .backwards) {
            let path = rest[rest.index(after: at.lowerBound)...].dropFirst("at ".count)
            let parts = (path.split(separator: "/").last ?? "").split(separator: ":")
            if let file = parts.first { place = parts.count > 1 ? "\(file):\(parts[1])" : String(file) }
            rest = rest[..<at.lowerBound]
        }
        guard let inRange = rest.range(of: " in ", options: .backwards) else { return nil }
        let image = String(rest[inRange.upperBound...])
        rest = rest[..<inRange.lowerBound]
        if let offset = rest.range(of: " + ", options: .backwards) { rest = rest[..<offset.lowerBound] }
        var function = String(rest).trimmingCharacters(in: .whitespaces)
        // A closure in top-level code has no name after "in": "closure #1 in closure #1 in ".
        while function.hasSuffix(" in") { function.removeLast(3) }
        function = function.replacingOccurrences(of: #"closure #\d+ in "#, with: "closure in ", options: .regularExpression)
        while function.contains("closure in closure in ") { function = function.replacingOccurrences(of: "closure in closure in ", with: "closure in ") }
        return (function, image, place)
    }
}

extension ScenarioContext {
    /// Runs one of the chapter's children with Swift's backtracer on (crashed thread only), so
    /// that a trap without a message — an isolation check inside libdispatch — still names where
    /// it stopped. Nil when the program could not be started (the context said why).
    func runCrashingChild(_ name: String) -> ChildCrash? {
        let backtrace = "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,limit=24"
        return runChild(name, of: "ch07-actors", backtrace: backtrace, timeoutSeconds: 20).map { ChildCrash($0) }
    }

    /// Says how a child ended and quotes the frames that show where.
    func report(_ crash: ChildCrash) {
        switch crash.termination {
        case let .signalled(signal):
            say(Localized("    The child was stopped by \(describeSignal(signal).en).",
                          ja: "    子プロセスは \(describeSignal(signal).ja) で止まりました。"))
        case let .exited(status):
            say(Localized("    The child exited with status \(status): nothing stopped it.",
                          ja: "    子プロセスは終了コード \(status) で終了しました。止めるものはありませんでした。"))
        case .timedOut:
            say(Localized("    The child did not finish.", ja: "    子プロセスが終わりませんでした。"))
        }
        if let message = crash.message { quote(message) }
        if crash.frames.isEmpty {
            if case .signalled = crash.termination {
                say(Localized("    (No backtrace was found in its standard error.)", ja: "    （標準エラー出力にバックトレースは見つかりませんでした。）"))
            }
        } else {
            say(Localized("    Its crashed thread, innermost frame first:", ja: "    クラッシュしたスレッドのフレーム（内側から）:"))
            for frame in crash.frames { quote(frame) }
        }
    }
}

/// Runs the main run loop of a child process for `seconds` (main-actor work and main-queue
/// blocks run there), then exits with status 0: reached only if nothing stopped the child.
func serveMainThreadThenExit(seconds: Double = 5) -> Never {
    RunLoop.main.run(until: Date().addingTimeInterval(seconds))
    exit(0)
}

/// Where two blocks of a race wait for each other, so that both run when either goes on.
/// Bounded: a pool that gives both blocks one thread would never let the second arrive, and then
/// the first simply goes (that run cannot race, and says so).
final class StartLine: Sendable {
    private let arrived = Locked(0)
    private let gaveUp = Locked(false)

    func arriveAndWait(limitMicroseconds: Int = 2_000) {
        arrived.withLock { $0 += 1 }
        let end = MonotonicClock.now() + UInt64(limitMicroseconds) * 1_000
        while arrived.current < 2 && MonotonicClock.now() < end {}
        if arrived.current < 2 { gaveUp.withLock { $0 = true } }
    }

    /// Whether both blocks were running at once.
    var metInTime: Bool { !gaveUp.current }
}

/// Runs an actor's jobs one at a time on a serial queue of its own.
///
/// Scenarios 3 and 4 hold an actor with a job that blocks its thread, to show that the actor can
/// run nothing else meanwhile. On the default executor that job would park one of the cooperative
/// pool's threads — two on a two-core machine — which every other task needs (under `swift test`
/// scenarios run side by side, and a parked pool stalled them all). With this executor it parks a
/// thread of its own queue instead. The actor behaves the same either way: one job at a time.
final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Opens `gate` `milliseconds` after `start` fires, from a thread of its own (not the pool's):
/// how long a blocking actor job lasts once the scenario is ready to watch it.
func openGate(_ gate: DispatchSemaphore, milliseconds: Int, after start: OneShotSignal) {
    Thread.detachNewThread {
        guard start.waitBlocking(seconds: 30) else {
            gate.signal()
            return
        }
        usleep(UInt32(milliseconds) * 1_000)
        gate.signal()
    }
}

/// `[1, 2]` as the chapter prints a list.
func listed(_ values: [Int]) -> String { "[" + values.map(String.init).joined(separator: ", ") + "]" }

/// Whole microseconds between two `MonotonicClock` readings.
func microseconds(from start: UInt64, to end: UInt64) -> Double { Double(end &- start) / 1_000 }

/// The middle value (the lower of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[(sorted.count - 1) / 2]
}
