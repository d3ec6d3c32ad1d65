import ExerciseKit

// Reference solution of exercise 04-async-await/SequentialPresenter.

public struct SequentialPresenter: SequentialPresenterProtocol {
    private let host: ScreenHost

    public init(host: ScreenHost) {
        self.host = host
    }

    /// The dismiss handler resumes the continuation — the host calls it once, whoever
    /// dismisses. A cancel dismisses the screen from the cancellation handler (which runs at
    /// once, on the cancelling thread), and that dismissal is what resumes the continuation:
    /// one resume, on every path.
    ///
    /// A cancel can land at any moment, also between the first check and `host.present`: then
    /// the handler finds nothing up to dismiss. So the code looks once more right after
    /// presenting — the task is marked cancelled before its handler runs, so one of the two
    /// always sees the other, and a screen on its way as the cancel lands goes again at once.
    public func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                host.present(screen) { continuation.resume() }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
        }
        try Task.checkCancellation()
    }

    /// Each screen after the one before it: the loop awaits each dismissal. A cancel ends the
    /// screen that is up (in `present`), and the throw stops the loop.
    public func presentAll(_ screens: [Screen]) async throws {
        for screen in screens {
            try await present(screen)
        }
    }
}
