import ExerciseKit
import WorkbookCore

// SequentialPresenter answers with one mistake each, written the way a learner might, plus two
// correct answers in other styles.

/// The reference's `present`, for variants whose mistake is elsewhere.
private func presentAndWait(_ host: ScreenHost, _ screen: Screen) async throws {
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

/// Resumes as soon as the screen is presented, not when it goes.
struct ResumesRightAway: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            host.present(screen) {}
            continuation.resume()
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// Presents every screen from a task group: they all go up at once.
struct ConcurrentScreens: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws { try await presentAndWait(host, screen) }
    func presentAll(_ screens: [Screen]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for screen in screens { group.addTask { try await presentAndWait(host, screen) } }
            try await group.waitForAll()
        }
    }
}

/// Checks for cancellation before and after each screen, with no handler: a screen up at the
/// cancel stays until its user closes it.
struct NoCancellationHandler: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            host.present(screen) { continuation.resume() }
        }
        try Task.checkCancellation()
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// The cancellation handler resumes the stored continuation itself instead of dismissing: the
/// screen stays, and its user's dismissal resumes it a second time.
struct HandlerResumesInstead: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        let stored = Locked<CheckedContinuation<Void, any Error>?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                stored.withLock { $0 = continuation }
                host.present(screen) { stored.current?.resume() }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            stored.current?.resume(throwing: CancellationError())
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// The handler dismisses the screen and also resumes: the dismissal's handler already did.
struct HandlerDismissesAndResumes: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        let stored = Locked<CheckedContinuation<Void, any Error>?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                stored.withLock { $0 = continuation }
                host.present(screen) { stored.current?.resume() }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
            stored.current?.resume(throwing: CancellationError())
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// Relies on the handler alone: a task cancelled before a screen goes up still presents it,
/// and the handler, already run, dismisses nothing.
struct HandlerOnly: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                host.present(screen) { continuation.resume() }
            }
        } onCancel: {
            host.dismiss(screen)
        }
        try Task.checkCancellation()
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// Looks at cancellation once, before the loop: a cancel during B dismisses B, and C follows.
struct ChecksOnceBeforeLoop: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                host.present(screen) { continuation.resume() }
            }
        } onCancel: {
            host.dismiss(screen)
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        try Task.checkCancellation()
        for screen in screens { try await present(screen) }
    }
}

/// `try?` in the loop: a cancel skips the rest and the call returns as if all went well.
struct SwallowsCancellation: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws { try await presentAndWait(host, screen) }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try? await present(screen) }
    }
}

/// The dismiss handler resumes only when the task was not cancelled ("the cancel handles it"):
/// a cancel leaves the call waiting.
struct NoResumeWhenCancelled: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                host.present(screen) {
                    if !Task.isCancelled { continuation.resume() }
                }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// The dismiss handler asks `Task.isCancelled` to decide how to resume — but the handler runs
/// in whatever task dismissed the screen (the canceller's, or none), not in the presenting task:
/// a cancel while the last screen is up resumes with success.
struct AsksIsCancelledInHandler: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        guard !Task.isCancelled else { throw CancellationError() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                host.present(screen) {
                    continuation.resume(with: Task.isCancelled ? .failure(CancellationError()) : .success(()))
                }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
        }
    }
    func presentAll(_ screens: [Screen]) async throws {
        guard let first = screens.first else { return }
        try await present(first)
        try await presentAll(Array(screens.dropFirst()))
    }
}

// MARK: Correct answers in other styles

/// Correct: state shared by the operation and the handler under a lock: whichever comes
/// second sees the other and dismisses.
struct LockedHandshake: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        let state = Locked((presented: false, cancelled: false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                host.present(screen) { continuation.resume() }
                let cancelled = state.withLock { state in
                    state.presented = true
                    return state.cancelled
                }
                if cancelled { host.dismiss(screen) }
            }
        } onCancel: {
            let presented = state.withLock { state in
                state.cancelled = true
                return state.presented
            }
            if presented { host.dismiss(screen) }
        }
        try Task.checkCancellation()
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// Correct: a throwing continuation resumed by the dismissal, the task's own check afterwards,
/// and a recursive `presentAll`.
struct RecursiveChecked: SequentialPresenterProtocol {
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        guard !Task.isCancelled else { throw CancellationError() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                host.present(screen) { continuation.resume() }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
        }
        if Task.isCancelled { throw CancellationError() }
    }
    func presentAll(_ screens: [Screen]) async throws {
        guard let first = screens.first else { return }
        try await present(first)
        try await presentAll(Array(screens.dropFirst()))
    }
}

/// A lock held across `host.present`, so the handler (which takes it too) sees the screen either
/// not yet asked for or up — tidy, but a cancel that lands inside `host.present` waits there for
/// the call to return, and so does the thread that sent it (the stub says not to).
struct LockAcrossPresent: SequentialPresenterProtocol {
    enum Stage { case waiting, shown, cancelled }
    let host: ScreenHost
    init(host: ScreenHost) { self.host = host }
    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        let stage = Locked(Stage.waiting)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let presented = stage.withLock { stage -> Bool in
                    guard stage == .waiting else { return false }
                    host.present(screen) { continuation.resume() }
                    stage = .shown
                    return true
                }
                if !presented { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let wasShown = stage.withLock { stage -> Bool in
                defer { stage = .cancelled }
                return stage == .shown
            }
            if wasShown { host.dismiss(screen) }
        }
        try Task.checkCancellation()
    }
    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}

/// Keeps a history of what it showed, in a class the compiler was told is safe. The dismiss
/// handler notes "gone" after it resumes the loop, and the loop, resumed, notes the next screen
/// at the same moment on another thread: two appends to one array, nothing ordering them.
struct RacyHistory: SequentialPresenterProtocol {
    final class History: @unchecked Sendable {
        var events: [String] = []
    }
    let host: ScreenHost
    let history = History()
    init(host: ScreenHost) { self.host = host }

    func present(_ screen: Screen) async throws {
        try Task.checkCancellation()
        history.events.append("\(screen.name) up")
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                host.present(screen) {
                    continuation.resume()
                    history.events.append("\(screen.name) gone")
                }
                if Task.isCancelled { host.dismiss(screen) }
            }
        } onCancel: {
            host.dismiss(screen)
        }
        try Task.checkCancellation()
    }

    func presentAll(_ screens: [Screen]) async throws {
        for screen in screens { try await present(screen) }
    }
}
