import Dispatch
import Foundation
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the thread running a block looks like from the inside: its lane on the trace, whether
/// it is the main thread, and what the OS and Foundation say about its priority.
///
/// GCD decides which thread runs a block; this is how a lesson finds out instead of guessing.
struct ThreadProbe: Sendable {
    let lane: String
    let isMainThread: Bool
    /// Linux: the kernel's nice value for this thread (−20…19, lower runs first); nil elsewhere.
    let niceValue: Int32?
    /// Linux: the kernel's name for this thread (at most 15 characters); nil elsewhere.
    let kernelName: String?
    /// Foundation's view: `Thread.current.qualityOfService`.
    let foundationQoS: String
    /// Apple platforms: `qos_class_self()`, the QoS the kernel schedules this thread at; nil elsewhere.
    let qosClassSelf: String?

    /// Looks at the calling thread.
    static func here(in trace: Trace) -> ThreadProbe {
        ThreadProbe(
            lane: trace.currentThreadLane(),
            isMainThread: Thread.isMainThread,
            niceValue: currentNiceValue(),
            kernelName: currentKernelName(),
            foundationQoS: describe(Thread.current.qualityOfService),
            qosClassSelf: currentQoSClass())
    }

    static func describe(_ qos: QualityOfService) -> String {
        switch qos {
        case .userInteractive: ".userInteractive"
        case .userInitiated: ".userInitiated"
        case .utility: ".utility"
        case .background: ".background"
        case .default: ".default"
        @unknown default: "?"
        }
    }

    #if canImport(Glibc)
    /// The kernel thread id, read from `/proc/thread-self` (a link to `PID/task/TID`).
    /// (`syscall(SYS_gettid)` would do, but Swift cannot import the `SYS_gettid` macro.)
    private static func kernelThreadID() -> id_t? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
              let last = link.split(separator: "/").last else { return nil }
        return id_t(last)
    }

    /// On Linux the nice value belongs to each thread, so `getpriority` with a thread id reads
    /// exactly the worker's priority — which is how libdispatch implements QoS here.
    private static func currentNiceValue() -> Int32? {
        guard let id = kernelThreadID() else { return nil }
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id)
        return errno == 0 ? nice : nil
    }

    /// The name `pthread_getname_np` would return (Swift cannot import that GNU extension here).
    private static func currentKernelName() -> String? {
        guard let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return name.trimmingCharacters(in: .newlines)
    }

    private static func currentQoSClass() -> String? { nil }
    #elseif canImport(Darwin)
    private static func currentNiceValue() -> Int32? { nil }
    private static func currentKernelName() -> String? { nil }

    private static func currentQoSClass() -> String? {
        let qos = qos_class_self()
        switch qos {
        case QOS_CLASS_USER_INTERACTIVE: return ".userInteractive"
        case QOS_CLASS_USER_INITIATED: return ".userInitiated"
        case QOS_CLASS_DEFAULT: return ".default"
        case QOS_CLASS_UTILITY: return ".utility"
        case QOS_CLASS_BACKGROUND: return ".background"
        case QOS_CLASS_UNSPECIFIED: return ".unspecified"
        default: return "\(qos)"
        }
    }
    #else
    private static func currentNiceValue() -> Int32? { nil }
    private static func currentKernelName() -> String? { nil }
    private static func currentQoSClass() -> String? { nil }
    #endif
}
