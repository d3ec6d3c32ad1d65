import WorkbookCore

/// Chapter 1: GCD & QoS. The scenarios in the order the chapter text numbers them.
enum Chapter01 {
    static let chapter = Chapter(
        number: 1,
        executable: "ch01-gcd",
        title: Localized("GCD & QoS", ja: "GCD と QoS"),
        scenarios: [
            serialVersusConcurrent,
            counterRace,
            syncVersusAsync,
            queues,
            qos,
            syncDeadlock,
            barrier,
            asyncAfter,
            suspendResume,
            group,
            semaphore,
            taskCounterRace,
            globalQueueLimits,
            inactiveQueue,
            backgroundThenMain,
            taskVersusGlobal,
        ],
        games: [taskCounterRaceGame],
        children: [sameQueueSyncChildName: sameQueueSyncChild].merging(mainThreadUseChildren) { first, _ in first })
}
