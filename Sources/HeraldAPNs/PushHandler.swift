import HeraldCore
import Synchronization

/// The answer to one APNs request.
public struct APNsResponse: Sendable, Hashable {
    public var status: Int
    /// The `apns-id` header: the request's own, byte for byte, or a generated lowercase one.
    public var apnsID: String
    /// The `apns-unique-id` header (accepted notifications only).
    public var uniqueID: String?
    /// The JSON body of an error (`{"reason":…}`), nil for a 200.
    public var body: String?

    public init(status: Int, apnsID: String, uniqueID: String? = nil, body: String? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.body = body
    }

    /// The answer for a refused request.
    public init(failure: APNsFailure, apnsID: String) {
        self.init(status: failure.reason.status, apnsID: apnsID, body: failure.jsonBody)
    }
}

/// The state APNs keeps per provider connection: the provider-token state (team binding, cached
/// verification, refresh rate).
public final class APNsConnection: Sendable {
    public let auth = HeraldMutex(ProviderAuthState())
    public init() {}
}

/// What the listener hands each complete request to.
public protocol PushHandler: Sendable {
    /// Handles one request; never throws: every outcome is an APNs answer.
    func handle(_ request: APNsRequest, connection: APNsConnection) async -> APNsResponse

    /// Handles one request and calls `respond` exactly once with the answer, from any thread
    /// (possibly before returning). The HTTP/2 listener uses this form: a handler that can answer
    /// without suspending saves a task per request.
    func handle(
        _ request: APNsRequest, connection: APNsConnection, respond: @escaping @Sendable (APNsResponse) -> Void
    )
}

extension PushHandler {
    /// Runs the `async` form in a task.
    public func handle(
        _ request: APNsRequest, connection: APNsConnection, respond: @escaping @Sendable (APNsResponse) -> Void
    ) {
        Task { respond(await handle(request, connection: connection)) }
    }
}
