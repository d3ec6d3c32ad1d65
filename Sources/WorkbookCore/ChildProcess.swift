import Foundation

/// Runs a program and collects its exit status and output, killing it after a deadline.
///
/// Used where learner code or a lesson may crash or hang: in a child process a trap or a deadlock
/// becomes a report instead of taking the caller down.
public struct ChildProcess: Sendable {
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut(seconds: Double)
    }

    public struct Outcome: Sendable {
        public let termination: Termination
        public let standardOutput: String
        public let standardError: String
        public let elapsedSeconds: Double
    }

    public let executable: URL
    public let arguments: [String]
    public var environment: [String: String]

    public init(executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.executable = executable
        self.arguments = arguments
        // The runtime's own message ("Fatal error: …") without a full backtrace dump, unless
        // the caller asked for a particular backtrace.
        var environment = environment
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        self.environment = environment
    }

    /// Runs the program, feeding `input` on standard input (none: `/dev/null`).
    public func run(timeoutSeconds: Double, input: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe = input.map { _ in Pipe() }
        process.standardInput = inPipe ?? FileHandle.nullDevice

        let out = Locked(Data()), err = Locked(Data())
        let readers = DispatchGroup()
        for (pipe, sink) in [(outPipe, out), (errPipe, err)] {
            readers.enter()
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
                readers.leave()
            }
        }
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        let start = MonotonicClock.now()
        try process.run()
        if let inPipe, let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        var timedOut = false
        if exited.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        _ = readers.wait(timeout: .now() + 2)
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        let termination: Termination
        if timedOut {
            termination = .timedOut(seconds: timeoutSeconds)
        } else if process.terminationReason == .uncaughtSignal {
            termination = .signalled(process.terminationStatus)
        } else {
            termination = .exited(process.terminationStatus)
        }
        return Outcome(
            termination: termination,
            standardOutput: String(decoding: out.current, as: UTF8.self),
            standardError: String(decoding: err.current, as: UTF8.self),
            elapsedSeconds: elapsed)
    }

    /// Finds an executable built beside this one: the running program if it has that name, else
    /// a file of that name next to it or a few folders up (under `swift test` the running
    /// program is the test runner, and SwiftPM builds every executable into the same folder).
    public static func sibling(named name: String) -> URL? {
        let current = currentExecutable
        if current.lastPathComponent == name { return current }
        var starts = [current.deletingLastPathComponent()]
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The path of the running executable.
    public static var currentExecutable: URL {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        return URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    }
}

/// A signal's conventional name, e.g. `SIGILL (illegal instruction: a Swift runtime trap)`.
public func describeSignal(_ signal: Int32) -> Localized {
    switch signal {
    case SIGILL: Localized("SIGILL (illegal instruction: a trap in the Swift runtime or libdispatch)", ja: "SIGILL（不正命令: Swift ランタイムまたは libdispatch のトラップ）")
    case SIGTRAP: Localized("SIGTRAP (a Swift runtime trap)", ja: "SIGTRAP（Swift ランタイムのトラップ）")
    case SIGABRT: Localized("SIGABRT (abort)", ja: "SIGABRT（abort）")
    case SIGSEGV: Localized("SIGSEGV (invalid memory access)", ja: "SIGSEGV（不正なメモリアクセス）")
    case SIGBUS: Localized("SIGBUS (invalid memory access)", ja: "SIGBUS（不正なメモリアクセス）")
    case SIGKILL: Localized("SIGKILL (killed)", ja: "SIGKILL（強制終了）")
    default: Localized.verbatim("signal \(signal)")
    }
}
