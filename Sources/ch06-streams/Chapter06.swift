import WorkbookCore

/// Chapter 6: streams — from Combine pipelines to async/await, `AsyncSequence` and `AsyncStream`.
/// The scenarios in the order the chapter text numbers them, the games for `play N`, and the
/// child process that shows a trap without ending the REPL.
enum Chapter06 {
    static let chapter = Chapter(
        number: 6,
        executable: "ch06-streams",
        title: Localized("Streams: from Combine to async/await, AsyncSequence and AsyncStream",
                         ja: "ストリーム: `Combine` から async/await、AsyncSequence と AsyncStream へ"),
        scenarios: [
            migration,
            oneValue,
            operatorsRewritten,
            forAwait,
            callbackStream,
            buffering,
            throwingStream,
            twoConsumers,
            formButton,
            searchDebounce,
        ],
        games: [dropGame, cancelBridgeGame],
        children: [forceUnwrapChildName: forceUnwrapChild])
}
