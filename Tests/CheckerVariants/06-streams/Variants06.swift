import WorkbookChecks

/// Chapter 06's buggy variants and the property each check must name.
let variants06: [VariantRegistration] = [
    // EventStream
    .init("EventStream.neverStopsSource", "no onTermination: a break or a cancel leaves the source delivering", breaks: EventStreamCheck.sourceStopped) {
        EventStreamCheck.run { NeverStopsSource(source: $0) }
    },
    .init("EventStream.stopsTwiceOnEnd", "stops on .finished/.failed and in onTermination too", breaks: EventStreamCheck.stoppedOnce) {
        EventStreamCheck.run { StopsTwiceOnEnd(source: $0) }
    },
    .init("EventStream.stopsOnlyOnSourceEnd", "stops only when the source ends by itself", breaks: EventStreamCheck.sourceStopped) {
        EventStreamCheck.run { StopsOnlyOnSourceEnd(source: $0) }
    },
    .init("EventStream.forgetsFinish", "`.finished` ignored: the loop never ends", breaks: EventStreamCheck.endDelivered) {
        EventStreamCheck.run { ForgetsFinish(source: $0) }
    },
    .init("EventStream.swallowsFailure", "`.failed` ends the stream without the error", breaks: EventStreamCheck.endDelivered) {
        EventStreamCheck.run { SwallowsFailure(source: $0) }
    },
    .init("EventStream.taskPerValue", "each value yielded from a Task {} of its own", breaks: EventStreamCheck.valuesInOrder) {
        EventStreamCheck.run { TaskPerValue(source: $0) }
    },
    .init("EventStream.keepsNewestOnly", "`.bufferingNewest(1)` drops what a slow loop has not taken", breaks: EventStreamCheck.valuesInOrder) {
        EventStreamCheck.run { KeepsNewestOnly(source: $0) }
    },
    .init("EventStream.stopsLater", "onTermination stops the source from a Task {}", breaks: EventStreamCheck.sourceStopped) {
        EventStreamCheck.run { StopsLater(source: $0) }
    },
    .init("EventStream.racyDoneFlag", "a done flag in an unlocked box, written by onTermination, read by the handler", breaks: VerdictProperty.dataRace) {
        EventStreamCheck.run { RacyDoneFlag(source: $0) }
    },
    .init("EventStream.makeStreamStyle", "a correct answer: makeStream(of:) and yield(with:)", breaks: passesTheCheck) {
        EventStreamCheck.run { MakeStreamStyle(source: $0) }
    },
    .init("EventStream.lockedDoneFlag", "a correct answer: a done flag under a Mutex", breaks: passesTheCheck) {
        EventStreamCheck.run { LockedDoneFlag(source: $0) }
    },
    // CombineLatest
    .init("CombineLatest.emptyPlaceholder", "\"\" stands in for a field that said nothing yet", breaks: CombineLatestCheck.waitsForBoth) {
        CombineLatestCheck.run { EmptyPlaceholder() }
    },
    .init("CombineLatest.keepsRepeats", "no removeDuplicates: an unchanged pair is sent again", breaks: CombineLatestCheck.dropsRepeats) {
        CombineLatestCheck.run { KeepsRepeats() }
    },
    .init("CombineLatest.endsWithFirstInput", "finishes as soon as one input ends", breaks: CombineLatestCheck.endsWithInputs) {
        CombineLatestCheck.run { EndsWithFirstInput() }
    },
    .init("CombineLatest.waitsForAllBeforeError", "waitForAll(): an error surfaces only when the other input ends", breaks: CombineLatestCheck.endsWithInputs) {
        CombineLatestCheck.run { WaitsForAllBeforeError() }
    },
    .init("CombineLatest.neverCancelsInputs", "no onTermination: a stopped consumer leaves both inputs read", breaks: CombineLatestCheck.inputsCancelled) {
        CombineLatestCheck.run { NeverCancelsInputs() }
    },
    .init("CombineLatest.cancelsOnlyTheWaiter", "onTermination cancels the waiting task, not the two Task {} readers", breaks: CombineLatestCheck.inputsCancelled) {
        CombineLatestCheck.run { CancelsOnlyTheWaiter() }
    },
    .init("CombineLatest.readsOneAfterTheOther", "reads the first input to its end, then the second", breaks: CombineLatestCheck.latestPairs) {
        CombineLatestCheck.run { ReadsOneAfterTheOther() }
    },
    .init("CombineLatest.yieldsAfterActorCall", "an actor keeps the latest values; the pair is yielded after the call returns", breaks: CombineLatestCheck.latestPairs) {
        CombineLatestCheck.run { YieldsAfterActorCall() }
    },
    .init("CombineLatest.unlockedLatest", "latest values in an unlocked @unchecked Sendable class", breaks: VerdictProperty.dataRace) {
        CombineLatestCheck.run { UnlockedLatest() }
    },
    .init("CombineLatest.actorYieldsInside", "a correct answer: an actor that updates and yields in one method", breaks: passesTheCheck) {
        CombineLatestCheck.run { ActorYieldsInside() }
    },
    .init("CombineLatest.twoReadersAndACount", "a correct answer: two Task {} readers cancelled by onTermination, a count of ended inputs", breaks: passesTheCheck) {
        CombineLatestCheck.run { TwoReadersAndACount() }
    },
    // Debounce
    .init("Debounce.searchesAtOnce", "searches on every change, no wait", breaks: DebounceCheck.waitsForPause) {
        DebounceCheck.run { SearchesAtOnce(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.sleepErrorSwallowed", "`try?` on the sleep: a cancelled wait still searches", breaks: DebounceCheck.noStaleSearch) {
        DebounceCheck.run { SleepErrorSwallowed(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.neverCancelsPrevious", "a task per change, none cancelled", breaks: DebounceCheck.noStaleSearch) {
        DebounceCheck.run { NeverCancelsPrevious(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.showsWithoutCheckingAgain", "shows the results without checking for cancellation", breaks: DebounceCheck.noStaleResult) {
        DebounceCheck.run { ShowsWithoutCheckingAgain(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.checksOnlyBeforeSearch", "checkCancellation() before the search, not after", breaks: DebounceCheck.noStaleResult) {
        DebounceCheck.run { ChecksOnlyBeforeSearch(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.skipsWhilePending", "skips changes while a wait is pending (throttling): the older query is searched", breaks: DebounceCheck.noStaleSearch) {
        DebounceCheck.run { SkipsWhilePending(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.detachedReadsUnlockedQuery", "a detached task compares with the latest query in an unlocked box", breaks: VerdictProperty.dataRace) {
        DebounceCheck.run { DetachedReadsUnlockedQuery(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.deadlineAndCheckCancellation", "a correct answer: a ContinuousClock deadline and checkCancellation()", breaks: passesTheCheck) {
        DebounceCheck.run { DeadlineAndCheckCancellation(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.queryStreamLoop", "queries through an AsyncStream: the loop cancels a hop late", breaks: DebounceCheck.noStaleResult) {
        DebounceCheck.run { QueryStreamLoop(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.cancelsInsteadOfRestarting", "a second change cancels and stops: the next query is never searched", breaks: DebounceCheck.lastQueryShown) {
        DebounceCheck.run { CancelsInsteadOfRestarting(search: $0, screen: $1, interval: $2) }
    },
    .init("Debounce.generationAndCancel", "a correct answer: cancel plus a generation number checked before showing", breaks: passesTheCheck) {
        DebounceCheck.run { GenerationAndCancel(search: $0, screen: $1, interval: $2) }
    },
]
