import Foundation
import WorkbookCore
import WorkbookExplorer

/// A screen to show, as a view controller would be: a name and how long its user takes to
/// dismiss it.
public struct Screen: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    /// How long the user looks at it before dismissing it.
    public let readingTime: Duration

    public init(_ name: String, readingTime: Duration = .milliseconds(10)) {
        self.name = name
        self.readingTime = readingTime
    }

    public var description: String { name }
}

/// The fake UI of exercise 04-async-await/SequentialPresenter: presents screens with a
/// completion-handler API, as UIKit's `present(_:animated:)` with a dismissal callback does.
///
/// A presented screen stays up until its user dismisses it (after its `readingTime`, an
/// `ExplorerClock` sleep: virtual time under the explorer) or until the code calls
/// `dismiss(_:)`; then the screen's `onDismiss` is called — once, whichever came first.
/// Everything is recorded.
public final class ScreenHost: Sendable {
    public struct Event: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            case presented
            /// By its user.
            case dismissedByUser
            /// By the code, with `dismiss(_:)`.
            case dismissedByCode
        }
        public let screen: String
        public let kind: Kind

        public init(screen: String, kind: Kind) {
            self.screen = screen
            self.kind = kind
        }

        public var description: String {
            switch kind {
            case .presented: "present \(screen)"
            case .dismissedByUser: "\(screen) dismissed by the user"
            case .dismissedByCode: "\(screen) dismissed by the code"
            }
        }
    }

    private struct State {
        var events: [Event] = []
        /// Screens up now, with what to call when each goes.
        var shown: [(screen: String, onDismiss: @Sendable () -> Void)] = []
        /// Tasks waiting in `untilShown` for a screen.
        var waiters: [(screen: String, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = QuietLocked(State())
    private let presenting = QuietLocked<(screen: String, action: @Sendable () -> Void)?>(nil)

    public init() {}

    /// Runs `action` inside `present(screen)`, first thing — before the screen goes up — on the
    /// presenting thread: a cancel from another thread can land exactly then, and a check makes
    /// it happen there on purpose.
    public func whenPresenting(_ screen: String, _ action: @escaping @Sendable () -> Void) {
        presenting.withLock { $0 = (screen, action) }
    }

    /// Shows `screen`. `onDismiss` is called once, later, when the screen goes — dismissed by
    /// its user after `screen.readingTime`, or by `dismiss(_:)`, whichever comes first.
    public func present(_ screen: Screen, onDismiss: @escaping @Sendable () -> Void) {
        let hook = presenting.withLock { hook -> (@Sendable () -> Void)? in
            guard let found = hook, found.screen == screen.name else { return nil }
            hook = nil
            return found.action
        }
        hook?()
        checkpoint("present(\(screen.name))")
        let waiting = state.withLock { state in
            state.events.append(Event(screen: screen.name, kind: .presented))
            state.shown.append((screen.name, onDismiss))
            let waiting = state.waiters.filter { $0.screen == screen.name }.map(\.continuation)
            state.waiters.removeAll { $0.screen == screen.name }
            return waiting
        }
        for continuation in waiting { continuation.resume() }
        let host = self
        Task {
            nameTask(Localized("user of \(screen.name)", ja: "\(screen.name) のユーザー"))
            try? await ExplorerClock().sleep(for: screen.readingTime)
            host.remove(screen.name, by: .dismissedByUser)
        }
    }

    /// Dismisses `screen` now, if it is up; its `onDismiss` is called before this returns.
    /// Does nothing for a screen that is not up.
    public func dismiss(_ screen: Screen) {
        remove(screen.name, by: .dismissedByCode)
    }

    private func remove(_ name: String, by kind: Event.Kind) {
        let onDismiss: (@Sendable () -> Void)? = state.withLock { state in
            guard let index = state.shown.firstIndex(where: { $0.screen == name }) else { return nil }
            state.events.append(Event(screen: name, kind: kind))
            return state.shown.remove(at: index).onDismiss
        }
        guard let onDismiss else { return }
        checkpoint(kind == .dismissedByUser ? Localized("the user dismisses \(name)", ja: "ユーザーが \(name) を閉じる") : .verbatim("dismiss(\(name))"))
        onDismiss()
    }

    // MARK: For the check

    /// Every presentation and dismissal, in order.
    public var events: [Event] { state.current.events }

    /// The screens up now.
    public var onScreen: [String] { state.current.shown.map(\.screen) }

    /// Returns once `name` has been presented (at once if it has been).
    public func untilShown(_ name: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state in
                if state.events.contains(Event(screen: name, kind: .presented)) { return true }
                state.waiters.append((name, continuation))
                return false
            }
            if already { continuation.resume() }
        }
    }
}
