import Dispatch
import ExerciseKit

/// Reference: a semaphore of `maxInFlight` permits gates each fetch, a group counts the fetches
/// still out, and a serial queue owns the results array (replies arrive on several threads).
public final class FanOut: FanOutProtocol {
    public init() {}

    public func fetchAll(
        _ ids: [Int],
        maxInFlight: Int,
        using client: FakeClient,
        completion: @escaping @Sendable ([Result<String, FetchError>]) -> Void
    ) {
        let permits = DispatchSemaphore(value: maxInFlight)
        let group = DispatchGroup()
        let results = ResultSlots(count: ids.count)
        // Waiting for permits blocks, so do it off the caller's thread.
        DispatchQueue.global().async {
            for (index, id) in ids.enumerated() {
                permits.wait()
                group.enter()
                client.fetch(id) { result in
                    results.store(result, at: index)
                    permits.signal()
                    group.leave()
                }
            }
            group.notify(queue: .global()) { completion(results.all()) }
        }
    }
}

/// The results, one slot per input position, owned by a serial queue.
private final class ResultSlots: @unchecked Sendable {
    private let queue = DispatchQueue(label: "workbook.fan-out.results")
    private var slots: [Result<String, FetchError>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ result: Result<String, FetchError>, at index: Int) {
        queue.sync { slots[index] = result }
    }

    func all() -> [Result<String, FetchError>] {
        queue.sync { slots.map { $0! } }
    }
}
