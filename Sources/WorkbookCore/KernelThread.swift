import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a thread spent while it was inside one call: CPU time, and (on Linux) how often it went
/// to sleep and was woken again.
///
/// A call that waits on a condition sleeps once and wakes once; a call that polls — `sleep`
/// a millisecond and look again, or spin — wakes up again and again or burns CPU while nothing
/// changes. Measured on the calling thread, before and after the call.
public struct ThreadUsage: Sendable {
    public var cpuSeconds: Double
    /// Voluntary context switches (times the thread went to sleep); nil where unknown.
    public var sleeps: Int?
    /// Involuntary context switches (times the scheduler took the core away); nil where unknown.
    public var preemptions: Int?

    public init(cpuSeconds: Double, sleeps: Int?, preemptions: Int?) {
        self.cpuSeconds = cpuSeconds
        self.sleeps = sleeps
        self.preemptions = preemptions
    }

    public static func current() -> ThreadUsage {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        let cpu = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        #if os(Linux)
        var usage = rusage()
        getrusage(1 /* RUSAGE_THREAD */, &usage)
        return ThreadUsage(cpuSeconds: cpu, sleeps: usage.ru_nvcsw, preemptions: usage.ru_nivcsw)
        #else
        return ThreadUsage(cpuSeconds: cpu, sleeps: nil, preemptions: nil)
        #endif
    }

    public static func - (after: ThreadUsage, before: ThreadUsage) -> ThreadUsage {
        ThreadUsage(cpuSeconds: after.cpuSeconds - before.cpuSeconds,
                    sleeps: after.sleeps.flatMap { a in before.sleeps.map { a - $0 } },
                    preemptions: after.preemptions.flatMap { a in before.preemptions.map { a - $0 } })
    }
}

/// The kernel's id of a thread, where the platform exposes it (Linux: `/proc/thread-self`), so
/// the check can ask whether that thread is asleep.
public struct KernelThread: Sendable {
    public let tid: Int

    /// The calling thread, or nil where `/proc` is not available.
    public static func current() -> KernelThread? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let last = path.split(separator: "/").last, let tid = Int(last) else { return nil }
        return KernelThread(tid: tid)
        #else
        return nil
        #endif
    }

    public enum State: Sendable { case asleep, running, gone }

    /// What the thread has spent so far — CPU time and times it went to sleep — as the kernel
    /// counts it (`/proc/self/task/<tid>`); nil once the thread is gone. Lets the check watch a
    /// thread of the answer's that it did not start, such as a worker's idle thread.
    public var usage: ThreadUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state is field 3, utime and stime (clock ticks) are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let sleeps = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        return ThreadUsage(cpuSeconds: (user + system) / max(ticksPerSecond, 1), sleeps: sleeps, preemptions: nil)
    }

    /// Tells a blocked thread from one merely between two steps: blocked means asleep in two
    /// looks in a row, about a millisecond apart (or gone). `look()` is true once it is.
    public struct BlockedWatch: Sendable {
        public let thread: KernelThread
        private var asleepInARow = 0
        public init(_ thread: KernelThread) { self.thread = thread }

        public mutating func look() -> Bool {
            switch thread.state {
            case .asleep: asleepInARow += 1
            case .running: asleepInARow = 0
            case .gone: return true
            }
            return asleepInARow >= 2
        }
    }

    /// Asleep: blocked in the kernel (a wait, a lock, a sleep). Gone: the thread has ended.
    public var state: State {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .gone }
        switch text[text.index(after: close)...].split(separator: " ").first {
        case "S", "D": return .asleep
        case "Z", "X", nil: return .gone
        default: return .running
        }
    }
}
