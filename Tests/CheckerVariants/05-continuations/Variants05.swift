import WorkbookChecks

/// Chapter 05's buggy variants and the property each check must name.
let variants05: [VariantRegistration] = [
    // WrapCallbackAPI
    .init("WrapCallbackAPI.resumesTwiceOnError", "`if let error` resumes and falls through to a second resume", breaks: VerdictProperty.crash) {
        WrapCallbackAPICheck.run { ResumesTwiceOnError(client: $0) }
    },
    .init("WrapCallbackAPI.forgetsNilData", "`guard let data else { … return }` never resumes for (nil, nil)", breaks: WrapCallbackAPICheck.neverLeftWaiting) {
        WrapCallbackAPICheck.run { ForgetsNilData(client: $0) }
    },
    .init("WrapCallbackAPI.resumesTwiceOnSuccess", "a decoded forecast resumes, then the next line resumes again", breaks: VerdictProperty.crash) {
        WrapCallbackAPICheck.run { ResumesTwiceOnSuccess(client: $0) }
    },
    .init("WrapCallbackAPI.errorBecomesNoForecast", "no data means noForecast, whatever the error was", breaks: WrapCallbackAPICheck.errorsAsTheRulesSay) {
        WrapCallbackAPICheck.run { ErrorBecomesNoForecast(client: $0) }
    },
    .init("WrapCallbackAPI.unreadableBecomesNoForecast", "one guard for bytes and decoding: unreadable becomes noForecast", breaks: WrapCallbackAPICheck.errorsAsTheRulesSay) {
        WrapCallbackAPICheck.run { UnreadableBecomesNoForecast(client: $0) }
    },
    .init("WrapCallbackAPI.forceUnwrapsDecode", "Forecast(data:)! crashes on bytes that are not a forecast", breaks: VerdictProperty.crash) {
        WrapCallbackAPICheck.run { ForceUnwrapsDecode(client: $0) }
    },
    .init("WrapCallbackAPI.storedContinuation", "one continuation kept in the service, overwritten by the next call", breaks: WrapCallbackAPICheck.neverLeftWaiting) {
        WrapCallbackAPICheck.run { StoredContinuation(client: $0) }
    },
    .init("WrapCallbackAPI.blocksOnSemaphore", "a semaphore waits for the handler inside async code", breaks: Property.finishes) {
        WrapCallbackAPICheck.run { SemaphoreAroundCallback(client: $0) }
    },
    .init("WrapCallbackAPI.racyPendingTable", "pending continuations in an unlocked @unchecked Sendable dictionary", breaks: VerdictProperty.dataRace) {
        WrapCallbackAPICheck.run { RacyPendingTable(client: $0) }
    },
    .init("WrapCallbackAPI.switchOverPair", "a correct answer: a switch over (data, error)", breaks: passesTheCheck) {
        WrapCallbackAPICheck.run { SwitchOverPair(client: $0) }
    },
    .init("WrapCallbackAPI.resultThenDecode", "a correct answer: a continuation of Result, decoded after the await", breaks: passesTheCheck) {
        WrapCallbackAPICheck.run { ResultThenDecode(client: $0) }
    },
    .init("WrapCallbackAPI.resumeWithResult", "a correct answer: resume(with:) of a Result", breaks: passesTheCheck) {
        WrapCallbackAPICheck.run { ResumeWithResult(client: $0) }
    },

    // DelegateBridge
    .init("DelegateBridge.overwritesStored", "no look at the slot: the second request's continuation replaces the first's", breaks: DelegateBridgeCheck.busyWhileInFlight) {
        DelegateBridgeCheck.run { OverwritesStored(provider: $0) }
    },
    .init("DelegateBridge.neverClears", "the stored continuation resumed and left in place: a later report resumes it again", breaks: VerdictProperty.crash) {
        DelegateBridgeCheck.run { NeverClears(provider: $0) }
    },
    .init("DelegateBridge.answeredFlagNeverReset", "an answered flag that stops a second resume and is never reset", breaks: DelegateBridgeCheck.readyAgain) {
        DelegateBridgeCheck.run { AnsweredFlagNeverReset(provider: $0) }
    },
    .init("DelegateBridge.storesAfterRequest", "requests first, stores the continuation after: an answer at once is lost", breaks: DelegateBridgeCheck.neverLeftWaiting) {
        DelegateBridgeCheck.run { StoresAfterRequest(provider: $0) }
    },
    .init("DelegateBridge.unlockedSlot", "the stored continuation in an unlocked var of an @unchecked Sendable class", breaks: VerdictProperty.dataRace) {
        DelegateBridgeCheck.run { UnlockedSlot(provider: $0) }
    },
    .init("DelegateBridge.unretainedDelegate", "a delegate object per request that nothing keeps alive", breaks: DelegateBridgeCheck.neverLeftWaiting) {
        DelegateBridgeCheck.run { UnretainedDelegate(provider: $0) }
    },
    .init("DelegateBridge.taskHopsIntoActor", "an actor whose delegate methods hop in with a Task each: reports change order", breaks: DelegateBridgeCheck.firstReportWins) {
        DelegateBridgeCheck.run { TaskHopsIntoActor(provider: $0) }
    },
    .init("DelegateBridge.newestWins", "a newcomer tells the request in flight busy and takes its place", breaks: DelegateBridgeCheck.busyWhileInFlight) {
        DelegateBridgeCheck.run { NewestWins(provider: $0) }
    },
    .init("DelegateBridge.looksBeforeTheContinuation", "§4's guard with a Mutex: looked at in one hold, stored in another inside the continuation", breaks: DelegateBridgeCheck.busyWhileInFlight) {
        DelegateBridgeCheck.run { LooksBeforeTheContinuation(provider: $0) }
    },
    .init("DelegateBridge.busyPropertyThenStore", "an NSLock'd isBusy property asked first, the continuation stored after", breaks: DelegateBridgeCheck.busyWhileInFlight) {
        DelegateBridgeCheck.run { BusyPropertyThenStore(provider: $0) }
    },
    .init("DelegateBridge.nsLockBridge", "a correct answer: an NSLock around a var in an @unchecked Sendable class", breaks: passesTheCheck) {
        DelegateBridgeCheck.run { NSLockBridge(provider: $0) }
    },
    .init("DelegateBridge.handlerDelegate", "a correct answer: a retained relay object keeping a one-shot Result handler", breaks: passesTheCheck) {
        DelegateBridgeCheck.run { HandlerDelegate(provider: $0) }
    },

    // CancellableRequest
    .init("CancellableRequest.noCancellationHandler", "a plain continuation: the cancel reaches neither the download nor the wait", breaks: CancellableRequestCheck.neverLeftWaiting) {
        CancellableRequestCheck.run { DownloadWithoutCancellationHandler(client: $0) }
    },
    .init("CancellableRequest.handlerAndCallbackBothResume", "the handler cancels and resumes, then the download's cancelled ending resumes again", breaks: VerdictProperty.crash) {
        CancellableRequestCheck.run { HandlerAndCallbackBothResume(client: $0) }
    },
    .init("CancellableRequest.handlerLeavesDownloadRunning", "the handler resumes the caller and leaves the download running", breaks: CancellableRequestCheck.downloadCancelled) {
        CancellableRequestCheck.run { HandlerLeavesDownloadRunning(client: $0) }
    },
    .init("CancellableRequest.passesClientCancelled", "DownloadError.cancelled passed on instead of CancellationError", breaks: CancellableRequestCheck.cancellationThrown) {
        CancellableRequestCheck.run { PassesClientCancelled(client: $0) }
    },
    .init("CancellableRequest.missesCancelBeforeHandle", "the handler cancels the handle if there is one, and a cancel before it is lost", breaks: CancellableRequestCheck.cancellationThrown) {
        CancellableRequestCheck.run { MissesCancelBeforeHandle(client: $0) }
    },
    .init("CancellableRequest.checksBeforeStartOnly", "isCancelled looked at before starting only: a cancel inside client.download is lost", breaks: CancellableRequestCheck.cancellationThrown) {
        CancellableRequestCheck.run { ChecksBeforeStartOnly(client: $0) }
    },
    .init("CancellableRequest.racyHandle", "the handle and a cancelled flag in unlocked vars of an @unchecked Sendable class", breaks: VerdictProperty.dataRace) {
        CancellableRequestCheck.run { RacyHandle(client: $0) }
    },
    .init("CancellableRequest.detachedDownload", "the download runs in a detached task the caller's cancel never reaches", breaks: CancellableRequestCheck.cancellationThrown) {
        CancellableRequestCheck.run { DetachedDownload(client: $0) }
    },
    .init("CancellableRequest.lockAcrossDownload", "a lock held across client.download that the handler takes too: the cancel waits for the call", breaks: Property.finishes) {
        CancellableRequestCheck.run { LockAcrossDownload(client: $0) }
    },
    .init("CancellableRequest.nsLockRequest", "a correct answer: an NSLock class shared by the operation and the handler", breaks: passesTheCheck) {
        CancellableRequestCheck.run { NSLockRequest(client: $0) }
    },
    .init("CancellableRequest.mapsAfterTheWait", "a correct answer: a continuation of Result, mapped after the wait", breaks: passesTheCheck) {
        CancellableRequestCheck.run { MapsAfterTheWait(client: $0) }
    },
]
