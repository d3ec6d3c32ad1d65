import WorkbookCore

/// Chapter 8: reentrancy — state that changes across `await`. The scenarios in the order the
/// chapter text numbers them; game N plays scenario N's racy code (`play N`); the child process
/// shows a deadlock without ending the REPL.
enum Chapter08 {
    static let chapter = Chapter(
        number: 8,
        executable: "ch08-reentrancy",
        title: Localized("Reentrancy: state that changes across await", ja: "再入: `await` をまたいで変わる状態"),
        scenarios: [
            tokenRefresh,
            imageCache,
            checkThenAct,
            actorIsNotAFlowLock,
            presentationFlow,
            staleResults,
            nonActorReentrancy,
            oneAtATime,
        ],
        games: [tokenRefreshGame, imageCacheGame, withdrawGame, actorRefreshGame, presentationGame, staleSearchGame,
                nonReentrantGame, savesGame],
        children: [syncOnCurrentQueueChildName: syncOnCurrentQueueChild])
}
