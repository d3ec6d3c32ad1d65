import ExerciseKit
import Exercises
import Solutions
import WorkbookChecks

/// The one registration list: each exercise's check, on the learner's type and on the reference.
public let exerciseRegistrations: [CheckRegistration] = [
    .init("SafeCounter", properties: SafeCounterCheck.properties, learner: { SafeCounterCheck.run { Exercises.SafeCounter() } },
          reference: { SafeCounterCheck.run { Solutions.SafeCounter() } }),
    .init("ReadersWriters", properties: ReadersWritersCheck.properties, learner: { ReadersWritersCheck.run { Exercises.ReadersWriters(storage: $0) } },
          reference: { ReadersWritersCheck.run { Solutions.ReadersWriters(storage: $0) } }),
    .init("FanOut", properties: FanOutCheck.properties, learner: { FanOutCheck.run { Exercises.FanOut() } },
          reference: { FanOutCheck.run { Solutions.FanOut() } }),
    .init("ImagePipeline", properties: ImagePipelineCheck.properties, learner: { ImagePipelineCheck.run { Exercises.ImagePipeline() } },
          reference: { ImagePipelineCheck.run { Solutions.ImagePipeline() } }),
    .init("CooperativeCancellation", properties: CooperativeCancellationCheck.properties, learner: { CooperativeCancellationCheck.run { Exercises.CooperativeCancellation() } },
          reference: { CooperativeCancellationCheck.run { Solutions.CooperativeCancellation() } }),
    .init("AsyncOperation", properties: AsyncOperationCheck.properties, learner: { AsyncOperationCheck.run { Exercises.CallbackOperation(work: $0) } },
          reference: { AsyncOperationCheck.run { Solutions.CallbackOperation(work: $0) } }),
    .init("Worker", properties: WorkerCheck.properties, learner: { WorkerCheck.run { Exercises.Worker() } },
          reference: { WorkerCheck.run { Solutions.Worker() } }),
    .init("BoundedBuffer", properties: BoundedBufferCheck.properties, learner: { BoundedBufferCheck.run { Exercises.BoundedBuffer(capacity: $0) } },
          reference: { BoundedBufferCheck.run { Solutions.BoundedBuffer(capacity: $0) } }),
    .init("Transfers", properties: TransfersCheck.properties, learner: { TransfersCheck.run { Exercises.Transfers() } },
          reference: { TransfersCheck.run { Solutions.Transfers() } }),
    .init("CompletionToAsync", properties: CompletionToAsyncCheck.properties, learner: { CompletionToAsyncCheck.run { Exercises.ThumbnailFetcher(server: $0) } },
          reference: { CompletionToAsyncCheck.run { Solutions.ThumbnailFetcher(server: $0) } }),
    .init("OrderedThumbnails", properties: OrderedThumbnailsCheck.properties, learner: { OrderedThumbnailsCheck.run { Exercises.ThumbnailGallery() } },
          reference: { OrderedThumbnailsCheck.run { Solutions.ThumbnailGallery() } }),
    .init("SequentialPresenter", properties: SequentialPresenterCheck.properties, learner: { SequentialPresenterCheck.run { Exercises.SequentialPresenter(host: $0) } },
          reference: { SequentialPresenterCheck.run { Solutions.SequentialPresenter(host: $0) } }),
    .init("WrapCallbackAPI", properties: WrapCallbackAPICheck.properties, learner: { WrapCallbackAPICheck.run { Exercises.WeatherService(client: $0) } },
          reference: { WrapCallbackAPICheck.run { Solutions.WeatherService(client: $0) } }),
    .init("DelegateBridge", properties: DelegateBridgeCheck.properties, learner: { DelegateBridgeCheck.run { Exercises.LocationBridge(provider: $0) } },
          reference: { DelegateBridgeCheck.run { Solutions.LocationBridge(provider: $0) } }),
    .init("CancellableRequest", properties: CancellableRequestCheck.properties, learner: { CancellableRequestCheck.run { Exercises.Downloader(client: $0) } },
          reference: { CancellableRequestCheck.run { Solutions.Downloader(client: $0) } }),
    .init("EventStream", properties: EventStreamCheck.properties, learner: { EventStreamCheck.run { Exercises.EventStream(source: $0) } },
          reference: { EventStreamCheck.run { Solutions.EventStream(source: $0) } }),
    .init("CombineLatest", properties: CombineLatestCheck.properties, learner: { CombineLatestCheck.run { Exercises.CombineLatest() } },
          reference: { CombineLatestCheck.run { Solutions.CombineLatest() } }),
    .init("Debounce", properties: DebounceCheck.properties, learner: { DebounceCheck.run { Exercises.SearchViewModel(search: $0, screen: $1, interval: $2) } },
          reference: { DebounceCheck.run { Solutions.SearchViewModel(search: $0, screen: $1, interval: $2) } }),
]
