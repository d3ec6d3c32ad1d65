/// Exercise 04-async-await/SequentialPresenter: screens shown one after another, each awaited
/// until it is dismissed, and a cancel that cleans up.
public protocol SequentialPresenterProtocol: Sendable {
    init(host: ScreenHost)
    /// Presents `screen` on `host` and returns once it has been dismissed (`presentAsync`). If
    /// the calling task is cancelled — before or while the screen is up — the screen is
    /// dismissed (or never presented) and it throws `CancellationError`.
    func present(_ screen: Screen) async throws
    /// Presents `screens` one after another, each once the one before was dismissed, and
    /// returns when the last one was dismissed. If the calling task is cancelled, the screen
    /// that is up is dismissed at once, no further screen is presented, and it throws
    /// `CancellationError`.
    func presentAll(_ screens: [Screen]) async throws
}
