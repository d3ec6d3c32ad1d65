import ExplorerDispatchInterposer
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The id of the task a job belongs to, 0 for other jobs (an actor draining its queue).
///
/// Uses the runtime's `swift_task_getJobTaskId` when this runtime has it (looked up at run time,
/// so an older OS runtime cannot stop the program from loading), else the job's description,
/// `UnownedJob(id: 12)`.
private func taskID(of job: UnownedJob) -> UInt64 {
    if let getJobTaskID = JobTaskID.function {
        return getJobTaskID(unsafeBitCast(job, to: UnsafeRawPointer.self))
    }
    let text = job.description
    guard let open = text.range(of: "id: "), let close = text[open.upperBound...].firstIndex(of: ")") else { return 0 }
    return UInt64(text[open.upperBound..<close]) ?? 0
}

/// The kind of a job, from its flags (the Swift ABI's `Job` layout: after the heap object header
/// and two words of scheduler data; `JobKind` in `MetadataValues.h`). Only the kinds told apart
/// here; any other reads as `.other`.
enum JobKind: UInt8 {
    case task = 0
    case nullaryContinuation = 0xC3
    case other = 0xFF

    static func of(_ job: UnownedJob) -> JobKind {
        let flags = unsafeBitCast(job, to: UnsafeRawPointer.self).load(fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt32.self)
        return JobKind(rawValue: UInt8(truncatingIfNeeded: flags)) ?? .other
    }
}

private enum JobTaskID {
    typealias Function = @convention(c) (UnsafeRawPointer) -> UInt64
    static let function: Function? = dlsym(dlopen(nil, RTLD_NOW), "swift_task_getJobTaskId").map { unsafeBitCast($0, to: Function.self) }
}

/// Decides which ready job runs at each step.
protocol Chooser {
    /// Returns an index into `ready`. `defaultIndex` is what the default scheduler picks.
    mutating func choose(step: Int, ready: [EntityKey], defaultIndex: Int, describe: () -> Explorer.ChoicePoint) -> Int
}

/// Identifies who a job belongs to: a task by its id; any other job (an actor draining its
/// queue) is a new entity every time it is enqueued — its address is not stable across runs; a
/// timer by the order it was set in.
struct EntityKey: Hashable {
    let task: UInt64
    let serial: Int
    init(_ job: UnownedJob, serial: Int) {
        task = taskID(of: job)
        self.serial = task == 0 ? serial : 0
    }
    init(timer order: Int) {
        task = 0
        serial = -order
    }
    var isTimer: Bool { task == 0 && serial < 0 }
}

/// One run of the body under a chooser: the driver thread runs one job at a time and asks the
/// chooser which one next — a ready job, or one of the timers due first.
final class ScheduleRun: TaskExecutor, QuietlyLocked, @unchecked Sendable {
    private struct Entry {
        let job: UnownedJob
        let key: EntityKey
        /// Enqueued for the main actor: runs isolated to it.
        let onMainActor: Bool
    }
    // The ready list is shared with foreign threads (uncontrolled enqueues); everything else is
    // touched on the driver thread only.
    let lock = NSCondition()
    private var ready: [Entry] = []
    private var foreignArrivals: [String] = []
    private var awaitingForeignWork = false
    private var knownTasks: Set<UInt64> = []
    private var jobSerial = 0
    /// Names for tasks not yet seen, in order (`nameNextTasks`), and the names given so.
    private var namesForNewTasks: [String] = []
    private var namedOnArrival: [EntityKey: String] = [:]

