import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdCore
import NIOCore

/// `GET /v1/devices/{device_id}/stream` with `Upgrade: websocket`: the stream's events as text
/// messages `{"type":"notification"|"removed","cursor":…,"notification":{…}}`, and
/// `{"type":"summary","cursor":…,"summary":{…}}` (`SummaryEventJSON`).
///
/// The upgrade is decided before the router sees the request (HTTP/1 upgrade happens on the
/// connection, `APIChannel`), so this checks the path and the user token itself; a request it
/// refuses gets the same JSON error as the route would give. The session runs on the connection
/// (`WebSocketStreamHandler`). Requests without `Upgrade: websocket` are SSE (`EventStreamHandler`).
enum WebSocketStreams {
    static let endpoint = APIEndpoint(method: .get, path: "/v1/devices/{device_id}/stream")

    /// The device and cursor of an upgrade request, once its path, method, token and cursor check
    /// out; else the JSON error the SSE route would give (401, 404 `device_not_found`, 400 for a bad
    /// cursor).
    static func checkUpgrade(_ head: HTTPRequest, authenticator: Authenticator, store: any HeraldStore) async throws
        -> (device: Device, cursor: Int64)
    {
        guard deviceID(inStreamPath: URI(head.path ?? "/").path) != nil else {
            throw APIError.notFound("not_found", "WebSocket streams are at /v1/devices/{device_id}/stream.")
        }
        guard head.method == .get else {
            throw APIError(.methodNotAllowed, code: "method_not_allowed", message: "A WebSocket upgrade is a GET.")
        }
        return try await start(head, authenticator: authenticator, store: store)
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

    /// The text messages of one feed output (none for a heartbeat: WebSocket pings keep the
    /// connection alive).
    static func messages(_ output: LiveFeedOutput) throws -> [ByteBuffer] {
        switch output {
        case .changes(let changes):
            return changes.map { ByteBuffer(bytes: message($0)) }
        case .named(let name, let json):
            return [ByteBuffer(bytes: try JSONBody.encode(JSONValue.object(["type": .string(name), name: json])))]
        case .state(let state):
            return [
                ByteBuffer(bytes: try JSONBody.encode(JSONValue.object(["type": .string("state"), "state": state])))
            ]
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
            return [ByteBuffer(bytes: writer.bytes)]
        case .badge(let badge):
            return [
                ByteBuffer(bytes: try JSONBody.encode(JSONValue.object(["type": .string("badge"), "badge": badge])))
            ]
        case .heartbeat:
            return []
        }
    }

    /// A change as a WebSocket text message.
    static func message(_ change: LiveChange) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("type")
        writer.string(change.isRemoval ? "removed" : "notification")
        writer.key("cursor")
        writer.string(String(change.cursor))
        writer.key("notification")
        NotificationJSON(change.notification).write(into: &writer)
        writer.endObject()
        return writer.bytes
    }
}
