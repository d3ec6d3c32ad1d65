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
]