    private var names: [EntityKey: String] = [:]
    /// The task a timer or a yield's wake-up job belongs to.
    private var owners: [EntityKey: EntityKey] = [:]
    private var lastCheckpoint: [EntityKey: String] = [:]
    private var hasRun: Set<EntityKey> = []
    private var stepCheckpoints: [String] = []
    private var running: EntityKey?
    /// When the last few steps began (uptime nanoseconds, oldest first): a deadline taken from the
    /// real clock was taken since the oldest — in the job that sleeps, or a few before it, when
    /// the task hopped or computed its deadline early (`addTimer(afterRealDelay:)`).
    private var stepStarts = [UInt64](repeating: DispatchTime.now().uptimeNanoseconds, count: 8)
    /// Tasks waiting in `untilQuiet()` until nothing else can run.
    private var quietWaiters: [UnsafeContinuation<Void, Never>] = []
    private(set) var rootResult: ScheduleOutcome?
    /// The run's virtual time; from code under exploration, through `now`, `setTimer` and
    /// `cancelTimer` (quietly, like the rest).
    let clock = VirtualTimeline()
    /// The steps so far, and the one running with when it began. The driver thread changes
    /// them under `progressLock` (and reads them without it); the watchdog on another thread
    /// (`blockedReport`) reads them under it.
    private let progressLock = NSLock()
    private var records: [StepRecord] = []
    private var runningStep: (record: StepRecord, began: UInt64)?
    private var search = Search.replay

    let stepCap: Int
    let foreignWaitSeconds: Double
    let workQuantum: Duration
    /// Set when each task's jobs run on a thread of its own (for ThreadSanitizer).
    private let lanes: TaskLanes?
    init(stepCap: Int, foreignWaitSeconds: Double, tasksOnOwnThreads: Bool = false, workQuantum: Duration = .zero) {
        self.stepCap = stepCap
        self.foreignWaitSeconds = foreignWaitSeconds
        self.workQuantum = workQuantum
        lanes = tasksOnOwnThreads ? TaskLanes() : nil
    }

    // MARK: TaskExecutor

    func enqueue(_ job: consuming ExecutorJob) { add(UnownedJob(job)) }

    /// Adds a job; from a thread other than the driver it is noted as uncontrolled.
    func add(_ job: UnownedJob, isolatedToMain: Bool = false) {
        // The executor's edge, for the lanes (`TaskLanes`); on the one driver thread it orders nothing.
        RaceDetector.happensBefore(address: unsafeBitCast(job, to: UnsafeRawPointer.self))
        locked { addLocked(job, isolatedToMain: isolatedToMain) }
    }

    private func addLocked(_ job: UnownedJob, isolatedToMain: Bool) {
        jobSerial += 1
        let key = EntityKey(job, serial: jobSerial)
        // `Task.yield()` enqueues a job of the runtime's that makes the task ready again: named
        // after the task that yielded (the one running), not taken for an actor.
        if key.task == 0, let running, JobKind.of(job) == .nullaryContinuation { owners[key] = running }
        ready.append(Entry(job: job, key: key, onMainActor: isolatedToMain))
        if key.task != 0, knownTasks.insert(key.task).inserted, !namesForNewTasks.isEmpty {
            namedOnArrival[key] = namesForNewTasks.removeFirst()
        }
        if !DriverThread.isCurrent(self) {
            foreignArrivals.append("a job was enqueued from another thread (a callback on a Dispatch queue, the main actor, or a thread of your own)")
            lock.broadcast()
        }
    }

    /// A job the runtime wants run after `delay` (a thread running the run's jobs).
    func addTimer(_ job: UnownedJob, after delay: Duration) {
        RaceDetector.happensBefore(address: unsafeBitCast(job, to: UnsafeRawPointer.self))
        RaceDetector.quietly { _ = clock.add(.job(job), after: delay, owner: running) }
    }

    /// A job due after `delay` from now on a real clock (`ContinuousClock`, the runtime's
    /// deadlines). The code took its deadline from the real clock a moment before — in this job
    /// or one of the few before it — so the sleep it asked for lies between `delay` and `delay`
    /// plus the time since those steps began: the roundest duration there (`RealDeadline.sleep`)
    /// — a 50 ms sleep is 50 ms however loaded the machine, and a replay sets the same timers.
    func addTimer(_ job: UnownedJob, afterRealDelay delay: Duration) {
        let since = RaceDetector.quietly { DispatchTime.now().uptimeNanoseconds &- stepStarts[0] }
        addTimer(job, after: RealDeadline.sleep(atLeast: delay, atMost: delay + .nanoseconds(Int64(clamping: since))))
    }

