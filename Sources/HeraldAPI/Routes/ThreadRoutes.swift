import Foundation
import HeraldCore
import HeraldLocalization
import HeraldPolicy
import HeraldStore
import Hummingbird

/// The device's list as the device shows it: `GET /v1/devices/{device_id}/threads` (groups per app
/// and thread with their summary lines) and `GET /v1/devices/{device_id}/badges` (app badges and
/// their total). For the device's owner; another user's device answers 404 `device_not_found`.
struct ThreadRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/devices/{device_id}/threads", threads),
            APIRoute(.get, "/v1/devices/{device_id}/badges", badges),
        ]
    }

    /// The rows read per store page while collecting the list.
    static let readPageSize = 500

    @Sendable func threads(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        let limit = try DeviceRoutes.limit(request.uri.queryParameters.get("limit"))
        let policy = try await store.policyContext(deviceID: device.deviceID)
        let rows = try await visibleRows(deviceID: device.deviceID)
        let parsed = rows.map(ThreadView.Item.init)
        let groups = NotificationThreads.group(parsed.map(\.entry)) { bundleID in
            policy?.appSettings[bundleID]?.grouping ?? policy?.preferences?.grouping ?? .automatic
        }
        let locale = policy?.deviceState?.locale ?? policy?.preferences?.locale ?? "en"
        var view = ThreadView(store: store, locale: locale)
        let items = Dictionary(uniqueKeysWithValues: parsed.map { ($0.entry.id, $0) })
        var json: [ThreadView.GroupJSON] = []
        for group in groups.prefix(limit) {
            guard let newest = items[group.newest.id] else { continue }
            json.append(try await view.json(group, newest: newest))
        }
        return JSONBody.response(ThreadView.PageJSON(threads: json, total: groups.count))
    }

    @Sendable func badges(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(context.parameters.require("device_id"), request: request)
        return JSONBody.response(BadgeJSON.response(try await store.appBadges(deviceID: device.deviceID)))
    }

    /// The device's list as the device shows it, newest first: live rows that are not dismissed,
    /// not `notDelivered` and not held (for a Focus or the summary). The place of a released
    /// notification is its release time.
    func visibleRows(deviceID: String) async throws -> [StoredNotification] {
        var rows: [StoredNotification] = []
        var cursor: Int64 = 0
        let now = dependencies.now()
        while true {
            let page = try await store.notifications(
                deviceID: deviceID, after: cursor, limit: Self.readPageSize, now: now)
            rows += page.filter(Self.isVisible)
            guard page.count == Self.readPageSize, let last = page.last else { break }
            cursor = last.seq
        }
        return rows.sorted { ($0.releasedAt ?? $0.receivedAt, $0.seq) > ($1.releasedAt ?? $1.receivedAt, $1.seq) }
    }

    static func isVisible(_ row: StoredNotification) -> Bool {
        guard !row.isRemoved, row.dismissedAt == nil else { return false }
        guard let disposition = row.disposition else { return true }
        return disposition != .notDelivered && !disposition.isHeld
    }
}

/// App badges as JSON: `{"total": N, "apps": [{"bundle_id", "badge"}]}`, apps by bundle id, cleared
/// (0) badges left out.
enum BadgeJSON {
    struct AppJSON: Encodable, Hashable {
        var bundleID: String
        var badge: Int

        enum CodingKeys: String, CodingKey {
            case bundleID = "bundle_id"
            case badge
        }
    }

    struct ResponseJSON: Encodable, Hashable {
        var total: Int
        var apps: [AppJSON]
    }

    static func response(_ records: [AppBadgeRecord]) -> ResponseJSON {
        let apps = records.filter { $0.badge > 0 }.sorted { $0.bundleID < $1.bundleID }
            .map { AppJSON(bundleID: $0.bundleID, badge: $0.badge) }
        return ResponseJSON(total: apps.reduce(0) { $0 + $1.badge }, apps: apps)
    }
}
