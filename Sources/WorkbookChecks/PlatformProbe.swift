import WorkbookCore

/// A part of a check that makes a bad moment happen, or sees it, with a mechanism not every
/// platform has (`PlatformMechanism`). Where one cannot run, a "done" verdict names it: a pass
/// never hides what was not checked.
public struct PlatformProbe: Sendable {
    /// Stable: `split-read-modify-write`.
    public let id: String
    /// What it provokes, as a phrase: "a read and a write split across two locks".
    public let what: Localized
    public let needs: [PlatformMechanism]

    public init(_ id: String, _ what: Localized, needs: [PlatformMechanism]) {
        self.id = id
        self.what = what
        self.needs = needs
    }

    /// Every mechanism it needs is in use in this process.
    public var canRun: Bool { needs.allSatisfy(\.isAvailable) }
}

/// Each exercise's probes that need a platform mechanism, and what the runners say of them.
public enum PlatformProbes {
    /// Printed by a runner, one line per probe that could not run, before a "done" verdict:
    /// `WORKBOOK-NOT-RUN split-read-modify-write`.
    public static let notRunMarker = "WORKBOOK-NOT-RUN"

    /// The probes of `exercise` (an exercise id; a variant's name starts with it).
    public static func of(_ exercise: String) -> [PlatformProbe] {
        byExercise[String(exercise.prefix { $0 != "." })] ?? []
    }

    /// The probes of `exercise` that cannot run in this process.
    public static func notRunnable(_ exercise: String) -> [PlatformProbe] {
        of(exercise).filter { !$0.canRun }
    }

    /// The one list, in the catalogue's order. Each check's file declares its own
    /// (`SafeCounterCheck.platformProbes`).
    public static let byExercise: [String: [PlatformProbe]] = [
        "SafeCounter": SafeCounterCheck.platformProbes,
        "ReadersWriters": ReadersWritersCheck.platformProbes,
        "FanOut": FanOutCheck.platformProbes,
        "AsyncOperation": AsyncOperationCheck.platformProbes,
        "Worker": WorkerCheck.platformProbes,
        "BoundedBuffer": BoundedBufferCheck.platformProbes,
        "Transfers": TransfersCheck.platformProbes,
        "CompletionToAsync": CompletionToAsyncCheck.platformProbes,
        "OrderedThumbnails": OrderedThumbnailsCheck.platformProbes,
        "SequentialPresenter": SequentialPresenterCheck.platformProbes,
        "WrapCallbackAPI": WrapCallbackAPICheck.platformProbes,
        "DelegateBridge": DelegateBridgeCheck.platformProbes,
        "CancellableRequest": CancellableRequestCheck.platformProbes,
        "EventStream": EventStreamCheck.platformProbes,
        "CombineLatest": CombineLatestCheck.platformProbes,
        "Debounce": DebounceCheck.platformProbes,
        "BankAccountActor": BankAccountActorCheck.platformProbes,
        "MainActorViewModel": MainActorViewModelCheck.platformProbes,
        "SharedTokenStore": SharedTokenStoreCheck.platformProbes,
        "TokenRefresher": TokenRefresherCheck.platformProbes,
        "DedupingCache": DedupingCacheCheck.platformProbes,
        "SafeWithdraw": SafeWithdrawCheck.platformProbes,
    ]

    /// "on this platform 2 checks could not run: a; b" — for the "done" line.
    public static func sentence(_ probes: [PlatformProbe]) -> Localized {
        let en = probes.map(\.what.en).joined(separator: "; ")
        let ja = probes.map(\.what.ja).joined(separator: "、")
        let count = probes.count
        return Localized("on this platform \(count) \(count == 1 ? "check" : "checks") could not run: \(en)",
                         ja: "この環境では \(count) 件の検査を実行できませんでした: \(ja)")
    }
}
