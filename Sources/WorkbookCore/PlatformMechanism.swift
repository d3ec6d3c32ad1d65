import Interposing
import ReleasePoints
import WorkbookExplorer

/// A means a check uses to make a bad moment happen, or to see it, that not every platform has.
///
/// The interposers work because on Linux a function defined in the executable takes the calls
/// the shared libraries make to that name. Apple platforms resolve symbols per library (two-level
/// namespaces), so there none of them can work, and `/proc` does not exist — except that key-value
/// observing gives the checks there what `operationAnnouncements` gives them on Linux. A check declares the
/// probes that need one of these (`PlatformProbe`), and a "done" verdict names those that could
/// not run. `WORKBOOK_LINUX_MECHANISMS=off` turns all of them off on Linux, to run the checks as
/// a Mac runs them.
public enum PlatformMechanism: String, CaseIterable, Sendable {
    /// Pause a thread right after it releases something (an unlock, a signal, a group's leave,
    /// the end of a `sync`): the interposed release functions (`ReleasePointInterposers`).
    case releasePoints = "release-points"
    /// Plain blocks that one pool thread runs in turn are shown to ThreadSanitizer as separate
    /// threads (TSan fibers made by the interposed `dispatch_async`), so a race between them is seen.
    case sanitizerFibers = "sanitizer-fibers"
    /// ThreadSanitizer sees the learner's accesses to values the runtime copies for it (a stored
    /// `CheckedContinuation`): the interposed `swift_beginAccess`.
    case runtimeAccesses = "runtime-accesses"
    /// Jobs the Swift runtime hands straight to libdispatch (`Task.yield`, a sleep) stay in the
    /// explorer's run: the interposed `dispatch_async_f` and `dispatch_after_f`.
    case runtimeDispatch = "runtime-dispatch"
    /// `ContinuousClock.now` and `SuspendingClock.now` read virtual time inside the explorer's run
    /// (the runner answers the runtime's getters), and a deadline from a generic `some Clock` is
    /// read back exactly (the interposed `clock_gettime`).
    case clockReadings = "clock-readings"
    /// Whether another thread is asleep, and how often a thread went to sleep (`/proc`,
    /// `getrusage(RUSAGE_THREAD)`).
    case threadObservation = "thread-observation"
    /// The main queue's drains on the main thread kept apart from the main-actor jobs the explorer
    /// runs on its own threads, and ordered with them for ThreadSanitizer, as one executor (the
    /// interposed `_dispatch_main_queue_callback_4CF`): code that reaches the main actor through
    /// `DispatchQueue.main` is not taken for a race.
    case mainQueueOrder = "main-queue-order"
    /// An operation's `willChangeValue`/`didChangeValue` seen as they are sent, on the sending
    /// thread: key-value observing on Apple platforms; on Linux, which has none, the interposed
    /// Swift methods of `Operation` (`OperationAnnouncementInterposers.c`).
    case operationAnnouncements = "operation-announcements"

    /// What it is, for the docs' tables.
    public var summary: Localized {
        switch self {
        case .releasePoints: Localized("a pause right after an unlock, signal, leave or `sync`, or as a continuation is made (interposed functions)",
                                       ja: "アンロック・signal・leave・`sync` の直後や、継続が作られる瞬間での一時停止（関数の差し替え）")
        case .sanitizerFibers: Localized("ThreadSanitizer fibers for plain blocks on a concurrent queue (interposed `dispatch_async`)",
                                         ja: "並行キューの通常ブロックに ThreadSanitizer のファイバーを割り当てる（`dispatch_async` の差し替え）")
        case .runtimeAccesses: Localized("ThreadSanitizer told of accesses the runtime makes for the code (interposed `swift_beginAccess`)",
                                         ja: "ランタイムが代わりに行うアクセスを ThreadSanitizer に伝える（`swift_beginAccess` の差し替え）")
        case .runtimeDispatch: Localized("the runtime's own libdispatch jobs kept in the explorer's run (interposed `dispatch_async_f`)",
                                         ja: "ランタイムが libdispatch に直接渡すジョブをエクスプローラの実行に留める（`dispatch_async_f` の差し替え）")
        case .clockReadings: Localized("`ContinuousClock.now` read in the explorer's virtual time (the runtime's clock getters answered by the runner, interposed `clock_gettime`)",
                                       ja: "エクスプローラの仮想時間で読む `ContinuousClock.now`（ランタイムの時計の getter をランナーが代わりに答える、`clock_gettime` の差し替え）")
        case .threadObservation: Localized("a thread's sleeps and wake-ups (`/proc`, `getrusage(RUSAGE_THREAD)`)",
                                           ja: "スレッドのスリープと起床の回数（`/proc`、`getrusage(RUSAGE_THREAD)`）")
        case .mainQueueOrder: Localized("the main queue and the explorer's main actor run as one executor: never at once, and ordered for ThreadSanitizer (interposed `_dispatch_main_queue_callback_4CF`)",
                                        ja: "メインキューとエクスプローラのメインアクターを 1 つの executor として動かす。同時には動かさず、ThreadSanitizer に対して順序づける（`_dispatch_main_queue_callback_4CF` の差し替え）")
        case .operationAnnouncements: Localized("an operation's `willChangeValue`/`didChangeValue` seen as they are sent (key-value observing on Apple platforms; on Linux the interposed `Operation` methods)",
                                                ja: "オペレーションの `willChangeValue`/`didChangeValue` を送られたその場で見る（Apple プラットフォームではキー値監視、Linux では `Operation` のメソッドの差し替え）")
        }
    }

    /// Apple platforms have it too, by other means (key-value observing): a probe that needs
    /// only these runs there.
    public var existsOnApplePlatforms: Bool { self == .operationAnnouncements }

    /// In use in this process.
    public var isAvailable: Bool {
        #if canImport(Darwin)
        if self == .operationAnnouncements { return true }  // key-value observing
        #endif
        guard workbook_linux_mechanisms_enabled() else { return false }
        switch self {
        case .operationAnnouncements: return workbook_operation_announcements_available()
        case .releasePoints, .runtimeDispatch, .clockReadings, .threadObservation: return true
        case .sanitizerFibers, .runtimeAccesses, .mainQueueOrder: return RaceDetector.isActive
        }
    }

    /// Switched off on purpose (`WORKBOOK_LINUX_MECHANISMS=off`) rather than missing.
    public static var switchedOff: Bool {
        #if os(Linux)
        return !workbook_linux_mechanisms_enabled()
        #else
        return false
        #endif
    }
}
