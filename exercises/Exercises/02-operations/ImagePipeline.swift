import Foundation
import ExerciseKit

// Exercise 02-operations/ImagePipeline — read chapters/en/02-operations.md (ja: chapters/ja/02-operations.md) first.
//
// Goal: an image goes through five stages:
//
//     download → decode → thumbnail ┐
//                       → metadata  ┴→ save
//
// Make one operation per stage with `stages.operation(for:)`, add a dependency for every
// arrow, and only then add all five to `queue` (do not change its settings: it allows 2 at a
// time). `schedule` may be called from any thread.
// Properties the check tests: every arrow is respected; no dependency is added after its
// operation was queued; thumbnail and metadata can run at the same time; the queue's limit
// stands.
//
// Check your answer:   swift test --filter ExercisesTests.ImagePipeline
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public final class ImagePipeline: ImagePipelineProtocol {
    public init() {}

    public func schedule(_ stages: PipelineStages, on queue: OperationQueue) {
        // TODO: make the five operations, add the dependencies (one per arrow), add them to `queue`.
        todo()
    }
}
