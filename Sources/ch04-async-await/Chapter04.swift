import WorkbookCore

/// Chapter 4: async/await and structured concurrency. The scenarios in the order the chapter
/// text numbers them, and the games for `play N`.
enum Chapter04 {
    static let chapter = Chapter(
        number: 4,
        executable: "ch04-async-await",
        title: Localized("async/await and structured concurrency", ja: "async/await と構造化並行処理"),
        scenarios: [
            completionPipeline,
            suspensionPoints,
            asyncProperties,
            asyncLet,
            taskGroupOrder,
            taskGroupLimit,
            cancellation,
            taskVersusDetached,
            taskCapturingSelf,
            syncToAsync,
            whichToUse,
        ],
        games: [completionOrderGame, cancelRaceGame])
}
