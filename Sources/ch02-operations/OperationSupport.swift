import Foundation
import WorkbookCore

// Helpers the chapter's scenarios share: bounded waits on queues and operations, and what the
// recorded trace says about overlap and order.

/// Waits at most `seconds` for `queue` to run out of operations, or throws `ScenarioStuck`.
///
/// `waitUntilAllOperationsAreFinished()` has no timeout of its own, so it runs on a thread of
/// its own (see `withDeadline`); if the queue never drains, that thread is left behind.
/// The limit only ends a wait that would never end: alone, a queue drains in milliseconds, but
/// beside other work that blocks pool threads (the chapter tests run every scenario side by side
/// in one process) libdispatch may take seconds to give the queue a thread.
func waitForAll(in queue: OperationQueue, seconds: Double = 20, _ what: Localized) throws {
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

extension ScenarioContext {
    /// How a child that misused an operation ended, for the lessons where Foundation should stop
    /// it: the signal and Foundation's reason (swift-corelibs-foundation: "Fatal error: …"; Apple's
    /// Foundation, as documented: an `NSInvalidArgumentException` with a "reason:"), or the exit
    /// status. A child exits with status 3 when nothing stopped it; `survived` says so, followed by
    /// `quoting` if given. Notes "<key> signal", "<key> message" or "<key> exit".
    func reportFoundationStop(_ outcome: ChildProcess.Outcome, key: String, quoting: String?, survived: Localized) {
        switch outcome.termination {
        case let .signalled(signal):
            note("\(key) signal", String(signal))
            let name = describeSignal(signal)
            say(Localized("  … and was killed by \(name.en).", ja: "  … \(name.ja)で終了しました。"))
            let reasons = outcome.standardError.split(separator: "\n").filter { $0.contains("Fatal error") || $0.contains("reason:") }
            if let first = reasons.first { note("\(key) message", String(first)) }
            for line in reasons.prefix(2) { quote(line.trimmingCharacters(in: .whitespaces)) }
        case let .exited(status):
            note("\(key) exit", String(status))
            if status == 3 {
                say(survived)
                if let quoting { quote(quoting) }
            } else {
                say(Localized("  … and exited with status \(status).", ja: "  … 終了コード \(status) で終了しました。"))
            }
        case let .timedOut(seconds):
            say(Localized("  … and was killed after \(Int(seconds)) s.", ja: "  … \(Int(seconds)) 秒後に強制終了しました。"))
        }
    }
}
