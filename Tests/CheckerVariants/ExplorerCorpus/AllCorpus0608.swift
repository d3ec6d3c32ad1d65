// The chapters 06–08 explorer corpus, written from the explorer's public API only.
// (table below)

public let explorerCorpus0608: [CorpusBody] =
    tokenRefreshCorpus0608 + imageCacheCorpus0608 + withdrawCorpus0608 + callersCorpus0608 + actorTaskCorpus0608
    + mainActorCorpus0608 + streamCorpus0608 + combineLatestCorpus0608 + debounceCorpus0608 + timingCorpus0608
