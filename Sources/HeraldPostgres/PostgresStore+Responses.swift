import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

// A person's responses to notifications, kept until the app's live connection claims them, and their
// deliveries to the apps' webhooks — as SQLiteStore keeps them. Claims skip rows another node's
// claim holds (`FOR UPDATE SKIP LOCKED`): a response is handed out once, whichever node's
// connection asks.

extension PostgresStore {
    public func recordResponse(_ response: NotificationResponseRecord, webhookBody: String) async throws {
        try await write(ConstraintMessages(notFound: "The device or the app does not exist.")) { connection in
            try await connection.query(
                """
                INSERT INTO notification_responses (id, device_id, bundle_id, notification_id, action_identifier,
                    user_text, notification, responded_at)
                VALUES (\(response.id), \(response.deviceID), \(response.bundleID), \(response.notificationID),
                    \(response.actionIdentifier), \(response.userText), \(response.notificationJSON),
                    \(response.respondedAt.storedMilliseconds))
                """, logger: self.logger)
            try await connection.query(
                """
                INSERT INTO webhook_deliveries (id, bundle_id, body, next_attempt_at)
                SELECT \(response.id), bundle_id, \(webhookBody), \(response.respondedAt.storedMilliseconds)
                FROM app_webhooks WHERE bundle_id = \(response.bundleID)
                """, logger: self.logger)
        }
    }

