import Foundation
import Dispatch
import ExerciseKit
import WorkbookCore

/// Shared shape of most FanOut variants: a semaphore, a group, a lock-protected slot per id,
/// and a knob for each mistake.
struct FanOutVariant: FanOutProtocol {
    var limitsInFlight = true
    var storesByIndex = true
    var notifiesBeforeStarting = false
    var leavesOnFailure = true
    var waitsForEachReply = false
    var takesPermitAfterFetch = false

    init() {}
    init(_ configure: (inout FanOutVariant) -> Void) {
        var variant = FanOutVariant()
        configure(&variant)
        self = variant
    }

    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        let permits = DispatchSemaphore(value: maxInFlight)
        let group = DispatchGroup()
        let slots = Locked<[Result<String, FetchError>?]>(Array(repeating: nil, count: ids.count))
        let arrivals = Locked<[Result<String, FetchError>]>([])
        let finish: @Sendable () -> Void = {
            completion(storesByIndex ? slots.current.compactMap { $0 } : arrivals.current)
        }
        if notifiesBeforeStarting { group.notify(queue: .global(), execute: finish) }
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                if limitsInFlight && !takesPermitAfterFetch { permits.wait() }
                group.enter()
                let replied = DispatchSemaphore(value: 0)
                client.fetch(id) { result in
                    slots.withLock { $0[index] = result }
                    arrivals.withLock { $0.append(result) }
                    if limitsInFlight { permits.signal() }
                    replied.signal()
                    if case .failure = result, !leavesOnFailure { return }
                    group.leave()
                }
                if limitsInFlight && takesPermitAfterFetch { permits.wait() }
                if waitsForEachReply { replied.wait() }
            }
            if !notifiesBeforeStarting { group.notify(queue: .global(), execute: finish) }
        }
    }
}

/// Calls completion twice: once from notify, and once more "to be sure".
struct DoubleCompletionFanOut: FanOutProtocol {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        FanOutVariant().fetchAll(ids, maxInFlight: maxInFlight, using: client) { results in
            completion(results)
            completion(results)
        }
    }
}

/// "Each reply writes its own index, so no lock is needed": the slots array is one variable
/// that several reply threads modify with nothing ordering them — a data race.
final class UnguardedSlotsFanOut: FanOutProtocol, @unchecked Sendable {
    private final class Slots: @unchecked Sendable {
        var values: [Result<String, FetchError>?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
    }

    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        let slots = Slots(count: ids.count)
        let permits = DispatchSemaphore(value: maxInFlight)
        let group = DispatchGroup()
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                permits.wait()
                group.enter()
                client.fetch(id) { result in
                    slots.values[index] = result
                    permits.signal()
                    group.leave()
                }
            }
            group.notify(queue: .global()) { completion(slots.values.map { $0! }) }
        }
    }
}

/// Skips the work of passing results on: fetches every id (so the counts look right) but
/// builds the results from what a reply "usually" looks like.
struct GuessedRepliesFanOut: FanOutProtocol {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        FanOutVariant().fetchAll(ids, maxInFlight: maxInFlight, using: client) { _ in
            completion(ids.map { .success("item-\($0)") })
        }
    }
}

/// Counts replies down from `ids.count - 1` instead of `ids.count`: the completion comes one
/// reply early, while the last fetch is still out.
struct OneEarlyFanOut: FanOutProtocol {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        let permits = DispatchSemaphore(value: maxInFlight)
        let slots = Locked<[Result<String, FetchError>?]>(Array(repeating: nil, count: ids.count))
        let remaining = Locked(ids.count - 1)
        if ids.isEmpty { completion([]); return }
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                permits.wait()
                client.fetch(id) { result in
                    slots.withLock { $0[index] = result }
                    permits.signal()
                    let done = remaining.withLock { count -> Bool in
                        count -= 1
                        return count == 0
                    }
                    if done { DispatchQueue.global().async { completion(slots.current.compactMap { $0 }) } }
                }
            }
        }
    }
}

