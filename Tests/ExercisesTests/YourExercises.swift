import Testing

// One suite per exercise, so `swift test --filter ExercisesTests.SafeCounter` checks just that
// one. Each runs your code from exercises/Exercises in a child process.

@Suite(.serialized) struct SafeCounter {
    @Test("01-gcd/SafeCounter: your answer") func yourAnswer() async { await ExerciseRun.verdict("SafeCounter") }
}

@Suite(.serialized) struct ReadersWriters {
    @Test("01-gcd/ReadersWriters: your answer") func yourAnswer() async { await ExerciseRun.verdict("ReadersWriters") }
}

@Suite(.serialized) struct FanOut {
    @Test("01-gcd/FanOut: your answer") func yourAnswer() async { await ExerciseRun.verdict("FanOut") }
}

@Suite(.serialized) struct ImagePipeline {
    @Test("02-operations/ImagePipeline: your answer") func yourAnswer() async { await ExerciseRun.verdict("ImagePipeline") }
}

@Suite(.serialized) struct CooperativeCancellation {
    @Test("02-operations/CooperativeCancellation: your answer") func yourAnswer() async { await ExerciseRun.verdict("CooperativeCancellation") }
}

@Suite(.serialized) struct AsyncOperation {
    @Test("02-operations/AsyncOperation: your answer") func yourAnswer() async { await ExerciseRun.verdict("AsyncOperation") }
}

@Suite(.serialized) struct Worker {
    @Test("03-threads/Worker: your answer") func yourAnswer() async { await ExerciseRun.verdict("Worker") }
}

@Suite(.serialized) struct BoundedBuffer {
    @Test("03-threads/BoundedBuffer: your answer") func yourAnswer() async { await ExerciseRun.verdict("BoundedBuffer") }
}

@Suite(.serialized) struct Transfers {
    @Test("03-threads/Transfers: your answer") func yourAnswer() async { await ExerciseRun.verdict("Transfers") }
}

@Suite(.serialized) struct CompletionToAsync {
    @Test("04-async-await/CompletionToAsync: your answer") func yourAnswer() async { await ExerciseRun.verdict("CompletionToAsync") }
}

@Suite(.serialized) struct OrderedThumbnails {
    @Test("04-async-await/OrderedThumbnails: your answer") func yourAnswer() async { await ExerciseRun.verdict("OrderedThumbnails") }
}

@Suite(.serialized) struct SequentialPresenter {
    @Test("04-async-await/SequentialPresenter: your answer") func yourAnswer() async { await ExerciseRun.verdict("SequentialPresenter") }
}

@Suite(.serialized) struct WrapCallbackAPI {
    @Test("05-continuations/WrapCallbackAPI: your answer") func yourAnswer() async { await ExerciseRun.verdict("WrapCallbackAPI") }
}

@Suite(.serialized) struct DelegateBridge {
    @Test("05-continuations/DelegateBridge: your answer") func yourAnswer() async { await ExerciseRun.verdict("DelegateBridge") }
}

@Suite(.serialized) struct CancellableRequest {
    @Test("05-continuations/CancellableRequest: your answer") func yourAnswer() async { await ExerciseRun.verdict("CancellableRequest") }
}

@Suite(.serialized) struct EventStream {
    @Test("06-streams/EventStream: your answer") func yourAnswer() async { await ExerciseRun.verdict("EventStream") }
}

@Suite(.serialized) struct CombineLatest {
    @Test("06-streams/CombineLatest: your answer") func yourAnswer() async { await ExerciseRun.verdict("CombineLatest") }
}

@Suite(.serialized) struct Debounce {
    @Test("06-streams/Debounce: your answer") func yourAnswer() async { await ExerciseRun.verdict("Debounce") }
}

@Suite(.serialized) struct BankAccountActor {
    @Test("07-actors/BankAccountActor: your answer") func yourAnswer() async { await ExerciseRun.verdict("BankAccountActor") }
}

@Suite(.serialized) struct MainActorViewModel {
    @Test("07-actors/MainActorViewModel: your answer") func yourAnswer() async { await ExerciseRun.verdict("MainActorViewModel") }
}

@Suite(.serialized) struct SharedTokenStore {
    @Test("07-actors/SharedTokenStore: your answer") func yourAnswer() async { await ExerciseRun.verdict("SharedTokenStore") }
}

@Suite(.serialized) struct TokenRefresher {
    @Test("08-reentrancy/TokenRefresher: your answer") func yourAnswer() async { await ExerciseRun.verdict("TokenRefresher") }
}

@Suite(.serialized) struct DedupingCache {
    @Test("08-reentrancy/DedupingCache: your answer") func yourAnswer() async { await ExerciseRun.verdict("DedupingCache") }
}

@Suite(.serialized) struct SafeWithdraw {
    @Test("08-reentrancy/SafeWithdraw: your answer") func yourAnswer() async { await ExerciseRun.verdict("SafeWithdraw") }
}