    /// A job due at `deadline` on the runtime's clock `clock` (1 continuous, 2 suspending). Exact
    /// when the code took the deadline from a virtual reading (`ClockReadings`), or from a real one
    /// the runtime made lately (a generic `some Clock` reads the real clock; on Linux the runner
    /// keeps the latest readings, and of the delays they leave the one asked for is the roundest
    /// — a clock's readings end in noise, a sleep asked for does not: `RealDeadline.roundest`).
    /// Else a deadline on the real clock, read back as `addTimer(_:afterRealDelay:)` says.
    func addTimer(_ job: UnownedJob, deadline: Duration, clock: Int32) {
        if ClockReadings.isVirtual(deadline) {
            return addTimer(job, after: max(.zero, deadline - ClockReadings.virtualEpoch - now))
        }
        var readings = [Int64](repeating: 0, count: 16)
        let count = Int(workbook_explorer_runtime_clock_readings(clock, &readings, Int32(readings.count)))
        let delays = readings.prefix(count).map { deadline - .nanoseconds($0) }.filter { $0 >= .zero }
        if !delays.isEmpty {
            addTimer(job, after: RealDeadline.roundest(delays))
        } else {
            addTimer(job, afterRealDelay: deadline - RuntimeHooks.now(clock: clock))
        }
    }

    /// Virtual now, for `ExplorerClock`.
    var now: Duration { RaceDetector.quietly { clock.now } }

    /// An `ExplorerClock` sleeper's timer; its number, for `cancelTimer`.
    func setTimer(_ continuation: CheckedContinuation<Void, any Error>, after delay: Duration) -> Int {
        RaceDetector.quietly { clock.add(.continuation(continuation), after: delay, owner: running) }
    }

    /// A sleeper's task was cancelled: its timer goes and it wakes (the resume is not quiet: it
    /// is the canceller's edge to the sleeper).
    func cancelTimer(_ number: Int) {
        let clock = RaceDetector.quietly { self.clock }
        clock.cancel(number)
    }

    /// Whether the driver has nothing to run and is waiting for work from another thread.
    var isAwaitingForeignWork: Bool { locked { awaitingForeignWork } }

    /// Returns once the driver has nothing to run and waits for work from another thread, or
    /// after `seconds` (any thread but the run's).
    func waitUntilAwaitingForeignWork(seconds: Double) {
        let start = Date()
        while !isAwaitingForeignWork, Date().timeIntervalSince(start) < seconds { usleep(200) }
    }

    /// Whether `job` is one of this run's tasks.
    func owns(_ job: UnownedJob) -> Bool {
        locked {
            let id = taskID(of: job)
            return id != 0 && knownTasks.contains(id)
        }
    }

    // MARK: Driving

    // What code under exploration calls — on the driver, or on a task's lane (`TaskLanes`):
    // all of it `quietly`, so the explorer's own state never orders two tasks for TSan, nor
    // looks like a race in a build where the explorer is instrumented too.

    func finishRoot(_ outcome: ScheduleOutcome) { RaceDetector.quietly { rootResult = outcome } }

    func checkpoint(_ label: String) {
        RaceDetector.quietly {
            progressLock.lock()
            stepCheckpoints.append(label)
            progressLock.unlock()
            if let running { lastCheckpoint[running] = label }
        }
    }

    func waitUntilQuiet(_ continuation: UnsafeContinuation<Void, Never>) { RaceDetector.quietly { quietWaiters.append(continuation) } }

    func nameCurrent(_ name: String) {
        let onLane = RaceDetector.quietly {
            if let running { names[running] = name }
            return lanes != nil
        }
        if onLane { TaskLanes.nameThisThread(name) }  // the task's lane thread takes the name
    }

    func nameNextTasks(_ names: [String]) {
        locked { namesForNewTasks += names }
    }

