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
/// order, seen as it is sent: on Apple platforms by key-value observing; on Linux, which has no
/// observing, through the interposed `willChangeValue`/`didChangeValue` of the runners
/// (`PlatformMechanism.operationAnnouncements`). Where neither is there, `entries` is nil and
/// `FoundationRecord` shows what the notifications achieved instead.
///
/// The keys are the documented ones, observed by name: Apple's documentation says an
/// asynchronous operation "must generate KVO notifications for the `isFinished` key path", and
/// that is what an answer sends. A Swift key path `\.isFinished` would name the Objective-C
/// property, `finished` — another key, which an answer's notifications need not reach. (On Linux
/// an answer's `didChangeValue(for: \.isFinished)` is taken as the same announcement, as
/// Foundation takes it there.)
///
/// `atFinishedAnnouncement` runs on the announcing thread, inside the answer's
/// `didChangeValue(forKey: "isFinished")`: what the answer holds then, Foundation's observers find
/// held.
final class AnnouncementLog: @unchecked Sendable {  // set in init only; `log` is a QuietState
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

    static let keys = ["isExecuting", "isFinished"]
    private let log = QuietState<[Entry]>([])
    private let observed: Operation
    let atFinishedAnnouncement: (@Sendable (Operation) -> Void)?
    #if canImport(Darwin)
    private let observer: KeyObserver
    #endif

    init(_ operation: Operation, atFinishedAnnouncement: (@Sendable (Operation) -> Void)? = nil) {
        observed = operation
        self.atFinishedAnnouncement = atFinishedAnnouncement
        #if canImport(Darwin)
        observer = KeyObserver()
        observer.log = self
        for key in Self.keys { operation.addObserver(observer, forKeyPath: key, options: [.prior, .new], context: nil) }
        #else
        LinuxAnnouncements.watch(operation, with: self)
        #endif
    }

    deinit {
        #if canImport(Darwin)
        for key in Self.keys { observed.removeObserver(observer, forKeyPath: key) }
        #else
        LinuxAnnouncements.unwatch(observed)
        #endif
    }

    /// Records one notification, on the announcing thread.
    fileprivate func announced(key: String, prior: Bool, value: Bool?, by operation: Operation) {
        log.update { $0.append(Entry(key: key, prior: prior, value: value)) }
        if !prior, key == "isFinished" { atFinishedAnnouncement?(operation) }
    }

    /// Whether the notifications can be seen in this process.
    static var isAvailable: Bool { PlatformMechanism.operationAnnouncements.isAvailable }

    /// The notifications so far, or nil where they cannot be observed.
    var entries: [Entry]? { Self.isAvailable ? log.current : nil }

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
private final class KeyObserver: NSObject, @unchecked Sendable {  // `log` set once, before observing
    weak var log: AnnouncementLog?

    override func observeValue(forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
                               context: UnsafeMutableRawPointer?) {
        guard let keyPath, let operation = object as? Operation else { return }
        let prior = (change?[.notificationIsPriorKey] as? NSNumber)?.boolValue ?? false
        let value = prior ? nil : (change?[.newKey] as? NSNumber)?.boolValue
        log?.announced(key: keyPath, prior: prior, value: value, by: operation)
    }
}
#else
import ReleasePoints

/// The operations whose announcements are being logged, and the handler the interposers call.
private enum LinuxAnnouncements {
    final class WeakLog: @unchecked Sendable {  // `log` is only read
        weak var log: AnnouncementLog?
        init(_ log: AnnouncementLog) { self.log = log }
    }

    static let watched = QuietState<[ObjectIdentifier: WeakLog]>([:])

    static func watch(_ operation: Operation, with log: AnnouncementLog) {
        workbook_set_announcement_handler(handler)
        watched.update { $0[ObjectIdentifier(operation)] = WeakLog(log) }
    }

    static func unwatch(_ operation: Operation) {
        watched.update { $0[ObjectIdentifier(operation)] = nil }
    }

    /// Runs on the announcing thread, after Foundation handled the announcement. The property's
    /// value is read there, as a key-value observer reads it on a Mac (Foundation has just read it
    /// too, on this thread).
    static let handler: workbook_announcement_handler = { pointer, kind, key, keyPath in
        guard let pointer else { return }
        let operation = Unmanaged<Operation>.fromOpaque(pointer).takeUnretainedValue()
        guard let log = watched.current[ObjectIdentifier(operation)]?.log else { return }
        let name: String?
        switch kind {
        case workbook_will_change_key, workbook_did_change_key:
            name = key.map { String(cString: $0) }
        default:
            name = keyPath.flatMap { keyName(of: Unmanaged<AnyKeyPath>.fromOpaque($0).takeUnretainedValue()) }
        }
        guard let name, AnnouncementLog.keys.contains(name) else { return }
        let prior = kind == workbook_will_change_key || kind == workbook_will_change_key_path
        let value = prior ? nil : name == "isFinished" ? operation.isFinished : operation.isExecuting
        log.announced(key: name, prior: prior, value: value, by: operation)
    }

    static func keyName(of keyPath: AnyKeyPath) -> String? {
        keyPath == \Operation.isFinished ? "isFinished" : keyPath == \Operation.isExecuting ? "isExecuting" : nil
    }
}
#endif
