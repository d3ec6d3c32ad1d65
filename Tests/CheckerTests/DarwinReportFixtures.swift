// ThreadSanitizer reports as Apple platforms print them (symbolized with `atos`), written for
// this workbook's exercises. No Mac was at hand: the format is modelled on reports posted in
// public issues, not captured here:
//   - rymcol/SwiftCron#3: data race, x86_64; demangled names with spaces and a bare file name
//     (`Cron.run() Cron.swift:44`), a frame whose file has no line (`CronJobs.swift`),
//     `partial apply for closure #2 in …`, `<compiler-generated>`, `<null>:1059888`,
//     `(Module:x86_64+0x…)`, `(libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x…)`.
//   - realm/SwiftLint#1944: Swift access race; `Modifying access at … by thread T5:`, a
//     `partial apply for closure #1 in …` frame with its file and no line.
//   - swiftlang/swift#61073: Swift access race; `Modifying access of Swift variable at …`,
//     generic signatures (`_urlFromBytes_impl<A, B>(_:baseURL:callback:)`).
//   - adobe/aepsdk-core-ios#1035: fully demangled names with the module and types
//     (`closure #1 @Sendable () -> () in AEPCore.…init(_: Swift.String, …) -> …`),
//     `partial apply forwarder for`, `reabstraction thunk helper from …`,
//     `__tsan::invoke_and_release_block(void*)`, `(Module:arm64+0x…)`.
//   - SDWebImage/SDWebImage#3738: `Thread T28 (tid=…, running) is a GCD worker thread`,
//     `@objc static …`, `<null> <null> (0x…)`.
//   - llvm/llvm-project#61262: `Location is heap block of size 40 at … allocated by main thread:`,
//     `(libdispatch.dylib:arm64e+0x…)`, `_dispatch_client_callout2 <null>`.
//   - swiftlang/swift#61244: `ThreadSanitizer:DEADLYSIGNAL`, `==pid==ERROR: ThreadSanitizer: SEGV
//     on unknown address (pc … bp … sp … T…)`, its frames and `SUMMARY:` / `==pid==ABORTING`.
//   - swiftlang/swift-syntax#785: `specialized closure #1 in Array.parallelMap<A>(transform:)`,
//     `(1) suspend resume partial function for closure #1 in static …`, register values.

/// Apple-platform reports for the workbook's exercises.
enum DarwinFixtures {
    static let safeCounterPath = "exercises/Exercises/01-gcd/SafeCounter.swift"
    static let readersWritersPath = "exercises/Exercises/01-gcd/ReadersWriters.swift"
    static let fanOutPath = "exercises/Exercises/01-gcd/FanOut.swift"

    /// A SafeCounter on a concurrent queue without a barrier: two increments race, both in
    /// GCD blocks (arm64).
    static let concurrentCounterSource = """
    import Dispatch
    import ExerciseKit

    public final class SafeCounter: SafeCounterProtocol, @unchecked Sendable {
        private let queue = DispatchQueue(label: "counter", attributes: .concurrent)
        private var counts: [String: Int] = [:]

        public init() {}

        public func increment(_ page: String) {
            queue.async {
                self.counts[page, default: 0] += 1
            }
        }

        public func count(of page: String) -> Int {
            queue.sync { counts[page, default: 0] }
        }
    }
    """

