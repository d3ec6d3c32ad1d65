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
/// queue) is a new entity every time it is enqueued — its address is not stable across runs.
struct EntityKey: Hashable {
    let task: UInt64
    let serial: Int
    init(_ job: UnownedJob, serial: Int) {
        task = taskID(of: job)
        self.serial = task == 0 ? serial : 0
    }
}

/// One run of the body under a chooser: the driver thread runs one job at a time and asks the
/// chooser which one next.
final class ScheduleRun: TaskExecutor, @unchecked Sendable {
    // The ready list is shared with foreign threads (uncontrolled enqueues); everything else is
    // touched on the driver thread only.
    private let lock = NSCondition()
    private var ready: [(job: UnownedJob, key: EntityKey)] = []
    private var foreignArrivals: [String] = []
    private var awaitingForeignWork = false
    private var knownTasks: Set<UInt64> = []
    private var jobSerial = 0

    private var names: [EntityKey: String] = [:]
    private var taskCount = 0
    private var lastCheckpoint: [EntityKey: String] = [:]
    private var hasRun: Set<EntityKey> = []
    private var stepCheckpoints: [String] = []
    private var running: EntityKey?
    private(set) var rootResult: ScheduleOutcome?
    let clock = VirtualTimeline()

    let stepCap: Int
    let foreignWaitSeconds: Double
    init(stepCap: Int, foreignWaitSeconds: Double) {
        self.stepCap = stepCap
        self.foreignWaitSeconds = foreignWaitSeconds
    }

    // MARK: TaskExecutor

    func enqueue(_ job: consuming ExecutorJob) { add(UnownedJob(job)) }

    /// Adds a job; from a thread other than the driver it is noted as uncontrolled.
    func add(_ job: UnownedJob) {
        lock.lock()
        jobSerial += 1
        let key = EntityKey(job, serial: jobSerial)
        ready.append((job, key))
        if key.task != 0 { knownTasks.insert(key.task) }
        if !DriverThread.isCurrent(self) {
            foreignArrivals.append("a job was enqueued from another thread (a callback on a Dispatch queue, the main actor, or a thread of your own)")
            lock.broadcast()
        }
        lock.unlock()
    }

    /// Whether the driver has nothing to run and is waiting for work from another thread.
    var isAwaitingForeignWork: Bool {
        lock.lock()
        defer { lock.unlock() }
        return awaitingForeignWork
    }

    /// Whether `job` is one of this run's tasks.
    func owns(_ job: UnownedJob) -> Bool {
        let id = taskID(of: job)
        guard id != 0 else { return false }
        lock.lock()
        defer { lock.unlock() }
        return knownTasks.contains(id)
    }

    // MARK: Driving

    func finishRoot(_ outcome: ScheduleOutcome) { rootResult = outcome }

    func checkpoint(_ label: String) {
        stepCheckpoints.append(label)
        if let running { lastCheckpoint[running] = label }
    }

    func nameCurrent(_ name: String) {
        if let running { names[running] = name }
    }

    private func name(of key: EntityKey) -> String {
        if let name = names[key] { return name }
        let name: String
        if key.task != 0 {
            taskCount += 1
            name = "task \(taskCount)"
        } else {
            name = "actor"
        }
        names[key] = name
        return name
    }

    /// Runs jobs until nothing is ready and no timer is pending, then reports.
    func drive<C: Chooser>(_ chooser: inout C, strategy: String) -> ScheduleReport {
        var steps: [ScheduleStep] = []
        var choices: [Int] = []
        var previous: EntityKey?
        var outcome: ScheduleOutcome?
        while outcome == nil {
            lock.lock()
            if ready.isEmpty {
                lock.unlock()
                if clock.fireEarliest() { continue }
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
                if stillEmpty {
                    outcome = .deadlock(waitingDescription())
                }
                continue
            }
            let keys = ready.map(\.key)
            lock.unlock()
            let defaultIndex = previous.flatMap { keys.firstIndex(of: $0) } ?? 0
            var choice = chooser.choose(step: steps.count, ready: keys, defaultIndex: defaultIndex) {
                Explorer.ChoicePoint(step: steps.count + 1, ready: keys.map { (name(of: $0), hasRun.contains($0), lastCheckpoint[$0]) },
                                     defaultChoice: defaultIndex, history: steps)
            }
            if !keys.indices.contains(choice) { choice = defaultIndex }
            lock.lock()  // foreign arrivals only append, so the indices still hold
            let (job, key) = ready.remove(at: choice)
            lock.unlock()

            let readyNames = keys.map(name(of:))
            running = key
            stepCheckpoints = []
            job.runSynchronously(on: asUnownedTaskExecutor())
            running = nil
            hasRun.insert(key)
            choices.append(choice)
            steps.append(ScheduleStep(number: steps.count + 1, choice: choice, ready: readyNames, entity: name(of: key),
                                      checkpoints: stepCheckpoints, defaultChoice: defaultIndex))
            previous = key
            if steps.count >= stepCap { outcome = .livelock(steps: steps.count) }
        }
        let final = outcome ?? rootResult ?? .deadlock(waitingDescription())
        lock.lock()
        let uncontrolled = foreignArrivals
        lock.unlock()
        return ScheduleReport(outcome: final, steps: steps, token: ReplayToken(choices: choices),
                              uncontrolled: Array(Set(uncontrolled)).sorted(), strategy: strategy)
    }

    private func waitingDescription() -> [String] {
        let waiting = lastCheckpoint.keys.filter { key in names[key] != nil }
        var lines = waiting.map { "\(names[$0]!) (after \"\(lastCheckpoint[$0]!)\")" }.sorted()
        if rootResult == nil && lines.isEmpty { lines = ["task 1 (the body)"] }
        return lines
    }
}
