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
    ///
    /// Spawned with `posix_spawn` and reaped with our own `waitpid`: Foundation's `Process`
    /// missed a child's exit here once (the child a zombie, the termination handler never
    /// called), and the test that waited for it hung for good.
    public func run(timeoutSeconds: Double, input: String? = nil) throws -> Outcome {
        let output = try PipePair(), errors = try PipePair()
        let standardInput = input == nil ? nil : try PipePair()
        var actions = SpawnActions()
        defer { actions.destroy() }
        if let standardInput {
            actions.duplicate(standardInput.read, to: STDIN_FILENO)
        } else {
            actions.openDevNull(on: STDIN_FILENO)
        }
        actions.duplicate(output.write, to: STDOUT_FILENO)
        actions.duplicate(errors.write, to: STDERR_FILENO)

        let arguments = [executable.path] + self.arguments
        let environment = self.environment.map { "\($0.key)=\($0.value)" }
        let start = MonotonicClock.now()
        let pid = try spawn(executable.path, arguments: arguments, environment: environment, actions: &actions)
        Self.running.withLock { _ = $0.insert(pid) }
        defer { Self.running.withLock { _ = $0.remove(pid) } }
        close(output.write)
        close(errors.write)

        let out = Locked(Data()), err = Locked(Data())
        let readers = DispatchGroup()
        for (descriptor, sink) in [(output.read, out), (errors.read, err)] {
            readers.enter()
            Thread.detachNewThread {
                sink.withLock { $0 = readToEnd(descriptor) }
                close(descriptor)
                readers.leave()
            }
        }
        if let standardInput {
            close(standardInput.read)
            Console.writeAll(Array((input ?? "").utf8)[...], to: standardInput.write)
            close(standardInput.write)
        }

        let status = Locked<Int32?>(nil)
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var code: Int32 = 0
            while waitpid(pid, &code, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = code }
            exited.signal()
        }
        var timedOut = false
        if exited.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            timedOut = true
            kill(pid, SIGKILL)
            _ = exited.wait(timeout: .now() + 5)
        }
        _ = readers.wait(timeout: .now() + 2)
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        let termination: Termination
        let code = status.current ?? 0
        if timedOut {
            termination = .timedOut(seconds: timeoutSeconds)
        } else if code & 0x7F != 0 {
            termination = .signalled(code & 0x7F)          // WIFSIGNALED / WTERMSIG
        } else {
            termination = .exited((code >> 8) & 0xFF)      // WEXITSTATUS
        }
        return Outcome(
            termination: termination,
            standardOutput: String(decoding: out.current, as: UTF8.self),
            standardError: String(decoding: err.current, as: UTF8.self),
            elapsedSeconds: elapsed)
    }

    /// The children being run now, in this process.
    private static let running = Locked<Set<pid_t>>([])

    /// Interrupts every child this process is running now (SIGINT: SwiftPM cancels its build
    /// and stops its compilers; a runner ends), for a caller that is about to exit.
    public static func interruptAll() {
        for pid in running.current { kill(pid, SIGINT) }
    }

    private func spawn(_ path: String, arguments: [String], environment: [String], actions: inout SpawnActions) throws -> pid_t {
        func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
        let argv = cStrings(arguments), envp = cStrings(environment)
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = actions.spawn(&pid, path, argv, envp)
        guard result == 0 else { throw SpawnError(path: path, code: result) }
        return pid
    }

    struct SpawnError: Error, CustomStringConvertible {
        let path: String
        let code: Int32
        var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// The path of the running executable (Linux: `/proc/self/exe`, which is the dynamic loader
    /// when a program is started through it; elsewhere `Bundle.main`).
    public static var currentExecutable: URL {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        return URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    }
}

/// A pipe whose two ends are closed when a child is spawned (only the child's dup'ed copies
/// survive there), so no other child inherits them and keeps a reader waiting for EOF.
private struct PipePair {
    let read: Int32
    let write: Int32

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw ChildProcess.SpawnError(path: "pipe", code: errno) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        read = descriptors[0]
        write = descriptors[1]
    }
}

/// `posix_spawn_file_actions_t` is a pointer on Apple platforms and a struct on Linux.
private struct SpawnActions {
    #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    #else
    var actions = posix_spawn_file_actions_t()
    #endif

    init() { posix_spawn_file_actions_init(&actions) }

    mutating func duplicate(_ descriptor: Int32, to target: Int32) {
        posix_spawn_file_actions_adddup2(&actions, descriptor, target)
    }

    mutating func openDevNull(on target: Int32) {
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDONLY, 0)
    }

    mutating func spawn(_ pid: inout pid_t, _ path: String, _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?]) -> Int32 {
        posix_spawn(&pid, path, &actions, nil, argv, envp)
    }

    mutating func destroy() { posix_spawn_file_actions_destroy(&actions) }
}

/// Everything a descriptor delivers until end of file.
private func readToEnd(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return data }
        data.append(contentsOf: buffer[..<count])
    }
}

/// A signal's name alone: `SIGILL`, or `signal 40`.
public func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGILL: "SIGILL"
    case SIGTRAP: "SIGTRAP"
    case SIGABRT: "SIGABRT"
    case SIGSEGV: "SIGSEGV"
    case SIGBUS: "SIGBUS"
    case SIGKILL: "SIGKILL"
    default: "signal \(signal)"
    }
}

/// A signal's conventional name, e.g. `SIGILL (illegal instruction: a Swift runtime trap)`.
public func describeSignal(_ signal: Int32) -> Localized {
    switch signal {
    case SIGILL: Localized("SIGILL (illegal instruction: a trap in the Swift runtime or libdispatch)", ja: "SIGILL（不正命令: Swift ランタイムまたは libdispatch のトラップ）")
    case SIGTRAP: Localized("SIGTRAP (a Swift runtime trap)", ja: "SIGTRAP（Swift ランタイムのトラップ）")
    case SIGABRT: Localized("SIGABRT (abort)", ja: "SIGABRT（abort() による異常終了）")
    case SIGSEGV: Localized("SIGSEGV (invalid memory access)", ja: "SIGSEGV（不正なメモリアクセス）")
    case SIGBUS: Localized("SIGBUS (invalid memory access)", ja: "SIGBUS（不正なメモリアクセス）")
    case SIGKILL: Localized("SIGKILL (killed)", ja: "SIGKILL（強制終了）")
    default: Localized.verbatim("signal \(signal)")
    }
}
