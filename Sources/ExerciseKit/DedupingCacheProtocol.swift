/// Exercise 08-reentrancy/DedupingCache: images by key, each downloaded once.
public protocol DedupingCacheProtocol: Actor {
    init(server: ImageServer)
    /// The image for `key`: from the cache, from the download of it in flight, or downloaded.
    func image(for key: String) async throws -> RemoteImage
}
