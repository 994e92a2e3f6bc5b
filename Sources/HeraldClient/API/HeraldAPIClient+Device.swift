import Foundation
import HeraldCore

/// The device API (`/v1/devices/{device_id}/…`); the client's bearer token is a user's token.
extension HeraldAPIClient {
    /// `GET …/notifications`: `{"notifications":[…],"cursor":…}`, oldest first after `since`.
    public func listNotifications(deviceID: String, since cursor: String? = nil, limit: Int? = nil) async throws -> Data
    {
        var query: [(name: String, value: String)] = []
        if let cursor { query.append(("since", cursor)) }
        if let limit { query.append(("limit", String(limit))) }
        return try await send("GET", path: notificationsPath(deviceID), query: query)
    }

    /// `GET …/notifications/{id}`.
    public func notification(deviceID: String, id: String) async throws -> Data {
        try await send("GET", path: notificationsPath(deviceID, id))
    }

    /// `POST …/notifications/{id}/read`: marks it read; answers the notification.
    public func markRead(deviceID: String, id: String) async throws -> Data {
        try await send("POST", path: notificationsPath(deviceID, id) + "/read")
    }

    /// `POST …/notifications/{id}/dismiss`: marks it dismissed; answers the notification.
    public func dismiss(deviceID: String, id: String) async throws -> Data {
        try await send("POST", path: notificationsPath(deviceID, id) + "/dismiss")
    }

    /// `POST …/notifications/{id}/response`: the person's response — `default` (a tap), `dismiss`, or
    /// one of the category's actions (`text` for a text-input action); answers `{"response": …}`.
    public func respond(deviceID: String, id: String, action: String, text: String? = nil) async throws -> Data {
        var body: [String: JSONValue] = ["action_identifier": .string(action)]
        if let text { body["user_text"] = .string(text) }
        return try await send("POST", path: notificationsPath(deviceID, id) + "/response", body: .object(body))
    }

    /// `DELETE …/notifications/{id}`: removes it from the list.
    public func removeNotification(deviceID: String, id: String) async throws {
        try await send("DELETE", path: notificationsPath(deviceID, id))
    }

    /// The device's live events (`GET …/stream`, `text/event-stream`): every change after `cursor`,
    /// then new ones as they happen. The stream reconnects after a drop per `reconnect`, resuming
    /// from the last event id it received (`Last-Event-ID`).
    ///
    /// - Parameter onStatus: told when the stream connects and when it is about to reconnect.
    public func events(
        deviceID: String,
        cursor: String? = nil,
        reconnect: ReconnectPolicy = .standard,
        onStatus: @escaping @Sendable (DeviceEventStream.Status) -> Void = { _ in }
    ) -> DeviceEventStream {
        DeviceEventStream(client: self, deviceID: deviceID, cursor: cursor, reconnect: reconnect, onStatus: onStatus)
    }

    func notificationsPath(_ deviceID: String, _ id: String? = nil) -> String {
        var path = "/v1/devices/\(Self.pathSegment(deviceID))/notifications"
        if let id { path += "/\(Self.pathSegment(id))" }
        return path
    }
}
