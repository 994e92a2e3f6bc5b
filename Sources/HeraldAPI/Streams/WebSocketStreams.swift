import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// `GET /v1/devices/{device_id}/stream` with `Upgrade: websocket`: the stream's events as text
/// messages `{"type":"notification"|"removed","cursor":…,"notification":{…}}`, and
/// `{"type":"summary","cursor":…,"summary":{…}}` (`SummaryEventJSON`).
///
/// The upgrade is decided before the router sees the request (HTTP/1 upgrade happens on the
/// connection), so this checks the path and the user token itself; a request it refuses gets the
/// same JSON error as the route would give. Requests without `Upgrade: websocket` go to the router (SSE).
struct WebSocketStreams: Sendable {
    typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    let dependencies: APIDependencies
    let authenticator: Authenticator

    static let endpoint = APIEndpoint(method: .get, path: "/v1/devices/{device_id}/stream")

    /// Whether to upgrade a request, and the session to run when it does. A refused request gets
    /// the JSON error the SSE route would give (401, 404 `device_not_found`, 400 for a bad cursor).
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel, logger: Logger) async -> ShouldUpgradeResult<Handler>
    {
        // Hummingbird's connection task runs the session (or writes the refusal).
        ConnectionRoute.decide(.router, on: channel)
        do {
            return .upgrade([:], try await session(for: head))
        } catch {
            let refusal =
                (error as? StorageFaultError).map(APIError.storageFault) ?? error as? APIError ?? .internalError
            if refusal == .internalError {
                logger.error(
                    "WebSocket upgrade failed", metadata: ["error.type": .string(String(describing: type(of: error)))])
            }
            await UpgradeRefusal.install(refusal, on: channel, logger: logger)
            return .dontUpgrade
        }
    }

    /// The session of an upgrade request, once its path, token and cursor check out.
    func session(for head: HTTPRequest) async throws -> Handler {
        guard Self.deviceID(inStreamPath: URI(head.path ?? "/").path) != nil else {
            throw APIError.notFound("not_found", "WebSocket streams are at /v1/devices/{device_id}/stream.")
        }
        guard head.method == .get else {
            throw APIError(.methodNotAllowed, code: "method_not_allowed", message: "A WebSocket upgrade is a GET.")
        }
        let (device, cursor) = try await Self.start(head, authenticator: authenticator, store: dependencies.store)
        return { [dependencies] inbound, outbound, context in
            var logger = context.logger
            logger[metadataKey: "device.id"] = .string(device.deviceID)
            try await Self.run(
                deviceID: device.deviceID, after: cursor, inbound: inbound, outbound: outbound,
                dependencies: dependencies, logger: logger
            )
        }
    }

    /// The device and the cursor a stream request starts from, when its token and cursor check out
    /// (the errors of the SSE route: 401, 404 `device_not_found`, 400 for a bad cursor).
    static func start(_ head: HTTPRequest, authenticator: Authenticator, store: any HeraldStore) async throws -> (
        device: Device, cursor: Int64
    ) {
        let uri = URI(head.path ?? "/")
        guard let deviceID = deviceID(inStreamPath: uri.path) else {
            throw APIError.notFound("not_found", "Streams are at /v1/devices/{device_id}/stream.")
        }
        let token = try Authenticator.deviceToken(headers: head.headerFields, uri: uri)
        let device = try await authenticator.requireDevice(deviceID, token: token)
        let cursor = try await CursorParameter.start(headers: head.headerFields, uri: uri, store: store)
        return (device, cursor)
    }

    /// The device id of a stream path; nil for any other path.
    static func deviceID(inStreamPath path: String) -> String? {
        guard endpoint.matches(path: path) else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return String(segments[3])
    }

    /// One WebSocket session: the feed written as text messages until the client closes, the
    /// connection fails or the server shuts down.
    static func run(
        deviceID: String, after cursor: Int64, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        dependencies: APIDependencies, logger: Logger
    ) async throws {
        // Subscribe before the feed reads the backlog, so nothing committed in between is missed.
        let subscription = dependencies.hub.subscribe(deviceID: deviceID)
        defer { subscription.finish() }
        let feed = LiveFeed(
            subscription: subscription, after: cursor, store: dependencies.store, now: dependencies.now, logger: logger
        )
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Read until the client closes; the library answers pings and the close handshake.
                    defer { subscription.finish() }
                    for try await _ in inbound {}
                }
                for try await output in feed {
                    switch output {
                    case .changes(let changes):
                        for change in changes {
                            try await outbound.writeTextMessage(try message(change))
                        }
                    case .named(let name, let json):
                        let message = JSONValue.object(["type": .string(name), name: json])
                        try await outbound.writeTextMessage(
                            String(decoding: try JSONBody.encode(message), as: UTF8.self))
                    case .state(let state):
                        let message = JSONValue.object(["type": .string("state"), "state": state])
                        try await outbound.writeTextMessage(
                            String(decoding: try JSONBody.encode(message), as: UTF8.self))
                    case .summary(let summary):
                        var writer = JSONWriter(capacity: 4_096)
                        writer.beginObject()
                        writer.key("type")
                        writer.string("summary")
                        writer.key("cursor")
                        writer.string(String(summary.cursor))
                        writer.key("summary")
                        SummaryEventJSON.write(summary, into: &writer)
                        writer.endObject()
                        try await outbound.writeTextMessage(String(decoding: writer.bytes, as: UTF8.self))
                    case .badge(let badge):
                        let message = JSONValue.object(["type": .string("badge"), "badge": badge])
                        try await outbound.writeTextMessage(
                            String(decoding: try JSONBody.encode(message), as: UTF8.self))
                    case .heartbeat:
                        continue
                    }
                }
                group.cancelAll()
            }
        } onCancelOrGracefulShutdown: {
            subscription.finish()
        }
    }

    /// A change as a WebSocket text message.
    static func message(_ change: LiveChange) throws -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("type")
        writer.string(change.isRemoval ? "removed" : "notification")
        writer.key("cursor")
        writer.string(String(change.cursor))
        writer.key("notification")
        NotificationJSON(change.notification).write(into: &writer)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
