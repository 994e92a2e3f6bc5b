import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// Notification rows as the store's callers see them, and the app badges a write sets.

extension PostgresStore {
    /// Every notification `query` selects or returns (`notificationColumns`, then the overlay's three).
    static func notificationRows(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger)
        async throws -> [StoredNotification]
    {
        var notifications: [StoredNotification] = []
        for try await row in try await connection.query(query, logger: logger) {
            notifications.append(try decodeNotification(row))
        }
        return notifications
    }

    static func decodeNotification(_ row: PostgresRow) throws -> StoredNotification {
        let cells = row.makeRandomAccess()
        func date(_ index: Int) throws -> Date? {
            try cells[index].decode(Int64?.self).map(Date.init(storedMilliseconds:))
        }
        guard let pushType = PushType(rawValue: try cells[5].decode(String.self)) else {
            throw StoreError(.invalid, "A stored notification has a push type this version does not know.")
        }
        var notification = StoredNotification(
            seq: try cells[0].decode(Int64.self), id: try cells[1].decode(String.self),
            deviceID: try cells[2].decode(String.self), bundleID: try cells[3].decode(String.self),
            topic: try cells[4].decode(String.self), pushType: pushType, priority: try cells[6].decode(Int.self),
            collapseID: try cells[7].decode(String?.self), expiration: try cells[8].decode(Int64?.self),
            payload: try cells[9].decode(String.self),
            receivedAt: Date(storedMilliseconds: try cells[10].decode(Int64.self)), deliveredAt: try date(11),
            readAt: try date(12), dismissedAt: try date(13), removedAt: try date(14), releasedAt: try date(17))
        if let text = try cells[18].decode(String?.self) {
            notification.attachments = NotificationAttachment.decoded(from: text)
        }
        // The disposition column (15) is the decision's, kept for the held and summary indexes.
        if let text = try cells[16].decode(String?.self) {
            notification.setDecision(DecisionRecord.decoded(from: text), json: text)
        }
        if cells.count > 21, let slot = try cells[19].decode(Int64?.self), let decision = notification.decision {
            let releasedAt = try cells[20].decode(Int64.self)
            let featured = try cells[21].decode(Bool?.self) ?? false
            notification.setDecision(
                decision.releasedBySummary(slotMilliseconds: slot, isFeatured: featured), json: nil)
            notification.releasedAt = Date(storedMilliseconds: releasedAt)
        }
        return notification
    }
}

extension AppBadgeRule.Latest {
    /// One upsert per device and app (`AppBadgeRule`), in the transaction of `connection`.
    func store(_ connection: PostgresConnection, logger: Logger) async throws {
        for entry in entries {
            try await connection.query(
                """
                INSERT INTO device_app_badges (device_id, bundle_id, badge, notification_id, seq)
                VALUES (\(entry.deviceID), \(entry.bundleID), \(entry.badge), \(entry.notificationID), \(entry.seq))
                ON CONFLICT (device_id, bundle_id) DO UPDATE SET
                    badge = excluded.badge, notification_id = excluded.notification_id, seq = excluded.seq
                """, logger: logger)
        }
    }
}
