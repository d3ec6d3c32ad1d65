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
        guard PlatformMechanism.threadObservation.isAvailable else { return ThreadUsage(cpuSeconds: cpu, sleeps: nil, preemptions: nil) }
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
        guard PlatformMechanism.threadObservation.isAvailable else { return nil }
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

/// What the OS says about the calling thread's priority: on Linux its nice value (−20…19,
/// libdispatch's translation of a QoS class) and its kernel name (which names the pool); on
/// Apple platforms its QoS class as `qos_class_self()` reports it.
public struct ThreadPriority: Sendable {
    /// Linux: the kernel's nice value; nil elsewhere.
    public let niceValue: Int32?
    /// Linux: the kernel's name for the thread (15 characters at most); nil elsewhere.
    public let kernelName: String?
    /// Apple platforms: `qos_class_self()` (`userInitiated`, …); nil elsewhere.
    public let qosClass: String?

    /// The calling thread's.
    public static func current() -> ThreadPriority {
        #if os(Linux)
        guard let tid = KernelThread.current()?.tid else { return ThreadPriority(niceValue: nil, kernelName: nil, qosClass: nil) }
        // The nice value belongs to each thread on Linux, so `getpriority` with a thread id reads
        // exactly this thread's.
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid))
        let name = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
        return ThreadPriority(niceValue: errno == 0 ? nice : nil, kernelName: name, qosClass: nil)
        #elseif canImport(Darwin)
        let qos = qos_class_self()
        let name: String
        switch qos {
        case QOS_CLASS_USER_INTERACTIVE: name = "userInteractive"
        case QOS_CLASS_USER_INITIATED: name = "userInitiated"
        case QOS_CLASS_DEFAULT: name = "default"
        case QOS_CLASS_UTILITY: name = "utility"
        case QOS_CLASS_BACKGROUND: name = "background"
        case QOS_CLASS_UNSPECIFIED: name = "unspecified"
        default: name = "\(qos)"
        }
        return ThreadPriority(niceValue: nil, kernelName: nil, qosClass: name)
        #else
        return ThreadPriority(niceValue: nil, kernelName: nil, qosClass: nil)
        #endif
    }
}
