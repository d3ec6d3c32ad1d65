import Foundation
import ExerciseKit

/// Reference: cancellation in `Operation` is cooperative — `cancel()` only sets `isCancelled`.
/// The worker checks it before every item; the publisher also looks at its dependencies, since
/// a cancelled dependency still counts as finished and does not stop its dependants.
public final class CooperativeCancellation: CooperativeCancellationProtocol {
    public init() {}

    public func makeWorker(items: [Int], sink: WorkSink) -> Operation {
        ItemWorker(items: items, sink: sink)
    }

    public func makePublisher(sink: WorkSink) -> Operation {
        Publisher(sink: sink)
    }
}

private final class ItemWorker: Operation, @unchecked Sendable {  // immutable after init
    private let items: [Int]
    private let sink: WorkSink

    init(items: [Int], sink: WorkSink) {
        self.items = items
        self.sink = sink
    }

    override func main() {
        for item in items {
            if isCancelled { return }
            sink.process(item)
        }
    }
}

private final class Publisher: Operation, @unchecked Sendable {  // immutable after init
    private let sink: WorkSink

    init(sink: WorkSink) { self.sink = sink }

    override func main() {
        guard !isCancelled, !dependencies.contains(where: \.isCancelled) else { return }
        sink.publish()
    }
}
