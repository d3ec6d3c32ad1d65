import Dispatch
import Foundation
import WorkbookCore

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
        let priority = ThreadPriority.current()
        return ThreadProbe(
            lane: trace.currentThreadLane(),
            isMainThread: Thread.isMainThread,
            niceValue: priority.niceValue,
            kernelName: priority.kernelName,
            foundationQoS: describe(Thread.current.qualityOfService),
            qosClassSelf: priority.qosClass)
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
}
