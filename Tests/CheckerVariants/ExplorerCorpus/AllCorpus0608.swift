// The chapters 06–08 explorer corpus: 49 bodies (23 buggy, 26 correct), written from the
// explorer's public API only. Times are virtual: a clock moves on only when nothing is ready;
// plain `Task.sleep`, `ContinuousClock` and `ExplorerClock` share it.
//
// | name | expected | the interleaving that breaks it (or why every schedule is fine) |
// |---|---|---|
// | tokenRefresh0608.readerSkipsInFlight | fails | The 401 stores the refresh task at 0 ms (done at 51 ms); the reader at 10 ms returns the stored token-0 without looking at the task. Every schedule. |
// | tokenRefresh0608.readerJoinsInFlight | passes | The task is stored in the refresher's first turn, before any time passes; the reader at 10 ms awaits it. |
// | tokenRefresh0608.taskStoredAfterAwait | fails | A finds no task and awaits the keychain (1 ms, ExplorerClock) before storing one; B, ready at 0 ms, finds no task either: two refreshes. Every schedule. |
// | tokenRefresh0608.taskStoredFirst | passes | The miss check and the stored task are one actor turn; whichever 401 comes second joins (or finds the fresh token). |
// | tokenRefresh0608.taskNeverCleared | fails | After the first refresh the finished task stays stored; the 401 a second later awaits it and gets token-1 back. Sequential: every schedule. |
// | tokenRefresh0608.taskClearedWithToken | passes | The task is cleared with the token stored; the later 401 starts a new refresh (token-2). |
// | tokenRefresh0608.clearedBeforeStored | fails | Refresh ends at 51 ms; the task is cleared, the keychain save runs to 56 ms, the token is stored after it; the reader at 53 ms finds no task and token-0. Every schedule. |
// | tokenRefresh0608.storedThenCleared | passes | Token stored and task cleared in one synchronous stretch at 51 ms; the reader at 53 ms sees token-1. |
// | tokenRefresh0608.twoPlainSleeps | passes | Refresh waits 50 ms twice (plain Task.sleep) to 101 ms; the 401 at 20 ms and reader at 60 ms join the task, the reader at 130 ms reads token-1. No deadlines coincide. |
// | imageCache0608.checkThenStoreAcrossAwait | fails | list misses and hops to the signer before storing its entry; detail runs on the cache meanwhile, misses too: two downloads. Needs the interleaving at that hop. |
// | imageCache0608.entryBeforeAwait | passes | Miss check and in-flight entry are one actor turn; signing happens inside the task. |
// | imageCache0608.removedBeforeCached | fails | Download ends at 30 ms; the entry is removed and the disk write runs to 35 ms before caching; widget at 32 ms finds nothing and downloads again. Every schedule. |
// | imageCache0608.cachedThenRemoved | passes | Image cached and entry removed in one turn at 30 ms; widget at 32 ms hits the cache. |
// | bank0608.checkedBeforeFraudReview | fails | rent, bike (70 each) and casino all pass `balance >= amount` at 0 ms and await the 20 ms review; rent and bike both debit: -40. Every schedule. |
// | bank0608.recheckedAfterFraudReview | passes | The balance is checked again in the turn that debits; the casino is refused by the review. |
// | bank0608.holdThenRefund | passes | Debit (hold) before the await, refund on refusal: the balance never goes below 0 and equals 100 minus what was granted. |
// | callers0608.readHopWrite | fails | feed (Task {}) reads 0 and hops to the audit log; widget (Task.detached) reads 0 too; both write 1. Needs the interleaving at the hop. |
// | callers0608.likeInOneCall | passes | The audit hop comes first; read and write are one actor call. |
// | actorTask0608.readBeforeHop | fails | The coffee task (Task {} in Basket.add, on the basket) reads total 0 and hops to the prices; the cake task runs on the basket meanwhile, reads 0; one price is lost. Needs the interleaving at the hop. |
// | actorTask0608.addAfterHop | passes | Each task reads and writes total in the turn after its hop returns. |
// | actorTask0608.readBeforeSlowHop | fails | Both tasks read 0 at 0 ms (the lookups take 10 ms), both write back at 10 ms. Every schedule. |
// | actorTask0608.addAfterSlowHop | passes | As addAfterHop, with 10 ms lookups. |
// | mainActorCallback0608.staleResultShownLast | fails | "s" at 0 ms answers at 80 ms, "sw" at 10 ms answers at 40 ms; the callback's Task { @MainActor } for "s" overwrites "sw"'s results. Every schedule. |
// | mainActorCallback0608.dropsSupersededResult | passes | On the main actor, results whose query is no longer the field's text are dropped. |
// | mainActorCallback0608.doubleTapTwoLoads | fails | Tap 1 passes `!isLoading` and awaits analytics (2 ms) before setting the flag; tap 2 passes the guard meanwhile: two loads. Every schedule. |
// | mainActorCallback0608.flagSetInTapTurn | passes | The flag is set in the main-actor turn of the guard; the other tap is refused whichever runs first. |
// | mainActorCallback0608.counterTwoTaps | passes | Two Task { @MainActor in counter.taps += 1 } on a @MainActor class: serialized by the main actor, taps == 2, no race. |
// | stream0608.newestOneExpectsEvery | fails | bufferingNewest(1): quotes every 10 ms, 25 ms per draw; 2 is replaced by 3 and 4 by 5 before the chart asks: [1, 3, 5]. Every schedule. |
// | stream0608.newestOneOrderedWithLast | passes | Whatever is dropped, what is drawn is increasing and ends with 5 (finish keeps the buffered last). |
// | stream0608.breakLeavesProducerRunning | fails | The map breaks out at 20 ms; there is no onTermination, so the producer walks on to 200 ms with the GPS on. Every schedule. |
// | stream0608.breakStopsProducer | passes | Leaving the loop drops the only iterator: the stream terminates, onTermination cancels the producer, its sleep throws, the GPS is switched off. |
// | stream0608.cancelSwallowedByProducer | fails | The map task is cancelled at 35 ms; onTermination cancels the producer, but its `try?` sleeps return at once and it takes all 20 fixes. Every schedule. |
// | stream0608.cancelStopsProducer | passes | The cancelled sleep throws, the loop ends after 4 fixes, the GPS is off. |
// | stream0608.twoConsumersOneStream | fails | Two tasks iterate one AsyncStream: each message resumes one of them, so neither sees all four. Every schedule. |
// | stream0608.streamPerConsumer | passes | One stream per screen; the server yields every message into each. |
// | combineLatest0608.staleOtherValue | fails | The e-mail producer reads the password (p1 or none) at 0 ms, validates until 5 ms; p2 is stored at 2 ms; it then yields (ann, p1) or nothing: last pair not (ann, p2). Every schedule. |
// | combineLatest0608.updateAndEmitInOneTurn | passes | One actor call stores the value and yields the pair in the same turn. |
// | combineLatest0608.yieldAfterActorReturns | fails | All values at 0 ms: the e-mail producer gets (ann, p1) back from the actor; before it yields, the password producer stores p2 and yields (ann, p2); (ann, p1) comes out last. Needs the interleaving after the actor call returns. |
// | combineLatest0608.emitsInsideActor | passes | Pairs are yielded inside the actor, so their order is the order of the updates; the last update yields (ann, p2). |
// | combineLatest0608.seenBeforeValue | fails | The e-mail is marked seen at 0 ms and validated until 5 ms; the password at 2 ms finds both seen and yields ("", p1). Every schedule. |
// | combineLatest0608.valueAndGateTogether | passes | A pair is yielded only when both values are stored, checked in the turn that stores one. |
// | debounce0608.tryQuestionSwallowsCancel | fails | "s" is cancelled at 100 ms and "sw" at 200 ms; `try?` makes each cancelled sleep return and they search too. Every schedule. |
// | debounce0608.cancelledSleepEndsTask | passes | Cancelled plain Task.sleep throws at once; only "swi" (200 ms) reaches 300 ms of quiet, at 500 ms. |
// | debounce0608.lastQueryDropped | fails | Each new task is stored and then `pending?.cancel()` cancels it (meant for the old one): nothing is searched. Every schedule. |
// | debounce0608.pauseSearchesTwice | passes | "sw" (100 ms) is searched at 400 ms, before "swi" at 500 ms; "s" is cancelled. |
// | timing0608.loopHeadStart | fails (data race) | watch sync reads, parses (4 000 iterations), writes DailyStats.steps; phone sync does the same 1 ms later. Nothing orders the accesses but the head start: TSan sees the race; the update is lost only if the first is still parsing 1 ms later (in virtual time it never is). |
// | timing0608.loopInActor | passes | Read, parse and write are one call on a StepStore actor. |
// | timing0608.hopHeadStart | fails | As loopHeadStart, with an await to a BonusRules actor between the read and the write: the phone's 1 ms timer fires while the watch's sync is at the actor (work takes time), and a count is lost. |
// | timing0608.hopThenActorCall | passes | The bonus is fetched first; the addition is one actor call. |

public let explorerCorpus0608: [CorpusBody] =
    tokenRefreshCorpus0608 + imageCacheCorpus0608 + withdrawCorpus0608 + callersCorpus0608 + actorTaskCorpus0608
    + mainActorCorpus0608 + streamCorpus0608 + combineLatestCorpus0608 + debounceCorpus0608 + timingCorpus0608