    /// Runs steps until nothing is ready and no timer is pending, then reports.
    /// With `stopBefore`, stops when that step (1-based) is next, without running it.
    func drive<C: Chooser>(_ chooser: inout C, search: Search, stopBefore: Int? = nil) -> ScheduleReport {
        var previous: EntityKey?
        var outcome: ScheduleOutcome?
        var nextKey: EntityKey?
        progressLock.lock()
        self.search = search
        progressLock.unlock()
        ScheduleJournal.begin()
        // Once it has ended no schedule is in progress: a crash after it (in a check's case run
        // outside the explorer) must not be reported as this schedule's.
        defer { ScheduleJournal.end() }
        while outcome == nil {
            lock.lock()
            let readyEntries = ready
            lock.unlock()
            let due = clock.due(advancing: readyEntries.isEmpty, workQuantum: workQuantum)
            if readyEntries.isEmpty && due.isEmpty {
                if !quietWaiters.isEmpty {
                    // Nothing else can run: wake those waiting for that moment (they become ready).
                    let waiters = quietWaiters
                    quietWaiters = []
                    if let lanes { lanes.wake(.wakeAll(waiters), for: self) } else { for waiter in waiters { waiter.resume() } }
                    continue
                }
                if rootResult != nil { break }
                // Something outside may still resume a continuation; wait a moment for it.
                lock.lock()
                if ready.isEmpty && foreignWaitSeconds > 0 {
                    awaitingForeignWork = true
                    let giveUp = Date(timeIntervalSinceNow: foreignWaitSeconds)
                    while ready.isEmpty && lock.wait(until: giveUp) {}  // a wake-up without work waits on
                    awaitingForeignWork = false
                }
                let stillEmpty = ready.isEmpty
                lock.unlock()
                if stillEmpty { outcome = .deadlock(waiting(records).map(describe)) }
                continue
            }
            // Plain loops, not key paths: a debug build (what checks run) spends most of its
            // time instantiating generic metadata for key-path projections otherwise.
            // The main actor is one serial executor: of its jobs only the oldest is a choice.
            var candidates: [Int] = []
            candidates.reserveCapacity(readyEntries.count)
            var keys: [EntityKey] = []
            keys.reserveCapacity(readyEntries.count + due.count)
            var mainActor: Set<EntityKey> = []
            for (index, entry) in readyEntries.enumerated() {
                if entry.onMainActor {
                    if !mainActor.isEmpty { continue }
                    mainActor.insert(entry.key)
                }
                candidates.append(index)
                keys.append(entry.key)
            }
            for timer in due {
                keys.append(timer.key)
                if owners[timer.key] == nil { owners[timer.key] = timer.owner }
            }
            // The default scheduler: the entity that ran last if it is ready again, else the one
            // waiting longest; a timer only when nothing is ready.
            var defaultIndex = 0
            if !candidates.isEmpty, let previous {
                for index in 0..<candidates.count where keys[index] == previous {
                    defaultIndex = index
                    break
                }
            }
            var choice = chooser.choose(step: records.count, ready: keys, defaultIndex: defaultIndex) {
                let table = stepTable(records, pending: keys)
                return Explorer.ChoicePoint(step: records.count + 1,
                                            ready: keys.map { (mainActor.contains($0) ? .onMainActor(table.entity($0)) : table.entity($0), hasRun.contains($0), lastCheckpoint[$0]) },
                                            defaultChoice: defaultIndex, history: table.steps)
            }
            if !keys.indices.contains(choice) { choice = defaultIndex }

            let key = keys[choice]
            if let stopBefore, records.count + 1 >= stopBefore {
                nextKey = key
                outcome = .stopped(beforeStep: records.count + 1)
                break
            }
            ScheduleJournal.record(step: records.count, choice: choice)
            running = key
            let began = DispatchTime.now().uptimeNanoseconds
            stepStarts.removeFirst()
            stepStarts.append(began)
            stepCheckpoints = []
            progressLock.lock()
            runningStep = (StepRecord(candidates: keys, mainActor: mainActor, choice: choice, defaultChoice: defaultIndex, checkpoints: []), began)
            progressLock.unlock()
            if choice < candidates.count {
                // Foreign arrivals only append, so the index still holds.
                let entry = locked { ready.remove(at: candidates[choice]) }
                // On the driver thread the main actor's executor is `ExplorerMainActor` where the
                // runtime has the hook for it, else the runtime's own: isolation holds either way.
                runJob(entry.job, task: entry.key.task, onMainActor: entry.onMainActor)
            } else {
                switch clock.fire(due[choice - candidates.count]) {
                case let .job(job): runJob(job, task: taskID(of: job), onMainActor: false)
                case let .continuation(continuation):
                    if let lanes { lanes.wake(.wake(continuation), for: self) } else { continuation.resume(returning: ()) }
                }
            }
            running = nil
            hasRun.insert(key)
            progressLock.lock()
            records.append(StepRecord(candidates: keys, mainActor: mainActor, choice: choice, defaultChoice: defaultIndex, checkpoints: stepCheckpoints))
            runningStep = nil
            progressLock.unlock()
            previous = key
            if records.count >= stepCap { outcome = .livelock(steps: records.count) }
        }
        lanes?.finish()
        let final = outcome ?? rootResult ?? .deadlock(waiting(records).map(describe))
        lock.lock()
        let uncontrolled = foreignArrivals
        lock.unlock()
        var left: [Waiting] = []
        if case .deadlock = final { left = waiting(records) }
        return ScheduleReport(outcome: final, table: stepTable(records), token: ReplayToken(choices: records.map(\.choice)),
                              uncontrolled: Array(Set(uncontrolled)).sorted(), search: search, waiting: left, nextKey: nextKey)
    }

