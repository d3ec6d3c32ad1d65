import Foundation
import ExerciseKit

/// Workers and publishers with one mistake at a time.
struct CancellationVariant: CooperativeCancellationProtocol {
    enum Mistake { case neverChecks, checksOnceAtStart, publisherIgnoresDependencies }
    let mistake: Mistake
    init() { mistake = .neverChecks }
    init(_ mistake: Mistake) { self.mistake = mistake }

    func makeWorker(items: [Int], sink: WorkSink) -> Operation {
        VariantWorker(items: items, sink: sink, mistake: mistake)
    }

    func makePublisher(sink: WorkSink) -> Operation {
        VariantPublisher(sink: sink, ignoresDependencies: mistake == .publisherIgnoresDependencies)
    }
}

private final class VariantWorker: Operation, @unchecked Sendable {
    let items: [Int], sink: WorkSink, mistake: CancellationVariant.Mistake
    init(items: [Int], sink: WorkSink, mistake: CancellationVariant.Mistake) {
        self.items = items
        self.sink = sink
        self.mistake = mistake
    }
    override func main() {
        if mistake == .checksOnceAtStart && isCancelled { return }
        for item in items {
            if mistake == .publisherIgnoresDependencies && isCancelled { return }
            sink.process(item)
        }
    }
}

private final class VariantPublisher: Operation, @unchecked Sendable {
    let sink: WorkSink, ignoresDependencies: Bool
    init(sink: WorkSink, ignoresDependencies: Bool) {
        self.sink = sink
        self.ignoresDependencies = ignoresDependencies
    }
    override func main() {
        guard !isCancelled else { return }
        if !ignoresDependencies && dependencies.contains(where: \.isCancelled) { return }
        sink.publish()
    }
}