    public func claimResponses(deviceID: String, bundleID: String, limit: Int, at date: Date) async throws
        -> [NotificationResponseRecord]
    {
        try await write { connection in
            var claimed: [(Int64, NotificationResponseRecord)] = []
            for try await (position, id, device, bundle, notificationID, action, text, json, respondedAt, deliveredAt)
                in try await connection.query(
                    """
                    UPDATE notification_responses SET delivered_at = \(date.storedMilliseconds)
                    WHERE position IN (
                        SELECT position FROM notification_responses
                        WHERE device_id = \(deviceID) AND bundle_id = \(bundleID) AND delivered_at IS NULL
                        ORDER BY position LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    RETURNING position, id, device_id, bundle_id, notification_id, action_identifier, user_text,
                        notification, responded_at, delivered_at
                    """, logger: self.logger
                ).decode((Int64, String, String, String, String, String, String?, String, Int64, Int64?).self)
            {
                claimed.append(
                    (
                        position,
                        NotificationResponseRecord(
                            id: id, deviceID: device, bundleID: bundle, notificationID: notificationID,
                            actionIdentifier: action, userText: text, notificationJSON: json,
                            respondedAt: Date(storedMilliseconds: respondedAt),
                            deliveredAt: deliveredAt.map(Date.init(storedMilliseconds:)))
                    ))
            }
            return claimed.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    // MARK: Webhooks

    public func setAppWebhook(_ webhook: AppWebhookRecord) async throws {
        try await write(ConstraintMessages(notFound: "The app does not exist.")) { connection in
            try await self.requireApp(connection, webhook.bundleID)
            try await connection.query(
                """
                INSERT INTO app_webhooks (bundle_id, url, secret, created_at)
                VALUES (\(webhook.bundleID), \(webhook.url), \(webhook.secret), \(webhook.createdAt.storedMilliseconds))
                ON CONFLICT (bundle_id) DO UPDATE SET
                    url = excluded.url, secret = excluded.secret, created_at = excluded.created_at
                """, logger: self.logger)
        }
    }

    public func appWebhook(bundleID: String) async throws -> (webhook: AppWebhookRecord, status: WebhookStatus)? {
        try await snapshot { connection in
            var found: AppWebhookRecord?
            for try await (url, secret, createdAt) in try await connection.query(
                "SELECT url, secret, created_at FROM app_webhooks WHERE bundle_id = \(bundleID)", logger: self.logger
            ).decode((String, String, Int64).self) {
                found = AppWebhookRecord(
                    bundleID: bundleID, url: url, secret: secret, createdAt: Date(storedMilliseconds: createdAt))
            }
            guard let webhook = found else { return nil }
            var pending = 0
            var delivered = 0
            for try await (waiting, done) in try await connection.query(
                """
                SELECT count(*) FILTER (WHERE delivered_at IS NULL), count(*) FILTER (WHERE delivered_at IS NOT NULL)
                FROM webhook_deliveries WHERE bundle_id = \(bundleID)
                """, logger: self.logger
            ).decode((Int, Int).self) {
                pending = waiting
                delivered = done
            }
            var lastError: String?
            var lastFailedAt: Date?
            for try await (error, failedAt) in try await connection.query(
                """
                SELECT last_error, last_failed_at FROM webhook_deliveries
                WHERE bundle_id = \(bundleID) AND last_failed_at IS NOT NULL ORDER BY last_failed_at DESC LIMIT 1
                """, logger: self.logger
            ).decode((String?, Int64).self) {
                lastError = error
                lastFailedAt = Date(storedMilliseconds: failedAt)
            }
            return (
                webhook,
                WebhookStatus(pending: pending, delivered: delivered, lastError: lastError, lastFailedAt: lastFailedAt)
            )
        }
    }

    public func removeAppWebhook(bundleID: String) async throws -> Bool {
        try await write { connection in
            try await connection.query(
                "DELETE FROM webhook_deliveries WHERE bundle_id = \(bundleID) AND delivered_at IS NULL",
                logger: self.logger)
            return try await Self.json(
                connection, "DELETE FROM app_webhooks WHERE bundle_id = \(bundleID) RETURNING bundle_id",
                logger: self.logger
            ).count > 0
        }
    }

    /// The due rows locked `SKIP LOCKED`: two nodes claiming at once take different deliveries.
    public func claimDueWebhookDeliveries(through date: Date, leaseEnd: Date, limit: Int) async throws
        -> [WebhookDelivery]
    {
        try await write { connection in
            var deliveries: [WebhookDelivery] = []
            for try await (id, bundleID, url, secret, body, attempts, nextAttemptAt) in try await connection.query(
                """
                WITH due AS (
                    SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                    JOIN app_webhooks w ON w.bundle_id = d.bundle_id
                    WHERE d.delivered_at IS NULL AND d.next_attempt_at <= \(date.storedMilliseconds)
                    ORDER BY d.next_attempt_at, d.id LIMIT \(limit)
                    FOR UPDATE OF d SKIP LOCKED
                ), claimed AS (
                    UPDATE webhook_deliveries d SET next_attempt_at = \(leaseEnd.storedMilliseconds)
                    FROM due WHERE d.id = due.id
                    RETURNING d.id, d.bundle_id, d.body, d.attempts, due.next_attempt_at
                )
                SELECT c.id, c.bundle_id, w.url, w.secret, c.body, c.attempts, c.next_attempt_at
                FROM claimed c JOIN app_webhooks w ON w.bundle_id = c.bundle_id
                ORDER BY c.next_attempt_at, c.id
                """, logger: self.logger
            ).decode((String, String, String, String, String, Int, Int64).self) {
                deliveries.append(
                    WebhookDelivery(
                        id: id, bundleID: bundleID, url: url, secret: secret, body: body, attempts: attempts,
                        nextAttemptAt: Date(storedMilliseconds: nextAttemptAt)))
            }
            return deliveries
        }
    }

    public func releaseWebhookClaims(ids: [String], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        try await execute(
            """
            UPDATE webhook_deliveries SET next_attempt_at = \(date.storedMilliseconds)
            WHERE id = ANY(\(ids)) AND delivered_at IS NULL
            """)
    }

    public func nextWebhookAttempt() async throws -> Date? {
        try await read { connection in
            for try await value in try await connection.query(
                "SELECT min(next_attempt_at) FROM webhook_deliveries WHERE delivered_at IS NULL", logger: self.logger
            ).decode(Int64?.self) {
                return value.map(Date.init(storedMilliseconds:))
            }
            return nil
        }
    }

    public func webhookDelivered(id: String, at date: Date) async throws {
        try await execute(
            """
            UPDATE webhook_deliveries SET delivered_at = \(date.storedMilliseconds), attempts = attempts + 1
            WHERE id = \(id) AND delivered_at IS NULL
            """)
    }

    public func webhookFailed(id: String, error: String, at date: Date, nextAttemptAt: Date) async throws {
        let message = String(error.prefix(500))
        try await execute(
            """
            UPDATE webhook_deliveries
            SET attempts = attempts + 1, last_error = \(message), last_failed_at = \(date.storedMilliseconds),
                next_attempt_at = \(nextAttemptAt.storedMilliseconds)
            WHERE id = \(id) AND delivered_at IS NULL
            """)
    }
}