    /// Runs one job: here, or on the lane of its task.
    private func runJob(_ job: UnownedJob, task: UInt64, onMainActor: Bool) {
        let executor = asUnownedTaskExecutor()
        if let lanes {
            let name = running.flatMap { key in names[key] ?? locked { namedOnArrival[key] } }
            lanes.run(job, task: task, named: name, on: executor, isolatedToMain: onMainActor, for: self)
        } else if onMainActor {
            // Ordered with the main queue's drains on the main thread, as on Apple platforms.
            RaceDetector.happensAfter(address: TaskLanes.mainActorOrder)
            workbook_explorer_set_main_actor_job(true)
            job.runSynchronously(isolatedTo: MainActor.sharedUnownedExecutor, taskExecutor: executor)
            workbook_explorer_set_main_actor_job(false)
            RaceDetector.happensBefore(address: TaskLanes.mainActorOrder)
        } else {
            job.runSynchronously(on: executor)
        }
    }

    /// If the step running now began more than `seconds` ago: the schedule up to and including
    /// it, as a report (any thread). The step's checkpoints are those it passed so far.
    func blockedReport(after seconds: Double) -> ScheduleReport? {
        progressLock.lock()
        defer { progressLock.unlock() }
        guard let (record, began) = runningStep,
              Double(DispatchTime.now().uptimeNanoseconds &- began) > seconds * 1e9 else { return nil }
        let stuck = StepRecord(candidates: record.candidates, mainActor: record.mainActor, choice: record.choice,
                               defaultChoice: record.defaultChoice, checkpoints: stepCheckpoints)
        let steps = records + [stuck]
        lock.lock()
        let uncontrolled = foreignArrivals
        lock.unlock()
        return ScheduleReport(outcome: .blocked(step: steps.count), table: stepTable(steps), token: ReplayToken(choices: steps.map(\.choice)),
                              uncontrolled: Array(Set(uncontrolled)).sorted(), search: search, waiting: [], nextKey: nil)
    }

    /// The steps so far, to be named when someone asks (most schedules' steps never are).
    private func stepTable(_ records: [StepRecord], pending: [EntityKey] = []) -> StepTable {
        lock.lock()
        let arrivals = namedOnArrival
        lock.unlock()
        return StepTable(records: records, pending: pending, names: arrivals.merging(names) { _, later in later }, owners: owners)
    }

    /// Who is left waiting, and after which checkpoint; the body itself if it never passed one.
    /// Who is left waiting: the body first if it has not finished (it ran the first step), then
    /// every other entity that passed a checkpoint, after its last one. (The run cannot tell
    /// a task that ended from one that waits, so the others are those that might.)
    private func waiting(_ records: [StepRecord]) -> [Waiting] {
        let table = stepTable(records)
        let rootKey = records.first.map { $0.candidates[$0.choice] }
        var left = lastCheckpoint.filter { $0.key != rootKey }.map { Waiting(who: table.entity($0.key), after: $0.value) }
            .sorted { describe($0) < describe($1) }
        if rootResult == nil {
            let root = rootKey.map { Waiting(who: table.entity($0), after: lastCheckpoint[$0]) } ?? Waiting(who: .task(1), after: nil)
            left.insert(root, at: 0)
        }
        return left
    }