    static let concurrentCounterRace = """
    ==================
    WARNING: ThreadSanitizer: data race (pid=48213)
      Read of size 8 at 0x000106c04a90 by thread T3:
        #0 closure #1 in SafeCounter.increment(_:) SafeCounter.swift:12 (exercise-runner:arm64+0x100009a3c)
        #1 partial apply for closure #1 in SafeCounter.increment(_:) <compiler-generated> (exercise-runner:arm64+0x100009bd0)
        #2 thunk for @escaping @callee_guaranteed @Sendable () -> () <compiler-generated> (exercise-runner:arm64+0x100009c14)
        #3 __tsan::invoke_and_release_block(void*) <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x7b2e4)
        #4 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)
        #5 _dispatch_lane_serial_drain <null> (libdispatch.dylib:arm64e+0x9b24)

      Previous write of size 8 at 0x000106c04a90 by thread T2:
        #0 closure #1 in SafeCounter.increment(_:) SafeCounter.swift:12 (exercise-runner:arm64+0x100009b48)
        #1 partial apply for closure #1 in SafeCounter.increment(_:) <compiler-generated> (exercise-runner:arm64+0x100009bd0)
        #2 thunk for @escaping @callee_guaranteed @Sendable () -> () <compiler-generated> (exercise-runner:arm64+0x100009c14)
        #3 __tsan::invoke_and_release_block(void*) <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x7b2e4)
        #4 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)

      Location is heap block of size 48 at 0x000106c04a70 allocated by thread T1:
        #0 malloc <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x55e90)
        #1 swift_slowAlloc <null> (libswiftCore.dylib:arm64e+0x3a4f28)
        #2 swift_allocObject <null> (libswiftCore.dylib:arm64e+0x3a52a0)
        #3 SafeCounter.__allocating_init() <null> (exercise-runner:arm64+0x1000096f0)
        #4 closure #1 in static SafeCounterCheck.raceProbe() SafeCounterCheck.swift:88 (exercise-runner:arm64+0x1000b1e08)

      Thread T3 (tid=2817342, running) is a GCD worker thread

      Thread T2 (tid=2817341, running) is a GCD worker thread

    SUMMARY: ThreadSanitizer: data race SafeCounter.swift:12 in closure #1 in SafeCounter.increment(_:)
    ==================
    """

    /// `VerdictTests.raceReport` (Linux) as an Intel Mac prints it: the same two accesses, the
    /// closure's frame without a line.
    static let accessRace = """
    ==================
    WARNING: ThreadSanitizer: Swift access race (pid=41873)
      Read of size 8 at 0x7b0c00041e58 by thread T2:
        #0 SafeCounter.count(of:) SafeCounter.swift:15 (exercise-runner:x86_64+0x10000d38a)
        #1 protocol witness for SafeCounterProtocol.count(of:) in conformance SafeCounter <compiler-generated> (exercise-runner:x86_64+0x10000cae3)
        #2 closure #3 in static SafeCounterCheck.raceProbe() SafeCounterCheck.swift:95 (exercise-runner:x86_64+0x1000b2a10)
        #3 __tsan_thread_start_func <null>:2 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x2b7cd)

      Previous modifying access of Swift variable at 0x7b0c00041e58 by thread T1:
        #0 closure #1 in SafeCounter.increment(_:) SafeCounter.swift (exercise-runner:x86_64+0x10000c67c)
        #1 partial apply for closure #1 in SafeCounter.increment(_:) <compiler-generated> (exercise-runner:x86_64+0x10000c6f0)
        #2 reabstraction thunk helper from @escaping @callee_guaranteed @Sendable () -> () to @escaping @callee_unowned @convention(block) @Sendable () -> () <compiler-generated> (exercise-runner:x86_64+0x10000c734)
        #3 __tsan::invoke_and_release_block(void*) <null>:2 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x7a2cb)
        #4 _dispatch_client_callout <null>:2 (libdispatch.dylib:x86_64+0x3a36)

      Location is heap block of size 32 at 0x7b0c00041e40 allocated by main thread:
        #0 malloc <null>:2 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x5566e)
        #1 swift_slowAlloc <null>:2 (libswiftCore.dylib:x86_64+0x3a1f08)

      Thread T2 (tid=2207451, running) created by main thread at:
        #0 pthread_create <null>:2 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x2b0de)

      Thread T1 (tid=2207449, running) is a GCD worker thread

    SUMMARY: ThreadSanitizer: Swift access race SafeCounter.swift:15 in SafeCounter.count(of:)
    ==================
    """

    /// A ReadersWriters whose write is a barrier work item, submitted with `async(execute:)`;
    /// it also counts its writes in a `var` of its own.
    static let workItemSource = """
    import Dispatch
    import ExerciseKit

    public final class ReadersWriters: ReadersWritersProtocol, @unchecked Sendable {
        private let queue = DispatchQueue(label: "rw", attributes: .concurrent)
        private let storage: InstrumentedStorage
        private var writes = 0

        public init(storage: InstrumentedStorage) {
            self.storage = storage
        }

        public func value(forKey key: String) -> Int? {
            queue.sync { _ = writes; return storage.read(key) }
        }

        public func setValue(_ value: Int, forKey key: String) {
            let item = DispatchWorkItem(flags: .barrier) {
                self.writes += 1
                self.storage.write(key, value)
            }
            queue.async(execute: item)
        }
    }
    """

