import WorkbookCore

/// Chapter 7: data races, actors, `@MainActor` and `Sendable`. The scenarios in the order the
/// chapter text numbers them, the games for `play N`, and the child processes that show a trap
/// without ending the REPL.
enum Chapter07 {
    static let chapter = Chapter(
        number: 7,
        executable: "ch07-actors",
        title: Localized("Actors: data races, isolation, @MainActor and Sendable",
                         ja: "アクター: データ競合、隔離、@MainActor と `Sendable`"),
        scenarios: [
            racyCounter,
            queueOrActor,
            actorPromises,
            nonisolatedMembers,
            sendableValues,
            isolationPerInstance,
            mainActorTypes,
            staticIsolation,
            annotateTheBridge,
            dynamicChecks,
            xcodeDefaults,
            adoption,
        ],
        games: [slidesCounterGame, actorCounterGame, tokenPerTabGame],
        children: [
            taskOffMainActorChild: taskOffMainActor,
            legacyCallbackChild: legacyCallbackOffMain,
            legacyDelegateChild: legacyDelegateOffMain,
        ])

    /// Every compiler error the chapter program shows, for `Chapter07Tests` to compile again.
    static var allDiagnostics: [Diagnostic] {
        [slidesCounterDiagnostic, actorOutsideDiagnostic] + nonisolatedDiagnostics + sendableDiagnostics.map(\.diagnostic)
            + [mainActorDiagnostic, forgottenWrapDiagnostic, conformanceDiagnostic, slidesClientDiagnostic]
    }
}