    private func describe(_ waiting: Waiting) -> String {
        waiting.after.map { "\(waiting.who) (after \"\(BilingualLabel.english($0))\")" } ?? "\(waiting.who) (the body)"
    }
}

// `SchedulingExecutor` is SPI in Swift 6.3 (`@_spi(ExperimentalScheduling)`). Apple's SDKs ship
// only the public interface of `_Concurrency`, so Xcode cannot see it: the conformance exists
// only where the toolchain's own module is used (Linux). Without it the run's sleeps still work,
// through the runtime's delay and deadline hooks (`RuntimeHooks`); build with
// `-Xswiftc -DWORKBOOK_NO_SCHEDULING_SPI` to take that path here, as a Mac does.
#if compiler(>=6.3) && !canImport(Darwin) && !WORKBOOK_NO_SCHEDULING_SPI
@_spi(ExperimentalScheduling) import _Concurrency

/// Since Swift 6.3 `Task.sleep` asks the task's executor to schedule the wake-up when it can
/// (`SchedulingExecutor`, experimental): the run takes it as a timer in virtual time. Older
/// runtimes, and toolchains that cannot see the SPI, go through the runtime's delay and deadline
/// hooks instead (`RuntimeHooks`).
@available(macOS 26.4, iOS 26.4, watchOS 26.4, tvOS 26.4, visionOS 26.4, *)
extension ScheduleRun: SchedulingExecutor {
    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        addTimer(UnownedJob(job), after: max(.zero, delay as? Duration ?? .zero))
    }

    /// Exact for `ExplorerClock` and for deadlines taken from a virtual reading (`ClockReadings`).
    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        if let instant = instant as? ContinuousClock.Instant {
            addTimer(job, deadline: unsafeBitCast(instant, to: Duration.self), clock: 1)
        } else if let instant = instant as? SuspendingClock.Instant {
            addTimer(job, deadline: unsafeBitCast(instant, to: Duration.self), clock: 2)
        } else {
            let delay = clock.now.duration(to: instant) as? Duration ?? .zero
            if clock is ExplorerClock { addTimer(job, after: max(.zero, delay)) } else { addTimer(job, afterRealDelay: delay) }
        }
    }
}
#endif

/// The main actor, as the code the explorer drives sees it (`RuntimeHooks`): its jobs join the
/// run's ready list, marked for the main actor; only the oldest of them is a choice (one serial
/// executor, in order). One for the process — a task keeps its executor unretained, so this one
/// must outlive every run; a job arriving after its run ended is dropped, like the run's other
/// abandoned jobs.
final class ExplorerMainActor: SerialExecutor {
    static let shared = ExplorerMainActor()
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        RuntimeHooks.run(for: job)?.add(job, isolatedToMain: true)
    }
    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// The task executor the explorer gives the unstructured tasks that code under exploration
/// makes (`Task {}`, `Task.detached`, `Task.immediate`; `swift_task_create` in
/// ExplorerDispatchInterposer.c): their jobs, and their hops to actors, join the run that owns
/// them, like the body's own. One for the process, as `ExplorerMainActor`: a task keeps its
/// preference unretained. A job arriving after its run ended is dropped, like the run's other
/// abandoned jobs.
final class ExplorerTaskExecutor: TaskExecutor {
    static let shared = ExplorerTaskExecutor()
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        RuntimeHooks.run(for: job)?.add(job)
    }

    /// Steers the tasks made on threads of a run here from now on (nil: no longer).
    static func steer(_ on: Bool) {
        guard on else { return workbook_explorer_steer_tasks_to(nil, 0) }
        // An `UnownedTaskExecutor` is the runtime's executor reference: two words, identity first.
        let executor = shared.asUnownedTaskExecutor()
        withUnsafeBytes(of: executor) { words in
            workbook_explorer_steer_tasks_to(words.load(as: UnsafeRawPointer.self),
                                             words.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UInt.self))
        }
    }
}

