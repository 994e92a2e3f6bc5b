import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// A person's responses to notifications, kept until the app's live connection claims them
// (Schema `v13-local-notifications`, table `notification_responses`), and their deliveries to the
// apps' webhooks (`v14-app-webhooks`).

extension SQLiteStore {
    public func recordResponse(_ response: NotificationResponseRecord, webhookBody: String) async throws {
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
            try db.execute(
                sql: """
                    INSERT INTO webhook_deliveries (id, bundle_id, body, next_attempt_at)
                    SELECT ?, bundle_id, ?, ? FROM app_webhooks WHERE bundle_id = ?
                    """,
                arguments: [response.id, webhookBody, response.respondedAt.storedMilliseconds, response.bundleID])
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

// MARK: - Webhooks

extension SQLiteStore {
    public func setAppWebhook(_ webhook: AppWebhookRecord) async throws {
        try await write(Self.notFound("The app does not exist.")) { db in
            try Self.requireApp(db, webhook.bundleID)
            try db.execute(
                sql: """
                    INSERT INTO app_webhooks (bundle_id, url, secret, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (bundle_id) DO UPDATE SET
                        url = excluded.url, secret = excluded.secret, created_at = excluded.created_at
                    """,
                arguments: [webhook.bundleID, webhook.url, webhook.secret, webhook.createdAt.storedMilliseconds])
        }
    }

    public func appWebhook(bundleID: String) async throws -> (webhook: AppWebhookRecord, status: WebhookStatus)? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT url, secret, created_at FROM app_webhooks WHERE bundle_id = ?",
                    arguments: [bundleID])
            else { return nil }
            let webhook = AppWebhookRecord(
                bundleID: bundleID, url: row[0], secret: row[1], createdAt: Date(storedMilliseconds: row[2]))
            let counts = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) FILTER (WHERE delivered_at IS NULL), count(*) FILTER (WHERE delivered_at IS NOT NULL)
                    FROM webhook_deliveries WHERE bundle_id = ?
                    """, arguments: [bundleID])
            let failure = try Row.fetchOne(
                db,
                sql: """
                    SELECT last_error, last_failed_at FROM webhook_deliveries
                    WHERE bundle_id = ? AND last_failed_at IS NOT NULL ORDER BY last_failed_at DESC LIMIT 1
                    """, arguments: [bundleID])
            let status = WebhookStatus(
                pending: counts?[0] ?? 0, delivered: counts?[1] ?? 0, lastError: failure?[0],
                lastFailedAt: (failure?[1] as Int64?).map(Date.init(storedMilliseconds:)))
            return (webhook, status)
        }
    }

    public func removeAppWebhook(bundleID: String) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM webhook_deliveries WHERE bundle_id = ? AND delivered_at IS NULL",
                arguments: [bundleID])
            try db.execute(sql: "DELETE FROM app_webhooks WHERE bundle_id = ?", arguments: [bundleID])
            return db.changesCount > 0
        }
    }

    public func claimDueWebhookDeliveries(through date: Date, leaseEnd: Date, limit: Int) async throws
        -> [WebhookDelivery]
    {
        try await write { db in
            let due = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, d.bundle_id, w.url, w.secret, d.body, d.attempts, d.next_attempt_at
                    FROM webhook_deliveries d JOIN app_webhooks w ON w.bundle_id = d.bundle_id
                    WHERE d.delivered_at IS NULL AND d.next_attempt_at <= ?
                    ORDER BY d.next_attempt_at, d.id LIMIT ?
                    """, arguments: [date.storedMilliseconds, limit]
            ).map { row in
                WebhookDelivery(
                    id: row[0], bundleID: row[1], url: row[2], secret: row[3], body: row[4], attempts: row[5],
                    nextAttemptAt: Date(storedMilliseconds: row[6]))
            }
            for delivery in due {
                try db.execute(
                    sql: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?",
                    arguments: [leaseEnd.storedMilliseconds, delivery.id])
            }
            return due
        }
    }

    public func releaseWebhookClaims(ids: [String], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            for id in ids {
                try db.execute(
                    sql: "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND delivered_at IS NULL",
                    arguments: [date.storedMilliseconds, id])
            }
        }
    }

    public func nextWebhookAttempt() async throws -> Date? {
        try await read { db in
            try Int64.fetchOne(
                db, sql: "SELECT min(next_attempt_at) FROM webhook_deliveries WHERE delivered_at IS NULL"
            ).map(Date.init(storedMilliseconds:))
        }
    }

    public func webhookDelivered(id: String, at date: Date) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET delivered_at = ?, attempts = attempts + 1
                    WHERE id = ? AND delivered_at IS NULL
                    """, arguments: [date.storedMilliseconds, id])
        }
    }

    public func webhookFailed(id: String, error: String, at date: Date, nextAttemptAt: Date) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries
                    SET attempts = attempts + 1, last_error = ?, last_failed_at = ?, next_attempt_at = ?
                    WHERE id = ? AND delivered_at IS NULL
                    """,
                arguments: [
                    String(error.prefix(500)), date.storedMilliseconds, nextAttemptAt.storedMilliseconds, id,
                ])
        }
    }
}
