import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Apps' local notifications: credentials, pending requests (the scheduler's queue) and their
// delivery into the devices' lists (Schema `v13-local-notifications`).

extension SQLiteStore {
    // MARK: Credentials

    public func createAppCredential(_ record: AppCredentialRecord, tokenDigest: String) async throws {
        let messages = ConstraintMessages(
            conflict: "Another credential already has this token.",
            notFound: "There is no device \(record.deviceID) or no app \(record.bundleID).")
        try await write(messages) { db in
            guard try Self.exists(db, "SELECT 1 FROM devices WHERE device_id = ?", [record.deviceID]) else {
                throw StoreError(.notFound, "There is no device with id \(record.deviceID).")
            }
            guard try Self.exists(db, "SELECT 1 FROM apps WHERE bundle_id = ?", [record.bundleID]) else {
                throw StoreError(.notFound, "There is no app with bundle id \(record.bundleID).")
            }
            if try Self.exists(db, "SELECT 1 FROM app_credentials WHERE token_digest = ?", [tokenDigest]) {
                throw StoreError(.conflict, messages.conflict)
            }
            try db.execute(
                sql: """
                    INSERT INTO app_credentials (token_digest, device_id, bundle_id, created_at) VALUES (?, ?, ?, ?)
                    """,
                arguments: [tokenDigest, record.deviceID, record.bundleID, record.createdAt.storedMilliseconds])
        }
    }