/// Leaves the group before storing: the store is queued on the results queue *after* the
/// notify block that the last leave() queued there, so the completion reads the slots before
/// the last result lands.
final class LeaveBeforeStoreFanOut: FanOutProtocol, @unchecked Sendable {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        let queue = DispatchQueue(label: "variant.fan-out.results")
        let slots = Locked<[Result<String, FetchError>?]>(Array(repeating: nil, count: ids.count))
        let permits = DispatchSemaphore(value: maxInFlight)
        let group = DispatchGroup()
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                permits.wait()
                group.enter()
                client.fetch(id) { result in
                    permits.signal()
                    group.leave()
                    queue.async { slots.withLock { $0[index] = result } }
                }
            }
            group.notify(queue: queue) { completion(slots.current.compactMap { $0 }) }
        }
    }
}

/// The chapter's §11 shape with one change: each reply's bookkeeping (store, signal, leave)
/// is sent to `DispatchQueue.global()`. Sixteen blocks wait for permits on pool threads, so the
/// bookkeeping never gets a pool thread to run on: a starved pool.
final class StarvedPoolFanOut: FanOutProtocol, @unchecked Sendable {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        let queue = DispatchQueue(label: "variant.fan-out.starved")
        let slots = Locked<[Result<String, FetchError>?]>(Array(repeating: nil, count: ids.count))
        let permits = DispatchSemaphore(value: maxInFlight)
        let group = DispatchGroup()
        for (index, id) in ids.enumerated() {
            group.enter()
            DispatchQueue.global().async {
                permits.wait()
                client.fetch(id) { result in
                    DispatchQueue.global().async {
                        slots.withLock { $0[index] = result }
                        permits.signal()
                        group.leave()
                    }
                }
            }
        }
        group.notify(queue: queue) { completion(slots.current.compactMap { $0 }) }
    }
}

/// Counts the replies left instead of using a group, and decides "was that the last one?" in a
/// second step after recording: when the last two replies overlap, both callbacks see 0 and
/// complete. `steps` says what guards the count: an `NSLock`, or a serial queue's `sync`.
final class TwoStepCountFanOut: FanOutProtocol, @unchecked Sendable {  // `slots` and `left` behind `lock` / `queue`
    enum Guard { case lock, serialQueue, oneStep }
    private let guarding: Guard
    init() { guarding = .lock }
    init(_ guarding: Guard) { self.guarding = guarding }

    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient,
                  completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        guard !ids.isEmpty else { return completion([]) }
        let tally = Tally(count: ids.count, guarding: guarding)
        let permits = DispatchSemaphore(value: maxInFlight)
        Thread.detachNewThread {
            for (index, id) in ids.enumerated() {
                permits.wait()
                client.fetch(id) { result in
                    let last = tally.record(result, at: index)
                    permits.signal()
                    if last { completion(tally.results) }
                }
            }
        }
    }

    private final class Tally: @unchecked Sendable {
        private let lock = NSLock(), queue = DispatchQueue(label: "tally")
        private let guarding: Guard
        private var slots: [Result<String, FetchError>?]
        private var left: Int
        init(count: Int, guarding: Guard) {
            slots = Array(repeating: nil, count: count)
            left = count
            self.guarding = guarding
        }
        private func guarded<T>(_ body: () -> T) -> T {
            guarding == .serialQueue ? queue.sync(execute: body) : lock.withLock(body)
        }
        /// True for the reply that completes the set.
        func record(_ result: Result<String, FetchError>, at index: Int) -> Bool {
            if guarding == .oneStep {
                return guarded { slots[index] = result; left -= 1; return left == 0 }
            }
            guarded { slots[index] = result; left -= 1 }
            return guarded { left == 0 }  // the mistake: a second step, after the count may have moved on
        }
        var results: [Result<String, FetchError>] { guarded { slots.map { $0! } } }
    }
}