/// A sleep's length from a deadline taken on a real clock.
enum RealDeadline {
    /// The roundest duration in `atLeast...atMost`, the largest of that roundness: a multiple of a
    /// second if one is there, else of 100 ms, 10 ms, 1 ms, … down to a microsecond. Sleeps are
    /// asked for in round durations, and the bounds hold the one asked for; the larger of two
    /// equally round candidates is nearer the time the deadline was taken. A passed deadline is now.
    static func sleep(atLeast low: Duration, atMost high: Duration) -> Duration {
        let lowest = max(Int64(0), nanoseconds(low)), highest = max(lowest, nanoseconds(high))
        guard highest > 0 else { return .zero }
        var step: Int64 = 1_000_000_000
        while step >= 1_000 {
            let largest = highest / step * step
            if largest >= lowest, largest > 0 { return .nanoseconds(largest) }
            step /= 10
        }
        return .nanoseconds(highest)
    }

    /// Of `candidates`, the one with the most trailing decimal zeros in nanoseconds (a sleep asked
    /// for is round; the others are a clock's noise), the first on a tie.
    static func roundest(_ candidates: [Duration]) -> Duration {
        func zeros(_ duration: Duration) -> Int {
            var value = nanoseconds(duration), count = 0
            guard value > 0 else { return value == 0 ? 19 : -1 }
            while value % 10 == 0 { value /= 10; count += 1 }
            return count
        }
        var best = candidates[0]
        for candidate in candidates.dropFirst() where zeros(candidate) > zeros(best) { best = candidate }
        return best
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }
}

/// What a step did, in keys.
struct StepRecord: Sendable {
    let candidates: [EntityKey]
    let mainActor: Set<EntityKey>
    let choice: Int
    let defaultChoice: Int
    let checkpoints: [String]
}

/// A run's steps, named only when first asked for: a search runs thousands of schedules and
/// looks at the names of one. Names: `nameTask` / `nameNextTasks` names, else tasks numbered in
/// order of first appearance (in the steps, then in `pending`: the entities ready at a choice
/// point being shown); an actor draining its queue; a timer, with the task that slept; the job
/// that ends a `Task.yield()`, with the task that yielded.
final class StepTable: @unchecked Sendable {  // inputs never change; the naming state is under `lock`
    let records: [StepRecord]
    private let pending: [EntityKey]
    private let owners: [EntityKey: EntityKey]  // of timers and yields' wake-up jobs
    private let lock = NSLock()
    private var entities: [EntityKey: Entity]
    private var tasksNumbered = 0
    private var named: [ScheduleStep]?

    init(records: [StepRecord], pending: [EntityKey] = [], names: [EntityKey: String], owners: [EntityKey: EntityKey]) {
        self.records = records
        self.pending = pending
        self.owners = owners
        entities = names.mapValues { .named($0) }
    }

    var steps: [ScheduleStep] { lock.withLock { resolve() } }

    func entity(_ key: EntityKey) -> Entity {
        lock.withLock {
            _ = resolve()
            return name(key)
        }
    }

    /// How many choices differed from the default scheduler (no naming needed).
    var deviations: Int {
        var count = 0
        for record in records where record.choice != record.defaultChoice { count += 1 }
        return count
    }

    /// Under `lock`.
    private func name(_ key: EntityKey) -> Entity {
        if let known = entities[key] { return known }
        let made: Entity
        if key.isTimer {
            made = .timer(owner: owners[key].map(name))
        } else if key.task != 0 {
            tasksNumbered += 1
            made = .task(tasksNumbered)
        } else if let owner = owners[key] {
            made = .yieldEnds(owner: name(owner))
        } else {
            made = .actor
        }
        entities[key] = made
        return made
    }

    /// Names every entity in order of appearance and builds the steps, once. Under `lock`.
    private func resolve() -> [ScheduleStep] {
        if let named { return named }
        var steps: [ScheduleStep] = []
        steps.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            let ready = record.candidates.map { record.mainActor.contains($0) ? Entity.onMainActor(name($0)) : name($0) }
            steps.append(ScheduleStep(number: index + 1, choice: record.choice, readyEntities: ready, who: ready[record.choice],
                                      checkpoints: record.checkpoints, defaultChoice: record.defaultChoice))
        }
        pending.forEach { _ = name($0) }
        named = steps
        return steps
    }
}
