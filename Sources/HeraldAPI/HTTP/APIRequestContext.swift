import Hummingbird

/// The request context of the JSON API: Hummingbird's core storage with a body limit that fits
/// admin and device requests (the API carries no notification payloads in).
public struct APIRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage

    /// A context for a request arriving on the application's channel.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
    }

    /// The largest request body a route decodes (64 KiB).
    public var maxUploadSize: Int { 64 * 1024 }
}
