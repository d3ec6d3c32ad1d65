/// Every body of the explorer's regression corpus, in the order the corpus run reports them.
let explorerCorpus: [CorpusCase] = tokenRefreshCorpus + imageCacheCorpus + actorReentrancyCorpus + continuationCorpus
    + taskGroupCorpus + asyncLetCorpus + cancellationCorpus + streamCorpus + pollingCorpus + timerCorpus
    + realSleepCorpus + mainActorCorpus + globalActorCorpus + unstructuredTaskCorpus + longScheduleCorpus
    + namedTaskCorpus + singletonCorpus
