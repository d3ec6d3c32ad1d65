import Foundation
import WorkbookCore

/// Check bookkeeping shared between threads, invisible to ThreadSanitizer.
///
/// The chapter 02 checks pass values between the learner's calls on different threads (the
/// `done` callback, what a step observed, "the stage has begun"). Guarded by an ordinary lock,
/// that hand-over would order the learner's calls for ThreadSanitizer and hide a race in them;
/// every access here runs `RaceDetector.quietly`, so the only ordering TSan sees is the one the
/// learner's code (or Foundation, for the learner) provides.
final class QuietState<Value>: @unchecked Sendable {  // `value` only under `condition`
    private let condition = NSCondition()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Changes the value and wakes every waiter.
    @discardableResult
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        RaceDetector.quietly {
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            return body(&value)
        }
    }

    var current: Value {
        RaceDetector.quietly {
            condition.lock()
            defer { condition.unlock() }
            return value
        }
    }

    /// Waits until `predicate` holds; false if it still does not after `seconds`.
    @discardableResult
    func wait(seconds: Double, until predicate: (Value) -> Bool) -> Bool {
        RaceDetector.quietly {
            let deadline = Date(timeIntervalSinceNow: seconds)
            condition.lock()
            defer { condition.unlock() }
            while !predicate(value) {
                if !condition.wait(until: deadline) { return predicate(value) }
            }
            return true
        }
    }
}

/// What Foundation itself recorded about an operation: the state its queue machinery keeps
/// from the key-value notifications it was sent.
///
/// On Linux, swift-corelibs-foundation's `willChangeValue(forKey:)` does nothing and
/// `didChangeValue(forKey:)` feeds the queue machinery, which keeps its conclusion in
/// `Operation`'s private `__state` (`initialized`, `starting`, `executing`, `finishing`,
/// `finished`, …). An `isExecuting` that turned true without `didChangeValue(forKey:
/// "isExecuting")` leaves it at `starting` (or `initialized`); an `isFinished` nobody announced
/// leaves it short of `finished`. It is read here by reflection. On Darwin the field cannot be
/// read (Objective-C); `AnnouncementLog` observes the notifications themselves there.
enum FoundationRecord {
    /// The state Foundation recorded for `operation`, or nil where it cannot be read.
    static func state(of operation: Operation) -> String? {
        RaceDetector.quietly {
            var mirror: Mirror? = Mirror(reflecting: operation)
            while let current = mirror {
                if current.subjectType == Operation.self {
                    return current.children.first { $0.label == "__state" }.map { String(describing: $0.value) }
                }
                mirror = current.superclassMirror
            }
            return nil
        }
    }

    /// True when Foundation counts `operation` as finished (its dependants are released).
    static func finished(_ state: String?) -> Bool { state == "finishing" || state == "finished" }
}

/// Every key-value notification about `isExecuting` and `isFinished` an operation sends, in
/// order — on Darwin, where key-value observing exists. On Linux `entries` is nil: there is no
/// observing, and `FoundationRecord` shows what the notifications achieved instead.
///
/// The keys are the documented ones, observed by name: Apple's documentation says an
/// asynchronous operation "must generate KVO notifications for the `isFinished` key path", and
/// that is what an answer sends. A Swift key path `\.isFinished` would name the Objective-C
/// property, `finished` — another key, which an answer's notifications need not reach.
final class AnnouncementLog: @unchecked Sendable {  // observations set in init only
    struct Entry: Sendable, CustomStringConvertible {
        let key: String
        /// true for `willChangeValue`, false for `didChangeValue`.
        let prior: Bool
        /// The property's value at `didChangeValue` (nil at `willChangeValue`).
        let value: Bool?
        /// In code's words, so it reads the same in every language: `willChangeValue(isExecuting)`,
        /// `didChangeValue(isExecuting)=true`.
        var description: String { prior ? "willChangeValue(\(key))" : "didChangeValue(\(key))=\(value.map(String.init) ?? "?")" }
    }

    private let log = QuietState<[Entry]>([])
    #if canImport(Darwin)
    private let observer: KeyObserver
    private let observed: Operation
    private static let keys = ["isExecuting", "isFinished"]
    #endif

    init(_ operation: Operation) {
        #if canImport(Darwin)
        observer = KeyObserver(log: log)
        observed = operation
        for key in Self.keys { operation.addObserver(observer, forKeyPath: key, options: [.prior, .new], context: nil) }
        #endif
    }

    deinit {
        #if canImport(Darwin)
        for key in Self.keys { observed.removeObserver(observer, forKeyPath: key) }
        #endif
    }

    /// The notifications so far, or nil where they cannot be observed (Linux).
    var entries: [Entry]? {
        #if canImport(Darwin)
        return log.current
        #else
        return nil
        #endif
    }

    /// The first `didChangeValue` that no `willChangeValue` for the same key preceded.
    static func unpairedDid(_ entries: [Entry]) -> Entry? {
        var open: Set<String> = []
        for entry in entries {
            if entry.prior {
                open.insert(entry.key)
            } else if open.remove(entry.key) == nil {
                return entry
            }
        }
        return nil
    }
}

#if canImport(Darwin)
/// Receives the notifications for `AnnouncementLog` (string-keyed observing).
private final class KeyObserver: NSObject, @unchecked Sendable {  // `log` is a QuietState
    private let log: QuietState<[AnnouncementLog.Entry]>
    init(log: QuietState<[AnnouncementLog.Entry]>) { self.log = log }

    override func observeValue(forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
                               context: UnsafeMutableRawPointer?) {
        guard let keyPath else { return }
        let prior = (change?[.notificationIsPriorKey] as? NSNumber)?.boolValue ?? false
        let value = prior ? nil : (change?[.newKey] as? NSNumber)?.boolValue
        log.update { $0.append(AnnouncementLog.Entry(key: keyPath, prior: prior, value: value)) }
    }
}
#endif
