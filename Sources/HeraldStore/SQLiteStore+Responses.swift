import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// A person's responses to notifications, kept until the app's live connection claims them
// (Schema `v13-local-notifications`, table `notification_responses`).

extension SQLiteStore {
    public func recordResponse(_ response: NotificationResponseRecord) async throws {
        try await write(Self.notFound("The device or the app does not exist.")) { db in
            try db.execute(
                sql: """
                    INSERT INTO notification_responses (id, device_id, bundle_id, notification_id, action_identifier,
                        user_text, notification, responded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    response.id, response.deviceID, response.bundleID, response.notificationID,
                    response.actionIdentifier, response.userText, response.notificationJSON,
                    response.respondedAt.storedMilliseconds,
                ])
        }
    }

    public func claimResponses(deviceID: String, bundleID: String, limit: Int, at date: Date) async throws
        -> [NotificationResponseRecord]
    {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    UPDATE notification_responses SET delivered_at = ?1
                    WHERE position IN (
                        SELECT position FROM notification_responses
                        WHERE device_id = ?2 AND bundle_id = ?3 AND delivered_at IS NULL
                        ORDER BY position LIMIT ?4)
                    RETURNING position, id, device_id, bundle_id, notification_id, action_identifier, user_text,
                        notification, responded_at, delivered_at
                    """, arguments: [date.storedMilliseconds, deviceID, bundleID, limit])
            return rows.sorted { ($0[0] as Int64) < ($1[0] as Int64) }.map { row in
                NotificationResponseRecord(
                    id: row[1], deviceID: row[2], bundleID: row[3], notificationID: row[4], actionIdentifier: row[5],
                    userText: row[6], notificationJSON: row[7], respondedAt: Date(storedMilliseconds: row[8]),
                    deliveredAt: (row[9] as Int64?).map(Date.init(storedMilliseconds:)))
            }
        }
    }
}
