import Dispatch
import ExerciseKit
import WorkbookCore

/// Shared shape of the FanOut variants: a group, a lock-protected result list, and a knob for
/// each mistake.
struct FanOutVariant: FanOutProtocol {
    var limitsInFlight = true
    var storesByIndex = true
    var notifiesBeforeStarting = false
    var leavesOnFailure = true
    var waitsForEachReply = false

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
            completion(storesByIndex ? slots.current.map { $0 ?? .failure(.notFound(-1)) } : arrivals.current)
        }
        if notifiesBeforeStarting { group.notify(queue: .global(), execute: finish) }
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                if limitsInFlight { permits.wait() }
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
                if waitsForEachReply { replied.wait() }
            }
            if !notifiesBeforeStarting { group.notify(queue: .global(), execute: finish) }
        }
    }
}

/// Calls completion from every reply once the count is reached, and again from notify.
struct DoubleCompletionFanOut: FanOutProtocol {
    func fetchAll(_ ids: [Int], maxInFlight: Int, using client: FakeClient, completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void) {
        FanOutVariant().fetchAll(ids, maxInFlight: maxInFlight, using: client) { results in
            completion(results)
            completion(results)
        }
    }
}
