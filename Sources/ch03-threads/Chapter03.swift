import WorkbookCore

/// Chapter 3: Thread. The scenarios in the order the chapter text numbers them.
enum Chapter03 {
    static let chapter = Chapter(
        number: 3,
        executable: "ch03-threads",
        title: Localized("Thread", ja: "Thread"),
        scenarios: [
            threadBasics,
            cooperativeCancel,
            sleepAndExit,
            mainThread,
            threadCost,
            locks,
            condition,
            lockOrderDeadlock,
            whyGCD,
        ])
}
