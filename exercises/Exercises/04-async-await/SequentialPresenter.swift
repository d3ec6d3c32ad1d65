import ExerciseKit

// Exercise 04-async-await/SequentialPresenter — read chapters/en/04-async-await.md (ja: chapters/ja/04-async-await.md) first.
//
// Goal: show screens one after another, as an onboarding flow does, with `host`'s
// completion-handler API: `host.present(screen) { … }` calls its handler once, when the screen
// is dismissed (by its user, or by `host.dismiss(screen)`).
//   - `present(_:)` presents one screen and returns once it has been dismissed (a
//     `presentAsync`: the dismiss handler resumes a continuation);
//   - `presentAll(_:)` presents the screens in order, each after the one before was dismissed;
//   - cancelling the calling task dismisses the screen that is up at once (do not leave it for
//     its user), presents no further screen, and throws `CancellationError`. A cancel can land at
//     any moment — also between your last look at `Task.isCancelled` and the screen going up
//     (the check makes it land inside `host.present`, sent from another thread as a UI would:
//     `cancel()` runs your cancellation handler on that thread, so a lock your code holds while
//     calling `host.present` keeps the canceller waiting if the handler takes it too).
//
// Check your answer:   swift test --filter ExercisesTests.SequentialPresenter
// Stuck?               a failing check prints a hint; all hints: exercises/exercises.json

public struct SequentialPresenter: SequentialPresenterProtocol {
    private let host: ScreenHost

    public init(host: ScreenHost) {
        self.host = host
    }

    public func present(_ screen: Screen) async throws {
        // TODO: wait in `withCheckedContinuation` until the dismiss handler resumes it; around
        // that, `withTaskCancellationHandler` whose handler dismisses the screen.
        todo()
    }

    public func presentAll(_ screens: [Screen]) async throws {
        // TODO: present each screen in turn, awaiting each one.
        todo()
    }
}
