import Foundation
import Synchronization
import WorkbookCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Learns when a thread ends, from the thread itself: a thread-specific value whose destructor
/// runs as the thread exits (POSIX `pthread_key_create`).
///
/// Chapter 03's Worker check uses it to tell a thread of the worker's own — it ends when the
/// worker ends — from a pool thread of a `DispatchQueue`, which goes back to the pool and lives on.
final class ThreadEndWatch: Sendable {
    private let ended = Atomic<Bool>(false)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { threadEnded($0) } == 0, "pthread_key_create failed")
        return key
    }()

    /// The watch of the calling thread (made on first use).
    static func current() -> ThreadEndWatch {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadEndWatch>.fromOpaque(raw).takeUnretainedValue()
        }
        let watch = ThreadEndWatch()
        pthread_setspecific(key, Unmanaged.passRetained(watch).toOpaque())
        return watch
    }

    var hasEnded: Bool { ended.load(ordering: .sequentiallyConsistent) }

    /// True once the thread has ended; false if it still runs after `seconds`.
    func waitForEnd(seconds: Double) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while !hasEnded {
            if MonotonicClock.now() > deadline { return false }
            usleep(500)
        }
        return true
    }

    fileprivate func markEnded() { ended.store(true, ordering: .sequentiallyConsistent) }
}

private func threadEnded(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    Unmanaged<ThreadEndWatch>.fromOpaque(raw).takeRetainedValue().markEnded()
}

/// What a thread spent while it was inside one call: CPU time, and (on Linux) how often it went
/// to sleep and was woken again.
///
/// A call that waits on a condition sleeps once and wakes once; a call that polls — `sleep`
/// a millisecond and look again, or spin — wakes up again and again or burns CPU while nothing
/// changes. Measured on the calling thread, before and after the call.
struct ThreadUsage: Sendable {
    var cpuSeconds: Double
    /// Voluntary context switches (times the thread went to sleep); nil where unknown.
    var sleeps: Int?
    /// Involuntary context switches (times the scheduler took the core away); nil where unknown.
    var preemptions: Int?

    static func current() -> ThreadUsage {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        let cpu = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        #if os(Linux)
        var usage = rusage()
        getrusage(1 /* RUSAGE_THREAD */, &usage)
        return ThreadUsage(cpuSeconds: cpu, sleeps: usage.ru_nvcsw, preemptions: usage.ru_nivcsw)
        #else
        return ThreadUsage(cpuSeconds: cpu, sleeps: nil, preemptions: nil)
        #endif
    }

    static func - (after: ThreadUsage, before: ThreadUsage) -> ThreadUsage {
        ThreadUsage(cpuSeconds: after.cpuSeconds - before.cpuSeconds,
                    sleeps: after.sleeps.flatMap { a in before.sleeps.map { a - $0 } },
                    preemptions: after.preemptions.flatMap { a in before.preemptions.map { a - $0 } })
    }
}

/// The kernel's id of a thread, where the platform exposes it (Linux: `/proc/thread-self`), so
/// the check can ask whether that thread is asleep.
struct KernelThread: Sendable {
    let tid: Int

    /// The calling thread, or nil where `/proc` is not available.
    static func current() -> KernelThread? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let last = path.split(separator: "/").last, let tid = Int(last) else { return nil }
        return KernelThread(tid: tid)
        #else
        return nil
        #endif
    }

    enum State { case asleep, running, gone }

    /// What the thread has spent so far — CPU time and times it went to sleep — as the kernel
    /// counts it (`/proc/self/task/<tid>`); nil once the thread is gone. Lets the check watch a
    /// thread of the answer's that it did not start, such as a worker's idle thread.
    var usage: ThreadUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state is field 3, utime and stime (clock ticks) are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let sleeps = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        return ThreadUsage(cpuSeconds: (user + system) / max(ticksPerSecond, 1), sleeps: sleeps, preemptions: nil)
    }

    /// Asleep: blocked in the kernel (a wait, a lock, a sleep). Gone: the thread has ended.
    var state: State {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .gone }
        switch text[text.index(after: close)...].split(separator: " ").first {
        case "S", "D": return .asleep
        case "Z", "X", nil: return .gone
        default: return .running
        }
    }
}

/// Returns once `thread` is blocked — asleep in two looks a millisecond apart — after a
/// load-adaptive observation window; where the kernel cannot be asked, after the window alone.
/// Checks use it before they change what a blocked call waits for, so that "the call was
/// already waiting" is a fact and not a guess.
func waitUntilBlocked(_ thread: KernelThread?, maxSeconds: Double = 2) {
    observationWindow()
    guard let thread else { return }
    let deadline = MonotonicClock.now() + UInt64(maxSeconds * 1e9)
    var asleepInARow = 0
    while asleepInARow < 2 && MonotonicClock.now() < deadline {
        switch thread.state {
        case .asleep: asleepInARow += 1
        case .running: asleepInARow = 0
        case .gone: return
        }
        usleep(1_000)
    }
}

/// A sentence about a thread that polled instead of waiting — it went to sleep and woke up
/// again and again, or burned CPU, while nothing changed — or nil if it slept.
///
/// A thread blocked in `condition.wait()` goes to sleep once and is woken once (twice if it
/// then waits for the lock); one that sleeps a millisecond and looks again wakes up dozens of
/// times in 50 ms, and one that spins uses the CPU the whole time.
func pollingDescription(_ who: Localized, usage: ThreadUsage, seconds: Double) -> Localized? {
    let ms = Int(seconds * 1000), cpuMs = Int(usage.cpuSeconds * 1000)
    if let sleeps = usage.sleeps, sleeps > 8 {
        return Localized(
            "\(who.en) for \(ms) ms, and its thread went to sleep and woke up \(sleeps) times in that span (a thread waiting on a condition sleeps once, until it is woken): it polls",
            ja: "\(who.ja)（\(ms) ms）、その間にスレッドが \(sleeps) 回眠っては起きました（条件変数で待つスレッドは起こされるまで 1 回眠るだけです）。ポーリングしています")
    }
    if usage.cpuSeconds > max(0.015, 0.25 * seconds) {
        return Localized(
            "\(who.en) for \(ms) ms, and its thread used \(cpuMs) ms of CPU while nothing changed (a thread waiting on a condition uses none): it spins",
            ja: "\(who.ja)（\(ms) ms）、何も変わらない間にスレッドが CPU を \(cpuMs) ms 使いました（条件変数で待つスレッドは使いません）。スピンしています")
    }
    return nil
}

/// Watches an idle thread of the answer's for `seconds` and describes it if it polled.
func pollingWhileIdle(_ thread: KernelThread?, who: Localized, seconds: Double = 0.1) -> Localized? {
    guard let thread, let before = thread.usage else { return nil }
    let start = MonotonicClock.now()
    Thread.sleep(forTimeInterval: seconds)
    guard let after = thread.usage else { return nil }
    return pollingDescription(who, usage: after - before, seconds: Double(MonotonicClock.now() - start) / 1e9)
}
