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
]
