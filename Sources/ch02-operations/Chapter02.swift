import WorkbookCore

/// Chapter 2: Operation dependencies. The scenarios in the order the chapter text numbers them.
enum Chapter02 {
    static let chapter = Chapter(
        number: 2,
        executable: "ch02-operations",
        title: Localized("Operation dependencies", ja: "Operation の依存関係"),
        scenarios: [
            subclassVersusBlock,
            maxConcurrent,
            dependencyOrder,
            graphAcrossQueues,
            cancelBeforeAndDuring,
            cancelAll,
            waitUntilFinished,
            completionAndPriority,
            asyncOperation,
            gcdVersusOperations,
            mainQueue,
            startWithoutQueue,
            qualityOfService,
        ],
        children: [addTwiceChildName: addTwiceChild, startNotReadyChildName: startNotReadyChild])
}
