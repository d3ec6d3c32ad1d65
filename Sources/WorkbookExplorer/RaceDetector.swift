import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bridge to ThreadSanitizer, when the running program has it.
///
/// The learner's exercises are compiled with `-sanitize=thread`, so TSan watches every access
/// their code makes. It reports two accesses to the same memory, one a write, that nothing
/// orders ("happens-before"): no lock, queue, semaphore or thread start between them. It does
/// not need the two to overlap in time — so a check can make a race visible every run by
/// calling the learner's code from two threads *one after the other*, as long as the check
/// itself adds no ordering between the calls. The check's own locks, semaphores and trace would
/// add exactly that, and hide the race; `quietly` runs them so TSan ignores them.
///
/// The racy way (the check's bookkeeping orders the learner's calls, TSan sees nothing):
/// ```swift
/// trace.record("wrote")      // NSLock inside: a release
/// …other thread…
/// trace.record("reading")    // the same NSLock: an acquire, so write → read is "ordered"
/// ```
/// The safe way: `RaceDetector.quietly { trace.record("wrote") }` — TSan neither sees the lock
/// nor the trace's memory, and the learner's write and read stay unordered unless the learner
/// ordered them.
///
/// Without TSan (an uninstrumented build, or a platform without it) every call is a no-op.
public enum RaceDetector {
    private typealias IgnoreFunction = @convention(c) (UnsafePointer<CChar>?, Int32) -> Void
    private typealias EdgeFunction = @convention(c) (UnsafePointer<CChar>?, Int32, UnsafeRawPointer?) -> Void

    /// A class, not a struct: Swift 6.3.1's whole-module optimization crashed (`LoadableByAddress`)
    /// on an optional struct of eight C function pointers inlined into the runtime hooks.
    private final class Entry: @unchecked Sendable {
        let ignoreSyncBegin, ignoreSyncEnd: IgnoreFunction
        let ignoreReadsBegin, ignoreReadsEnd: IgnoreFunction
        let ignoreWritesBegin, ignoreWritesEnd: IgnoreFunction
        let happensBefore, happensAfter: EdgeFunction

        init(ignoreSyncBegin: IgnoreFunction, ignoreSyncEnd: IgnoreFunction,
             ignoreReadsBegin: IgnoreFunction, ignoreReadsEnd: IgnoreFunction,
             ignoreWritesBegin: IgnoreFunction, ignoreWritesEnd: IgnoreFunction,
             happensBefore: EdgeFunction, happensAfter: EdgeFunction) {
            self.ignoreSyncBegin = ignoreSyncBegin; self.ignoreSyncEnd = ignoreSyncEnd
            self.ignoreReadsBegin = ignoreReadsBegin; self.ignoreReadsEnd = ignoreReadsEnd
            self.ignoreWritesBegin = ignoreWritesBegin; self.ignoreWritesEnd = ignoreWritesEnd
            self.happensBefore = happensBefore; self.happensAfter = happensAfter
        }
    }

    /// The entry points, once resolved. Statically initialized storage, not a lazy `static let`:
    /// on Linux, with ThreadSanitizer in the process, every access to a lazily initialized
    /// global goes through `swift_once`'s lock, which the Swift runtime reports to TSan as an
    /// acquire and a release. A lazy `entry` therefore ordered every two threads that called
    /// `quietly` one after the other — through the very call meant to add no ordering — and
    /// hid the races the checks exist to show (seen: a read on one thread, then a write on
    /// another after any `quietly`, was never reported). Reading this pointer is a plain load.
    nonisolated(unsafe) private static var resolved: UnsafeMutablePointer<Entry?>? = nil

    private static var entry: Entry? {
        if let resolved { return resolved.pointee }
        // Two threads may resolve at once: each publishes a complete, equal entry with one
        // pointer store (the loser's few bytes are never freed).
        let pointer = UnsafeMutablePointer<Entry?>.allocate(capacity: 1)
        pointer.initialize(to: resolve())
        resolved = pointer
        return pointer.pointee
    }

    private static func resolve() -> Entry? {
        guard let handle = dlopen(nil, RTLD_NOW), dlsym(handle, "__tsan_init") != nil else { return nil }
        func load<F>(_ name: String, as type: F.Type) -> F? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let syncBegin = load("AnnotateIgnoreSyncBegin", as: IgnoreFunction.self),
              let syncEnd = load("AnnotateIgnoreSyncEnd", as: IgnoreFunction.self),
              let readsBegin = load("AnnotateIgnoreReadsBegin", as: IgnoreFunction.self),
              let readsEnd = load("AnnotateIgnoreReadsEnd", as: IgnoreFunction.self),
              let writesBegin = load("AnnotateIgnoreWritesBegin", as: IgnoreFunction.self),
              let writesEnd = load("AnnotateIgnoreWritesEnd", as: IgnoreFunction.self),
              let before = load("AnnotateHappensBefore", as: EdgeFunction.self),
              let after = load("AnnotateHappensAfter", as: EdgeFunction.self)
        else { return nil }
        return Entry(ignoreSyncBegin: syncBegin, ignoreSyncEnd: syncEnd,
                     ignoreReadsBegin: readsBegin, ignoreReadsEnd: readsEnd,
                     ignoreWritesBegin: writesBegin, ignoreWritesEnd: writesEnd,
                     happensBefore: before, happensAfter: after)
    }

    /// True when ThreadSanitizer is in this process.
    public static var isActive: Bool { entry != nil }

    /// Runs the check's own bookkeeping so that TSan neither takes its synchronization as
    /// ordering nor watches its memory. Never wrap the learner's code in this.
    @discardableResult
    public static func quietly<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let entry else { return try body() }
        entry.ignoreSyncBegin(nil, 0)
        entry.ignoreReadsBegin(nil, 0)
        entry.ignoreWritesBegin(nil, 0)
        defer {
            entry.ignoreWritesEnd(nil, 0)
            entry.ignoreReadsEnd(nil, 0)
            entry.ignoreSyncEnd(nil, 0)
        }
        return try body()
    }

    /// Declares that what this thread did so far happens before whatever a later
    /// `happensAfter(token)` follows — the edge a real API gives (a request reaching the
    /// thread that answers it), where a fake answers through bookkeeping done `quietly`.
    public static func happensBefore(_ token: HappensBeforeToken) { happensBefore(address: token.address) }

    /// The other end of `happensBefore(token)`.
    public static func happensAfter(_ token: HappensBeforeToken) { happensAfter(address: token.address) }

    /// The edge an executor gives a job: enqueueing it happens before it runs (the explorer's
    /// threads, `TaskLanes`).
    static func happensBefore(address: UnsafeRawPointer) { entry?.happensBefore(nil, 0, address) }
    static func happensAfter(address: UnsafeRawPointer) { entry?.happensAfter(nil, 0, address) }
}

/// A distinct address that names one happens-before edge for TSan (see `RaceDetector`).
public final class HappensBeforeToken: Sendable {
    public init() {}
    var address: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }
}
