import Hummingbird

/// The request context of the JSON API: Hummingbird's core storage with a body limit that fits
/// admin and device requests (the API carries no notification payloads in).
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
    }

    /// The largest request body a route decodes (64 KiB).
    public var maxUploadSize: Int { 64 * 1024 }
}
