import ExerciseKit
import Synchronization

// Exercise 05-continuations/CancellableRequest — read chapters/en/05-continuations.md (ja: chapters/ja/05-continuations.md) first.
//
// Goal: `client.download(name) { result in … }` returns a `DownloadHandle` at once and calls its
// handler exactly once, later: the payload, the client's error, or — after `handle.cancel()` —
// `DownloadError.cancelled` (as `URLSessionTask` does). Wrap it as `async throws` so that
// cancelling the calling task reaches both ends:
//   - not cancelled, `download(_:)` returns the payload or throws the client's error as it is;
//   - cancelled before the call or during the download: the download is cancelled (or never
//     started) and the call throws `CancellationError` — not `DownloadError.cancelled`; a cancel
//     that comes as the download ends may get the download's own ending or `CancellationError`;
//   - the cancellation handler runs at once, on the cancelling thread, concurrently with your
//     operation — possibly before the handle exists (a cancel before the call runs it even
//     before your operation starts); whatever both touch needs a lock;
//   - the continuation is resumed exactly once on every path. Simplest: only the completion
//     handler resumes (a cancelled download still calls back); if another path may resume too,
//     the first takes the continuation and the others find it gone (the chapter's §8).
//
// Check your answer:   swift test --filter ExercisesTests.CancellableRequest
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct Downloader: CancellableRequestProtocol {
    private let client: DownloadClient

    public init(client: DownloadClient) {
        self.client = client
    }

    public func download(_ name: String) async throws -> Payload {
        // TODO: `withTaskCancellationHandler { … withCheckedThrowingContinuation … } onCancel: { … }`;
        // the handler cancels the download, the completion handler resumes.
        todo()
    }
}