    /// The same answer with its barrier written as `async(flags: .barrier)` (the same lines).
    static let flagsBarrierSource = workItemSource
        .replacingOccurrences(of: "let item = DispatchWorkItem(flags: .barrier) {", with: "queue.async(flags: .barrier) {")
        .replacingOccurrences(of: "queue.async(execute: item)", with: "_ = ()")

    /// What TSan on a Mac reports for `workItemSource`: the barrier was dropped, so the write in
    /// the work item and a read in `sync` look unordered.
    static let workItemRace = """
    ==================
    WARNING: ThreadSanitizer: data race (pid=50711)
      Write of size 8 at 0x000107a05f30 by thread T4:
        #0 closure #1 in ReadersWriters.setValue(_:forKey:) ReadersWriters.swift:19 (exercise-runner:arm64+0x10000e2a8)
        #1 thunk for @escaping @callee_guaranteed @Sendable () -> () <compiler-generated> (exercise-runner:arm64+0x10000e41c)
        #2 __tsan::invoke_and_release_block(void*) <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x7b2e4)
        #3 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)
        #4 _dispatch_lane_serial_drain <null> (libdispatch.dylib:arm64e+0x9b24)

      Previous read of size 8 at 0x000107a05f30 by thread T3:
        #0 closure #1 in ReadersWriters.value(forKey:) ReadersWriters.swift:14 (exercise-runner:arm64+0x10000dd70)
        #1 partial apply for closure #1 in ReadersWriters.value(forKey:) <compiler-generated> (exercise-runner:arm64+0x10000de14)
        #2 thunk for @callee_guaranteed () -> () <compiler-generated> (exercise-runner:arm64+0x10000cf38)
        #3 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)
        #4 _dispatch_sync_invoke_and_complete <null> (libdispatch.dylib:arm64e+0x12d0c)
        #5 ReadersWriters.value(forKey:) ReadersWriters.swift:14 (exercise-runner:arm64+0x10000dc60)

      Location is heap block of size 40 at 0x000107a05f10 allocated by main thread:
        #0 malloc <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x55e90)
        #1 swift_allocObject <null> (libswiftCore.dylib:arm64e+0x3a52a0)
        #2 ReadersWriters.__allocating_init(storage:) <null> (exercise-runner:arm64+0x10000d8b4)

      Thread T4 (tid=2931107, running) is a GCD worker thread

      Thread T3 'reader-1' (tid=2931106, running) created by main thread at:
        #0 pthread_create <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x3062c)

    SUMMARY: ThreadSanitizer: data race ReadersWriters.swift:19 in closure #1 in ReadersWriters.setValue(_:forKey:)
    ==================
    """

    /// A FanOut that frees its results while callbacks may still write them.
    static let useAfterFreeSource = """
    import Dispatch
    import ExerciseKit

    public final class FanOut: FanOutProtocol {
        public init() {}

        public func fetchAll(
            _ ids: [Int],
            maxInFlight: Int,
            using client: FakeClient,
            completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void
        ) {
            let results = UnsafeMutablePointer<Result<String, FetchError>?>.allocate(capacity: ids.count)
            for (index, id) in ids.enumerated() {
                client.fetch(id) { result in
                    results[index] = result
                }
            }
            results.deallocate()
        }
    }
    """

    static let useAfterFree = """
    ==================
    WARNING: ThreadSanitizer: heap-use-after-free (pid=51966)
      Write of size 8 at 0x000108e02c40 by thread T6:
        #0 closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:) FanOut.swift:16 (exercise-runner:arm64+0x1000124c8)
        #1 partial apply for closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:) <compiler-generated> (exercise-runner:arm64+0x100012610)
        #2 closure #2 in FakeClient.fetch(_:completion:) FakeClient.swift:74 (exercise-runner:arm64+0x1000a3d4c)
        #3 __tsan::invoke_and_release_block(void*) <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x7b2e4)
        #4 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)

      Previous write of size 8 at 0x000108e02c40 by thread T1:
        #0 free <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x56254)
        #1 FanOut.fetchAll(_:maxInFlight:using:completion:) FanOut.swift:19 (exercise-runner:arm64+0x100012230)
        #2 protocol witness for FanOutProtocol.fetchAll(_:maxInFlight:using:completion:) in conformance FanOut <compiler-generated> (exercise-runner:arm64+0x1000127a0)

      Thread T6 (tid=2990412, running) is a GCD worker thread

    SUMMARY: ThreadSanitizer: heap-use-after-free FanOut.swift:16 in closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:)
    ==================
    """