    public func appCredential(tokenDigest: String) async throws -> AppCredentialRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT c.device_id, c.bundle_id, d.user_id, c.created_at
                        FROM app_credentials c JOIN devices d ON d.device_id = c.device_id
                        WHERE c.token_digest = ?
                        """), arguments: [tokenDigest]
            ).map { row in
                AppCredentialRecord(
                    deviceID: row[0], bundleID: row[1], userID: row[2], createdAt: Date(storedMilliseconds: row[3]))
            }
        }
    }

    // MARK: Pending requests

    private static let requestColumns = """
        device_id, bundle_id, identifier, content, payload, trigger, added_at, next_fire_at, revision
        """

    private static func request(_ row: Row) -> LocalRequestRecord {
        LocalRequestRecord(
            deviceID: row[0], bundleID: row[1], identifier: row[2], content: row[3], payload: row[4], trigger: row[5],
            addedAt: Date(storedMilliseconds: row[6]),
            nextFireAt: (row[7] as Int64?).map(Date.init(storedMilliseconds:)),
            revision: row[8])
    }

    public func addLocalRequest(_ request: LocalRequestRecord, limit: Int) async throws -> (
        stored: LocalRequestRecord, dropped: [String]
    ) {
        guard limit > 0 else { throw StoreError(.invalid, "The limit of pending requests must be positive.") }
        let messages = ConstraintMessages(notFound: "The request's device or app does not exist.")
        return try await write(messages) { db in
            try db.execute(
                sql: "DELETE FROM local_requests WHERE device_id = ? AND bundle_id = ? AND identifier = ?",
                arguments: [request.deviceID, request.bundleID, request.identifier])
            try db.execute(
                sql: """
                    INSERT INTO local_requests
                        (device_id, bundle_id, identifier, content, payload, trigger, added_at, next_fire_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    request.deviceID, request.bundleID, request.identifier, request.content, request.payload,
                    request.trigger, request.addedAt.storedMilliseconds, request.nextFireAt?.storedMilliseconds,
                ])
            var stored = request
            stored.revision = db.lastInsertedRowID
            stored.addedAt = request.addedAt.roundedToStoredPrecision
            stored.nextFireAt = request.nextFireAt?.roundedToStoredPrecision
            // Apple keeps the most recently added requests: the oldest beyond the limit go.
            let dropped = try String.fetchAll(
                db,
                sql: """
                    DELETE FROM local_requests WHERE revision IN (
                        SELECT revision FROM local_requests WHERE device_id = ? AND bundle_id = ?
                        ORDER BY revision DESC LIMIT -1 OFFSET ?)
                    RETURNING identifier
                    """,
                arguments: [request.deviceID, request.bundleID, limit])
            return (stored, dropped.sorted())
        }
    }

    public func localRequests(deviceID: String, bundleID: String) async throws -> [LocalRequestRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.requestColumns) FROM local_requests
                    WHERE device_id = ? AND bundle_id = ? ORDER BY revision
                    """,
                arguments: [deviceID, bundleID]
            ).map(Self.request)
        }
    }

    public func removeLocalRequests(deviceID: String, bundleID: String, identifiers: [String]?) async throws
        -> [String]
    {
        try await write { db in
            let removed: [String]
            if let identifiers {
                removed = try String.fetchAll(
                    db,
                    sql: """
                        DELETE FROM local_requests WHERE device_id = ? AND bundle_id = ?
                            AND identifier IN (SELECT value FROM json_each(?))
                        RETURNING identifier
                        """,
                    arguments: [deviceID, bundleID, Self.jsonArray(identifiers)])
            } else {
                removed = try String.fetchAll(
                    db, sql: "DELETE FROM local_requests WHERE device_id = ? AND bundle_id = ? RETURNING identifier",
                    arguments: [deviceID, bundleID])
            }
            return removed.sorted()
        }
    }

    public func dueLocalRequests(through date: Date, limit: Int) async throws -> [LocalRequestRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.requestColumns) FROM local_requests
                    WHERE next_fire_at IS NOT NULL AND next_fire_at <= ?
                    ORDER BY next_fire_at, revision LIMIT ?
                    """,
                arguments: [date.storedMilliseconds, limit]
            ).map(Self.request)
        }
    }

    public func locationRequests(deviceID: String) async throws -> [LocalRequestRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.requestColumns) FROM local_requests
                    WHERE device_id = ? AND json_extract(trigger, '$.type') = 'location' ORDER BY revision
                    """,
                arguments: [deviceID]
            ).map(Self.request)
        }
    }

    public func nextLocalRequestFireDate() async throws -> Date? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(next_fire_at) FROM local_requests WHERE next_fire_at IS NOT NULL")
                .map(Date.init(storedMilliseconds:))
        }
    }

    // MARK: Delivery

    public func deliverLocal(_ deliveries: [LocalDelivery]) async throws -> [StoredNotification] {
        guard !deliveries.isEmpty else { return [] }
        let messages = ConstraintMessages(notFound: "A local notification's device or app does not exist.")
        return try await write(messages) { db in
            var notifications: [StoredNotification] = []
            for delivery in deliveries {
                let notification = delivery.notification
                if let revision = delivery.firedRevision {
                    // Removed or replaced since the scheduler read it, or fired at that date already: nothing fires.
                    guard
                        try Self.exists(
                            db,
                            "SELECT 1 FROM local_requests WHERE revision = ?1 AND (?2 IS NULL OR next_fire_at = ?2)",
                            [revision, delivery.firedFireDate?.storedMilliseconds])
                    else { continue }
                    if let next = delivery.nextFireAt {
                        try db.execute(
                            sql: "UPDATE local_requests SET next_fire_at = ? WHERE revision = ?",
                            arguments: [next.storedMilliseconds, revision])
                    } else if !delivery.keepsRequest {
                        try db.execute(sql: "DELETE FROM local_requests WHERE revision = ?", arguments: [revision])
                    }
                } else {
                    try db.execute(
                        sql: "DELETE FROM local_requests WHERE device_id = ? AND bundle_id = ? AND identifier = ?",
                        arguments: [notification.deviceID, notification.bundleID, delivery.identifier])
                }
                try db.execute(
                    sql: """
                        INSERT INTO local_deliveries (device_id, id, bundle_id, identifier, trigger) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (device_id, id) DO UPDATE SET bundle_id = excluded.bundle_id,
                            identifier = excluded.identifier, trigger = excluded.trigger
                        """,
                    arguments: [
                        notification.deviceID, notification.id, notification.bundleID, delivery.identifier,
                        delivery.trigger,
                    ])
                notifications.append(notification)
            }
            guard !notifications.isEmpty else { return [] }
            return try Self.insert(InsertedRows(notifications), db).changes(of: notifications)
        }
    }

    // MARK: The app's notifications

    /// The app's live notifications with their identifiers (a push's is its id).
    private static let appNotificationsSQL = """
        SELECT \(SummaryOverlay.columns), l.identifier, l.trigger
        FROM notifications n \(SummaryOverlay.join)
        LEFT JOIN local_deliveries l ON l.device_id = n.device_id AND l.id = n.id
        WHERE n.device_id = ? AND n.bundle_id = ? AND n.removed_at IS NULL AND n.dismissed_at IS NULL
            AND (n.disposition IS NULL OR n.disposition <> 'notDelivered')
        ORDER BY n.received_at, n.seq
        """

    public func appNotifications(deviceID: String, bundleID: String) async throws -> [AppNotificationRecord] {
        try await read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: Self.appNotificationsSQL), arguments: [deviceID, bundleID])
            var records: [AppNotificationRecord] = []
            while let row = try rows.next() {
                let notification = try NotificationRow.decode(row)
                // After the row's columns and the summary overlay's: the local delivery's identifier and trigger.
                let identifier: String? = row[SummaryOverlay.columnCount]
                records.append(
                    AppNotificationRecord(
                        identifier: identifier ?? notification.id, isLocal: identifier != nil,
                        trigger: row[SummaryOverlay.columnCount + 1],
                        notification: notification))
            }
            return records
        }
    }

    public func removeAppNotifications(deviceID: String, bundleID: String, identifiers: [String]?, at date: Date)
        async throws -> [AppNotificationRecord]
    {
        try await write { db in
            let matches = try Row.fetchAll(
                db,
                sql: """
                    SELECT n.id, l.identifier, l.trigger FROM notifications n
                    LEFT JOIN local_deliveries l ON l.device_id = n.device_id AND l.id = n.id
                    WHERE n.device_id = ?1 AND n.bundle_id = ?2 AND n.removed_at IS NULL
                        AND (?3 IS NULL OR COALESCE(l.identifier, n.id) IN (SELECT value FROM json_each(?3)))
                    ORDER BY n.seq
                    """,
                arguments: [deviceID, bundleID, identifiers.map(Self.jsonArray)])
            var seq = try Self.latestSeq(db)
            var removed: [AppNotificationRecord] = []
            for match in matches {
                let id: String = match[0]
                let identifier: String? = match[1]
                seq += 1
                try db.execute(
                    sql: "UPDATE notifications SET removed_at = ?, seq = ? WHERE device_id = ? AND id = ?",
                    arguments: [date.storedMilliseconds, seq, deviceID, id])
                if let row = try NotificationRow.fetchOne(db, sql: Self.rowSQL, arguments: [deviceID, id]) {
                    removed.append(
                        AppNotificationRecord(
                            identifier: identifier ?? id, isLocal: identifier != nil, trigger: match[2],
                            notification: row))
                }
            }
            return removed
        }
    }

    public func setAppBadge(deviceID: String, bundleID: String, badge: Int) async throws {
        guard badge >= 0 else { throw StoreError(.invalid, "A badge must not be negative.") }
        let messages = ConstraintMessages(notFound: "The device or the app does not exist.")
        try await write(messages) { db in
            // The badge is the app's own, not a notification's: `notification_id` is empty.
            try db.execute(
                sql: """
                    INSERT INTO device_app_badges (device_id, bundle_id, badge, notification_id, seq)
                    VALUES (?, ?, ?, '', ?)
                    ON CONFLICT (device_id, bundle_id) DO UPDATE SET
                        badge = excluded.badge, notification_id = '', seq = excluded.seq
                    """,
                arguments: [deviceID, bundleID, badge, try Self.latestSeq(db)])
        }
    }

    /// A JSON array of strings, bound to one parameter and read with `json_each` (one cached
    /// statement whatever the number of values). Encoding strings cannot fail.
    static func jsonArray(_ strings: [String]) -> String {
        String(decoding: try! JSONEncoder().encode(strings), as: UTF8.self)
    }
}

// MARK: - Bulk seeding

extension SQLiteStore {
    /// Adds many pending requests in ONE transaction, without replacing and without the per-app
    /// limit: for benchmarks and imports whose requests are new and within Apple's limit (a request
    /// that repeats an identifier fails the whole batch). Apps add theirs with `addLocalRequest`.
    package func seedLocalRequests(_ requests: [LocalRequestRecord]) async throws {
        try await write(ConstraintMessages(notFound: "A request's device or app does not exist.")) { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO local_requests
                        (device_id, bundle_id, identifier, content, payload, trigger, added_at, next_fire_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for request in requests {
                try statement.execute(arguments: [
                    request.deviceID, request.bundleID, request.identifier, request.content, request.payload,
                    request.trigger, request.addedAt.storedMilliseconds, request.nextFireAt?.storedMilliseconds,
                ])
            }
        }
    }
}
