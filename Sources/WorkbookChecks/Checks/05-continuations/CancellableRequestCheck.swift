import ExerciseKit
import WorkbookCore
import WorkbookExplorer

/// Checks exercise 05-continuations/CancellableRequest under the explorer, on a fresh client and
/// a fresh answer per schedule; after the call the check waits until nothing else can run
/// (`untilQuiet`), then judges what the call gave and what became of each download.
///
/// 1. Not cancelled: a download that completes, one that fails — the payload, the client's error.
/// 2. The calling task cancelled before the call starts; while a stalled download runs; at the
///    moment the download completes (both orders explored); and from another thread inside
///    `client.download`, before the handle exists: `CancellationError` (or, for a cancel after
///    the payload arrived, the payload), and no download left running.
public enum CancellableRequestCheck {
    public static let returnsResult = Property(
        id: "wrong-result",
        name: Localized("not cancelled, the download's result reaches the caller", ja: "キャンセルされなければ、ダウンロードの結果が呼び出し元に届く"),
        rule: Localized("Not cancelled, `download(_:)` returns the client's payload, or throws the client's error as it is.",
                        ja: "キャンセルされなければ、`download(_:)` はクライアントのペイロードを返すか、クライアントのエラーをそのままスローする。"))
    public static let cancellationThrown = Property(
        id: "cancel-lost",
        name: Localized("a cancelled call throws CancellationError", ja: "キャンセルされた呼び出しは CancellationError をスローする"),
        rule: Localized("Cancelled before the payload arrived, the call throws `CancellationError` — not the client's `DownloadError.cancelled`, not the payload.",
                        ja: "ペイロードが届く前にキャンセルされた呼び出しは `CancellationError` をスローする。クライアントの `DownloadError.cancelled` でも、ペイロードでもない。"))
    public static let downloadCancelled = Property(
        id: "work-left-running",
        name: Localized("a cancel stops the download", ja: "キャンセルでダウンロードを止める"),
        rule: Localized("Cancelling the calling task cancels the download it started (`handle.cancel()`) — at whatever moment the cancel comes, also before the handle exists; no download is left running.",
                        ja: "呼び出し元のタスクをキャンセルすると、始めたダウンロードがキャンセルされる（`handle.cancel()`）。キャンセルがどの瞬間に来ても（ハンドルができる前でも）そうなり、走ったままのダウンロードは残らない。"))
    public static let neverLeftWaiting = Property(
        id: "left-waiting",
        name: Localized("every path resumes the continuation", ja: "すべての経路で継続を再開する"),
        rule: Localized("Whatever the download's ending — payload, error, cancelled — the continuation is resumed, so the call returns or throws.",
                        ja: "ダウンロードがどう終わっても（ペイロード、エラー、キャンセル）継続が再開され、呼び出しは戻るかスローする。"))
    /// Every part of this check runs on every platform.
    public static let platformProbes: [PlatformProbe] = []

    public static let properties = [returnsResult, cancellationThrown, downloadCancelled, neverLeftWaiting, Property.finishes, Property.freshState]

    static let budget = Explorer.Budget(maxSchedules: 2_000, maxSeconds: 0.25, foreignWaitSeconds: 0.5)
    static let files: [String: DownloadClient.File] = [
        "photo": .completes(after: .milliseconds(10)), "report": .fails(after: .milliseconds(10)), "stalled": .stalls,
    ]
    static let ok = "ok"

    public static func run(_ make: @escaping @Sendable (DownloadClient) -> any CancellableRequestProtocol) -> CheckResult {
        let failure = checkNotCancelled(make, "photo", want: "Payload(photo)")
            ?? checkNotCancelled(make, "report", want: "DownloadError.offline")
            ?? checkCancelled(make, .beforeTheCall)
            ?? checkCancelled(make, .whileItRuns)
            ?? checkCancelled(make, .asItCompletes)
            ?? checkCancelled(make, .insideDownload)
        return failure.map(CheckResult.failed) ?? .passed(properties)
    }

    // MARK: The cases

    static func checkNotCancelled(_ make: @escaping @Sendable (DownloadClient) -> any CancellableRequestProtocol,
                                  _ name: String, want: String) -> CheckFailure? {
        let call = Localized(
            "`try await download(\"\(name)\")`, the download \(name == "photo" ? "completing" : "failing with DownloadError.offline") after 10 ms",
            ja: "`try await download(\"\(name)\")`、ダウンロードは 10 ms 後に\(name == "photo" ? "完了する" : " DownloadError.offline で失敗する")")
        return explore(call) {
            let client = DownloadClient(files: files)
            let got = await outcomeText { try await make(client).download(name) }
            checkpoint("download ↩")
            await untilQuiet()
            guard got == want else {
                return brokenOutcome(returnsResult, Localized("expected \(want), got \(got)", ja: "\(want) のはずが \(got) でした"))
            }
            return ok
        }
    }

    enum Moment {
        case beforeTheCall, whileItRuns, asItCompletes, insideDownload

        var file: String { self == .whileItRuns ? "stalled" : "photo" }

        var call: Localized {
            let task = "`let task = Task { try await download(\"\(file)\") }`"
            switch self {
            case .beforeTheCall:
                return .verbatim("\(task); `task.cancel()`")
            case .whileItRuns:
                return Localized("\(task) (a download that never ends by itself), `task.cancel()` 5 ms later",
                                 ja: "\(task)（ひとりでは終わらないダウンロード）、5 ms 後に `task.cancel()`")
            case .asItCompletes:
                return Localized("\(task), `task.cancel()` at 10 ms, as the download completes", ja: "\(task)、ダウンロードが完了する 10 ms に `task.cancel()`")
            case .insideDownload:
                return Localized("\(task), `task.cancel()` from another thread landing inside `client.download`, before the handle exists",
                                 ja: "\(task)、別のスレッドからの `task.cancel()` が、ハンドルができる前の `client.download` の中に届く")
            }
        }
    }

