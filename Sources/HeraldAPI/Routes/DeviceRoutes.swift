import Foundation
import HeraldCore
import HeraldStore
import Hummingbird

/// The device routes (`/v1/devices/{device_id}/…`): a device's notification list, for its owner.
struct DeviceRoutes: Sendable {
    static let defaultPageSize = 100
    static let maximumPageSize = 500

    let store: any HeraldStore
    let hub: LiveHub
    let authenticator: Authenticator
    let now: @Sendable () -> Date

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/devices/{device_id}/notifications", list),
            APIRoute(.get, "/v1/devices/{device_id}/notifications/{id}", get),
            APIRoute(.post, "/v1/devices/{device_id}/notifications/{id}/read", markRead),
            APIRoute(.post, "/v1/devices/{device_id}/notifications/{id}/dismiss", dismiss),
            APIRoute(.delete, "/v1/devices/{device_id}/notifications/{id}", remove),
        ]
    }

    /// The device the request may use (401 / 404 `device_not_found` otherwise).
    func device(_ request: Request, _ context: APIRequestContext) async throws -> Device {
        try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
    }

    @Sendable func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await device(request, context)
        let query = request.uri.queryParameters
        let since = try CursorParameter.parse(query.get("since"), name: "since") ?? 0
        let limit = try Self.limit(query.get("limit"))
        // Read the end of the feed before the page: when the page reaches the end, the cursor can
        // skip past other devices' changes without skipping any of this device's.
        let end = try await store.latestCursor()
        let rows = try await store.notifications(deviceID: device.deviceID, after: since, limit: limit, now: now())
        var cursor = rows.last?.seq ?? since
        if rows.count < limit { cursor = max(cursor, end) }
        return JSONBody.response(
            NotificationPageJSON(notifications: rows.map(NotificationJSON.init), cursor: String(cursor)))
    }

    @Sendable func get(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await device(request, context)
        let row = try await find(deviceID: device.deviceID, id: context.parameters.require("id")) { id in
            try await store.notification(deviceID: device.deviceID, id: id)
        }
        return JSONBody.response(NotificationJSON(row))
    }

    @Sendable func markRead(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await device(request, context)
        let row = try await find(deviceID: device.deviceID, id: context.parameters.require("id")) { id in
            try await store.markRead(deviceID: device.deviceID, id: id, at: now())
        }
        hub.publish([row])
        return JSONBody.response(NotificationJSON(row))
    }

    @Sendable func dismiss(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await device(request, context)
        let row = try await find(deviceID: device.deviceID, id: context.parameters.require("id")) { id in
            try await store.dismiss(deviceID: device.deviceID, id: id, at: now())
        }
        hub.publish([row])
        return JSONBody.response(NotificationJSON(row))
    }

    @Sendable func remove(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await device(request, context)
        let row = try await find(deviceID: device.deviceID, id: context.parameters.require("id")) { id in
            try await store.remove(deviceID: device.deviceID, id: id, at: now())
        }
        hub.publish([row])
        return Response(status: .noContent)
    }

    /// Runs a lookup or change by notification id; apns-ids are stored lowercase, so an uppercase
    /// id that finds nothing is tried again lowercased. 404 `notification_not_found` when neither does.
    private func find(
        deviceID: String, id: String, _ operation: (String) async throws -> StoredNotification?
    ) async throws -> StoredNotification {
        if let row = try await operation(id) { return row }
        let lowercased = id.lowercased()
        if lowercased != id, let row = try await operation(lowercased) { return row }
        throw APIError.notFound("notification_not_found", "There is no notification with this id on this device.")
    }

    /// The `limit` query parameter: 1…500, default 100.
    static func limit(_ value: String?) throws -> Int {
        guard let value else { return defaultPageSize }
        guard let limit = Int(value), (1...maximumPageSize).contains(limit) else {
            throw APIError.invalidParameter("limit", "must be a whole number from 1 to \(maximumPageSize).")
        }
        return limit
    }
}
