import Foundation
import WorkbookCore

// Helpers the chapter's scenarios share: bounded waits on queues and operations, and what the
// recorded trace says about overlap and order.

/// Waits at most `seconds` for `queue` to run out of operations, or throws `ScenarioStuck`.
///
/// `waitUntilAllOperationsAreFinished()` has no timeout of its own, so it runs on a thread of
/// its own (see `withDeadline`); if the queue never drains, that thread is left behind.
func waitForAll(in queue: OperationQueue, seconds: Double = 5, _ what: Localized) throws {
    guard returnsWithin(seconds: seconds, { queue.waitUntilAllOperationsAreFinished() }) else {
        throw ScenarioStuck(what: what)
    }
}

/// Waits at most `seconds` for `operation` to finish; false if it did not.
func finishes(_ operation: Operation, within seconds: Double) -> Bool {
    returnsWithin(seconds: seconds) { operation.waitUntilFinished() }
}

/// A dependency edge to check on the trace: `later` must begin after `earlier` has ended.
struct Edge {
    let earlier: String
    let later: String

    /// The edges that the trace breaks, counting only events at or after `from`.
    static func broken(_ edges: [Edge], in trace: Trace, from: Int = 0) -> [Edge] {
        edges.filter { edge in
            guard let ended = trace.sequence(of: .end, edge.earlier, from: from),
                  let began = trace.sequence(of: .begin, edge.later, from: from) else { return true }
            return began < ended
        }
    }
}

/// A quality-of-service class as code spells it, e.g. "userInitiated".
func qosName(_ qos: QualityOfService) -> String {
    switch qos {
    case .userInteractive: "userInteractive"
    case .userInitiated: "userInitiated"
    case .utility: "utility"
    case .background: "background"
    case .default: "default"
    @unknown default: "unknown"
    }
}
