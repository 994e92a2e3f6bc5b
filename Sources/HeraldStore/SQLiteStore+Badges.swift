import Foundation
import GRDB
import HeraldCore

/// An app's badge on a device: the `aps.badge` of the app's latest push whose decision applied it.
public struct AppBadgeRecord: Sendable, Hashable {
    public var deviceID: String
    public var bundleID: String
    /// The badge number; 0 = cleared.
    public var badge: Int
    /// The notification whose push set it.
    public var notificationID: String
    /// The change (`seq`) that set it.
    public var seq: Int64

    public init(deviceID: String, bundleID: String, badge: Int, notificationID: String, seq: Int64) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.badge = badge
        self.notificationID = notificationID
        self.seq = seq
    }
}

// App badges are written by triggers in the transaction of the notification write (Schema v4,
// `Schema.createAppBadges`): the Swift write paths don't know about them.

extension SQLiteStore {
    private static let badgesSQL = """
        SELECT device_id, bundle_id, badge, notification_id, seq FROM device_app_badges
        WHERE device_id = ? ORDER BY bundle_id
        """

    public func appBadges(deviceID: String) async throws -> [AppBadgeRecord] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: Self.badgesSQL), arguments: [deviceID]).map { row in
                AppBadgeRecord(
                    deviceID: row[0], bundleID: row[1], badge: row[2], notificationID: row[3], seq: row[4]
                )
            }
        }
    }
}
