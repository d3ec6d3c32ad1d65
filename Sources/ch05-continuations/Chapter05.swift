import WorkbookCore

/// Chapter 5: bridging callbacks and delegates with continuations. The scenarios in the order
/// the chapter text numbers them, the games for `play N`, and the child processes that show a
/// trap or a leak without ending the REPL.
enum Chapter05 {
    static let chapter = Chapter(
        number: 5,
        executable: "ch05-continuations",
        title: Localized("Continuations: bridging callbacks and delegates", ja: "継続: コールバックとデリゲートを async につなぐ"),
        scenarios: [
            wrapCallback,
            neverResumed,
            resumedTwice,
            delegateBridge,
            waitUntilDismissed,
            cancellationBridge,
            checkedVersusUnsafe,
            firstValueBridge,
        ],
        games: [timeoutRaceGame],
        children: bridgingChildren.merging(bridgeChildren) { first, _ in first })

    /// The child processes of scenarios 1–4 (those of 5–8 are `bridgeChildren`) (`ch05-continuations --child NAME`).
    static let bridgingChildren: [String: @Sendable () -> Never] = [
        leakedContinuationChildName: leakedContinuationChild,
        doubleCallbackChildName: doubleCallbackChild,
        timeoutRaceChildName: timeoutRaceChild,
        overwrittenContinuationChildName: overwrittenContinuationChild,
        unclearedContinuationChildName: unclearedContinuationChild,
    ]
}
