/// Exercise 05-continuations/CancellableRequest: a cancellable callback API wrapped so that
/// cancelling the calling task reaches both the caller and the download.
public protocol CancellableRequestProtocol: Sendable {
    init(client: DownloadClient)
    /// Downloads `name`: returns its payload or throws the client's error as it is. When the
    /// calling task is cancelled — before the call, during the download, or as it ends — the
    /// download is cancelled (or never started) and the call throws `CancellationError` (not
    /// `DownloadError.cancelled`); a cancel that comes after the payload arrived may also let
    /// the payload through. Either way the continuation is resumed exactly once.
    func download(_ name: String) async throws -> Payload
}