    static func checkCancelled(_ make: @escaping @Sendable (DownloadClient) -> any CancellableRequestProtocol, _ moment: Moment) -> CheckFailure? {
        explore(moment.call, budget: moment == .insideDownload ? .onceFromAnotherThread : budget) {
            let client = DownloadClient(files: files)
            let downloader = make(client)
            nameNextTasks("download")
            let task = Task { try await downloader.download(moment.file) }
            let landing = CancelLanding()
            switch moment {
            case .beforeTheCall:
                checkpoint("task.cancel()")
                task.cancel()
            case .whileItRuns, .asItCompletes:
                try? await ExplorerClock().sleep(for: .milliseconds(moment == .whileItRuns ? 5 : 10))
                checkpoint("task.cancel()")
                task.cancel()
            case .insideDownload:
                // Also while the operation is inside the client's call and has no handle yet.
                client.whenStarting(moment.file) { cancelFromAnotherThread(task, landing: landing) }
            }
            let result = await task.result
            checkpoint("task.result")
            await untilQuiet()
            if let blocked = landing.blockedOutcome(inside: "client.download") { return blocked }
            return judgeCancelled(moment, result: result, downloads: client.downloads)
        }
    }

    static func judgeCancelled(_ moment: Moment, result: Result<Payload, any Error>, downloads: [(name: String, ending: DownloadClient.Ending?)]) -> String {
        if let running = downloads.first(where: { $0.ending == nil }) {
            return brokenOutcome(downloadCancelled, Localized(
                "the download of \"\(running.name)\" is still running after the call ended (\(resultText(result)))",
                ja: "呼び出しが終わった（\(resultText(result))）後も、\"\(running.name)\" のダウンロードが走ったまま"))
        }
        let completed = downloads.contains { $0.ending == .completed }
        switch result {
        case let .failure(error) where error is CancellationError:
            return ok
        case .success where moment == .asItCompletes && completed:
            return ok  // the payload was there before the cancel
        case .success:
            return brokenOutcome(cancellationThrown, Localized(
                "returned \(resultText(result)): the cancel never reached the download, which ran to completion",
                ja: "\(resultText(result)) を返した。キャンセルがダウンロードに届かず、ダウンロードは最後まで走った"))
        case let .failure(error):
            return brokenOutcome(cancellationThrown, Localized("threw \(errorName(error))", ja: "\(errorName(error)) をスローした"))
        }
    }

    // MARK: Exploring

    static func explore(_ call: Localized, budget: Explorer.Budget = budget, _ body: @escaping @Sendable () async -> String) -> CheckFailure? {
        checkExplored(returnsResult, title: call, broken: brokenProperty(in: properties), deadlock: neverLeftWaiting,
                      leftWaiting: leftWaiting, observed: { observed(call, $0) }, budget: budget,
                      classify: { $0 == ok ? .acceptable : .forbidden }) {
            return await body()
        }
    }

    static let leftWaiting = Localized(
            "Nothing resumed the continuation. A cancel must reach the download — `handle.cancel()` from `onCancel`, and, if the cancel came before the handle existed, right after you get it — so that the client calls your completion handler with `DownloadError.cancelled`, and every ending of the download must resume the continuation.",
            ja: "継続を再開したものがありません。キャンセルはダウンロードに届く必要があります（`onCancel` から `handle.cancel()`。ハンドルができる前にキャンセルが来ていたなら、ハンドルを得た直後に）。そうすればクライアントが `DownloadError.cancelled` で完了ハンドラを呼びます。ダウンロードがどう終わっても、継続を再開しなければなりません。")

    static func observed(_ call: Localized, _ outcome: String) -> Localized {
        observedOutcome(call, outcome) { id in
            switch id {
            case returnsResult.id:
                Localized("Resume with the completion handler's result: the payload, or the client's error as it is.",
                          ja: "完了ハンドラの結果で再開しましょう。ペイロードか、クライアントのエラーをそのままです。")
            case cancellationThrown.id:
                Localized("When the download ends with `DownloadError.cancelled`, resume throwing `CancellationError()`; and make sure a cancel that lands before you have the handle still cancels it: keep a \"cancelled\" mark beside the handle, under one lock, and look at it right after `client.download` returns.",
                          ja: "ダウンロードが `DownloadError.cancelled` で終わったら、`CancellationError()` をスローして再開しましょう。また、ハンドルを得る前に届いたキャンセルでも、確実にキャンセルされるようにします。ハンドルの横に「キャンセル済み」の印を置き（同じロックの下で）、`client.download` から戻った直後にそれを見ます。")
            case downloadCancelled.id:
                Localized("`onCancel` must cancel the download (`handle.cancel()`), not only the caller's wait — and resume nothing itself: the download then ends with `DownloadError.cancelled`, and your completion handler resumes once.",
                          ja: "`onCancel` は呼び出し元の待機だけでなく、ダウンロードもキャンセルする必要があります（`handle.cancel()`）。自分では何も再開しません。するとダウンロードが `DownloadError.cancelled` で終わり、完了ハンドラが 1 回だけ再開します。")
            default:
                nil
            }
        }
    }
}