    /// A SafeCounter whose `count(of:)` force-unwraps a page never counted (line 16).
    static let forceUnwrapSource = """
    import Dispatch
    import ExerciseKit

    public final class SafeCounter: SafeCounterProtocol, @unchecked Sendable {
        private let queue = DispatchQueue(label: "counter")
        private var counts: [String: Int] = [:]

        public init() {}

        public func increment(_ page: String) {
            queue.async { self.counts[page, default: 0] += 1 }
        }

        public func count(of page: String) -> Int {
            queue.sync {
                counts[page]!
            }
        }
    }
    """

    /// The runtime's message, then TSan's trace of the trap (arm64: SIGTRAP).
    static let fatalError = """
    Exercises/SafeCounter.swift:16: Fatal error: Unexpectedly found nil while unwrapping an Optional value
    ThreadSanitizer:DEADLYSIGNAL
    ==53120==ERROR: ThreadSanitizer: TRAP on unknown address 0x00019c4e35b4 (pc 0x00019c4e35b4 bp 0x00016b8ee8a0 sp 0x00016b8ee870 T2995031)
        #0 Swift._assertionFailure(_: Swift.StaticString, _: Swift.StaticString, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never <null> (libswiftCore.dylib:arm64e+0x1335b4)
        #1 closure #1 in SafeCounter.count(of:) SafeCounter.swift:16 (exercise-runner:arm64+0x10000a4f0)
        #2 partial apply for closure #1 in SafeCounter.count(of:) <compiler-generated> (exercise-runner:arm64+0x10000a5c8)
        #3 _dispatch_client_callout <null> (libdispatch.dylib:arm64e+0x3910)
        #4 _dispatch_lane_barrier_sync_invoke_and_complete <null> (libdispatch.dylib:arm64e+0x13b04)
        #5 SafeCounter.count(of:) SafeCounter.swift:15 (exercise-runner:arm64+0x10000a3e8)
        #6 closure #2 in static SafeCounterCheck.pagesNeverCounted() SafeCounterCheck.swift:131 (exercise-runner:arm64+0x1000b4c10)

    ==53120==Register values:
     x[0] = 0x0000000000000000   x[1] = 0x0000000000000000   x[2] = 0x0000000000000000   x[3] = 0x0000000000000000
    ThreadSanitizer can not provide additional info.
    SUMMARY: ThreadSanitizer: TRAP (libswiftCore.dylib:arm64e+0x1335b4) in Swift._assertionFailure(_: Swift.StaticString, _: Swift.StaticString, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never+0x134
    ==53120==ABORTING
    """

    /// TSan's own SEGV, from a learner's unsafe pointer (Intel Mac).
    static let segv = """
    ThreadSanitizer:DEADLYSIGNAL
    ==54007==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000010 (pc 0x00010a2f46c1 bp 0x70000e3f9e30 sp 0x70000e3f9df0 T3001877)
    ==54007==The signal is caused by a WRITE memory access.
    ==54007==Hint: address points to the zero page.
        #0 closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:) FanOut.swift:16 (exercise-runner:x86_64+0x1000146c1)
        #1 partial apply for closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:) <compiler-generated> (exercise-runner:x86_64+0x100014810)
        #2 __tsan::invoke_and_release_block(void*) <null>:2 (libclang_rt.tsan_osx_dynamic.dylib:x86_64h+0x7a2cb)
        #3 _dispatch_client_callout <null>:2 (libdispatch.dylib:x86_64+0x3a36)

    ==54007==Register values:
    rax = 0x0000000000000010  rbx = 0x00007fb1c8e04a90  rcx = 0x0000000000000000  rdx = 0x0000000000000003
    ThreadSanitizer can not provide additional info.
    SUMMARY: ThreadSanitizer: SEGV FanOut.swift:16 in closure #1 in FanOut.fetchAll(_:maxInFlight:using:completion:)
    ==54007==ABORTING
    """
}
