import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// Apps' local notifications — credentials, pending requests (the trigger scheduler's queue) and
// their delivery into the devices' lists — as SQLiteStore keeps them. Across nodes: adding a request
// locks its device's row (the per-app limit and the replacement of an identifier take turns), and a
// firing takes the sequence's lock before it checks that its request is still pending at the fire
// date it read, so a request fires once per fire date whichever nodes' schedulers saw it due.

extension PostgresStore: LocalNotificationStore {
    // MARK: Credentials

    public func createAppCredential(_ record: AppCredentialRecord, tokenDigest: String) async throws {
        let messages = ConstraintMessages(
            conflict: "Another credential already has this token.",
            notFound: "There is no device \(record.deviceID) or no app \(record.bundleID).")
        try await write(messages) { connection in
            try await self.requireDevice(connection, record.deviceID)
            try await self.requireApp(connection, record.bundleID)
            if try await Self.exists(
                connection, "SELECT 1 FROM app_credentials WHERE token_digest = \(tokenDigest)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            try await connection.query(
                """
                INSERT INTO app_credentials (token_digest, device_id, bundle_id, created_at)
                VALUES (\(tokenDigest), \(record.deviceID), \(record.bundleID), \(record.createdAt.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    public func appCredential(tokenDigest: String) async throws -> AppCredentialRecord? {
        try await read { connection in
            for try await (deviceID, bundleID, userID, createdAt) in try await connection.query(
                """
                SELECT c.device_id, c.bundle_id, d.user_id, c.created_at
                FROM app_credentials c JOIN devices d ON d.device_id = c.device_id
                WHERE c.token_digest = \(tokenDigest)
                """, logger: self.logger
            ).decode((String, String, String, Int64).self) {
                return AppCredentialRecord(
                    deviceID: deviceID, bundleID: bundleID, userID: userID,
                    createdAt: Date(storedMilliseconds: createdAt))
            }
            return nil
        }
    }

    // MARK: Pending requests

    private static let requestColumns = """
        device_id, bundle_id, identifier, content, payload, trigger, added_at, next_fire_at, revision
        """

    private static func requests(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger)
        async throws -> [LocalRequestRecord]
    {
        var records: [LocalRequestRecord] = []
        for try await (deviceID, bundleID, identifier, content, payload, trigger, addedAt, nextFireAt, revision)
            in try await connection.query(query, logger: logger).decode(
                (String, String, String, String, String, String, Int64, Int64?, Int64).self)
        {
            records.append(
                LocalRequestRecord(
                    deviceID: deviceID, bundleID: bundleID, identifier: identifier, content: content,
                    payload: payload, trigger: trigger, addedAt: Date(storedMilliseconds: addedAt),
                    nextFireAt: nextFireAt.map(Date.init(storedMilliseconds:)), revision: revision))
        }
        return records
    }

    public func addLocalRequest(_ request: LocalRequestRecord, limit: Int) async throws -> (
        stored: LocalRequestRecord, dropped: [String]
    ) {
        guard limit > 0 else { throw StoreError(.invalid, "The limit of pending requests must be positive.") }
        let messages = ConstraintMessages(notFound: "The request's device or app does not exist.")
        return try await write(messages) { connection in
            // The device's requests change one transaction at a time, on any node.
            try await self.requireDevice(connection, request.deviceID, lock: true)
            try await self.requireApp(connection, request.bundleID)
            try await connection.query(
                """
                DELETE FROM local_requests
                WHERE device_id = \(request.deviceID) AND bundle_id = \(request.bundleID)
                    AND identifier = \(request.identifier)
                """, logger: self.logger)
            var revision: Int64 = 0
            for try await value in try await connection.query(
                """
                INSERT INTO local_requests
                    (device_id, bundle_id, identifier, content, payload, trigger, added_at, next_fire_at)
                VALUES (\(request.deviceID), \(request.bundleID), \(request.identifier), \(request.content),
                    \(request.payload), \(request.trigger), \(request.addedAt.storedMilliseconds),
                    \(request.nextFireAt?.storedMilliseconds))
                RETURNING revision
                """, logger: self.logger
            ).decode(Int64.self) {
                revision = value
            }
            var stored = request
            stored.revision = revision
            stored.addedAt = request.addedAt.roundedToStoredPrecision
            stored.nextFireAt = request.nextFireAt?.roundedToStoredPrecision
            // Apple keeps the most recently added requests: the oldest beyond the limit go.
            let dropped = try await Self.json(
                connection,
                """
                DELETE FROM local_requests WHERE revision IN (
                    SELECT revision FROM local_requests
                    WHERE device_id = \(request.deviceID) AND bundle_id = \(request.bundleID)
                    ORDER BY revision DESC OFFSET \(limit))
                RETURNING identifier
                """, logger: self.logger)
            return (stored, dropped.sorted())
        }
    }

    public func localRequests(deviceID: String, bundleID: String) async throws -> [LocalRequestRecord] {
        try await read { connection in
            try await Self.requests(
                connection,
                """
                SELECT \(unescaped: Self.requestColumns) FROM local_requests
                WHERE device_id = \(deviceID) AND bundle_id = \(bundleID) ORDER BY revision
                """, logger: self.logger)
        }
    }

    public func removeLocalRequests(deviceID: String, bundleID: String, identifiers: [String]?) async throws
        -> [String]
    {
        try await write { connection in
            let removed: [String]
            if let identifiers {
                removed = try await Self.json(
                    connection,
                    """
                    DELETE FROM local_requests WHERE device_id = \(deviceID) AND bundle_id = \(bundleID)
                        AND identifier = ANY (\(identifiers))
                    RETURNING identifier
                    """, logger: self.logger)
            } else {
                removed = try await Self.json(
                    connection,
                    """
                    DELETE FROM local_requests WHERE device_id = \(deviceID) AND bundle_id = \(bundleID)
                    RETURNING identifier
                    """, logger: self.logger)
            }
            return removed.sorted()
        }
    }

    public func dueLocalRequests(through date: Date, limit: Int) async throws -> [LocalRequestRecord] {
        try await read { connection in
            try await Self.requests(
                connection,
                """
                SELECT \(unescaped: Self.requestColumns) FROM local_requests
                WHERE next_fire_at IS NOT NULL AND next_fire_at <= \(date.storedMilliseconds)
                ORDER BY next_fire_at, revision LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    public func locationRequests(deviceID: String) async throws -> [LocalRequestRecord] {
        try await read { connection in
            try await Self.requests(
                connection,
                """
                SELECT \(unescaped: Self.requestColumns) FROM local_requests
                WHERE device_id = \(deviceID) AND (trigger::jsonb ->> 'type') = 'location' ORDER BY revision
                """, logger: self.logger)
        }
    }

    public func nextLocalRequestFireDate() async throws -> Date? {
        try await read { connection in
            for try await value in try await connection.query(
                "SELECT min(next_fire_at) FROM local_requests WHERE next_fire_at IS NOT NULL", logger: self.logger
            ).decode(Int64?.self) {
                return value.map(Date.init(storedMilliseconds:))
            }
            return nil
        }
    }

    // MARK: Delivery

    public func deliverLocal(_ deliveries: [LocalDelivery]) async throws -> [StoredNotification] {
        guard !deliveries.isEmpty else { return [] }
        let messages = ConstraintMessages(notFound: "A local notification's device or app does not exist.")
        return try await write(messages) { connection in
            // Firings of every node take turns from here (the insert takes this lock anyway): the
            // check below sees what an earlier firing of the same request committed.
            _ = try await Self.lockSequence(connection, logger: self.logger)
            var notifications: [StoredNotification] = []
            for delivery in deliveries {
                let notification = delivery.notification
                if let revision = delivery.firedRevision {
                    var pending = false
                    var nextFireAt: Int64?
                    for try await value in try await connection.query(
                        "SELECT next_fire_at FROM local_requests WHERE revision = \(revision)", logger: self.logger
                    ).decode(Int64?.self) {
                        pending = true
                        nextFireAt = value
                    }
                    // Removed or replaced since the scheduler read it, or fired at that date already.
                    guard pending else { continue }
                    if let fired = delivery.firedFireDate, nextFireAt != fired.storedMilliseconds { continue }
                    if let next = delivery.nextFireAt {
                        try await connection.query(
                            """
                            UPDATE local_requests SET next_fire_at = \(next.storedMilliseconds)
                            WHERE revision = \(revision)
                            """, logger: self.logger)
                    } else if !delivery.keepsRequest {
                        try await connection.query(
                            "DELETE FROM local_requests WHERE revision = \(revision)", logger: self.logger)
                    }
                } else {
                    try await connection.query(
                        """
                        DELETE FROM local_requests
                        WHERE device_id = \(notification.deviceID) AND bundle_id = \(notification.bundleID)
                            AND identifier = \(delivery.identifier)
                        """, logger: self.logger)
                }
                try await connection.query(
                    """
                    INSERT INTO local_deliveries (device_id, id, bundle_id, identifier, trigger)
                    VALUES (\(notification.deviceID), \(notification.id), \(notification.bundleID),
                        \(delivery.identifier), \(delivery.trigger))
                    ON CONFLICT (device_id, id) DO UPDATE SET bundle_id = excluded.bundle_id,
                        identifier = excluded.identifier, trigger = excluded.trigger
                    """, logger: self.logger)
                notifications.append(notification)
            }
            guard !notifications.isEmpty else { return [] }
            return try await self.insert(notifications, connection)
        }
    }

    // MARK: The app's notifications

    public func appNotifications(deviceID: String, bundleID: String) async throws -> [AppNotificationRecord] {
        try await read { connection in
            var records: [AppNotificationRecord] = []
            for try await row in try await connection.query(
                """
                SELECT \(unescaped: Self.notificationColumns), r.slot_ms, r.released_at, (n.id = ANY (r.featured)),
                    l.identifier, l.trigger
                FROM notifications n LEFT JOIN LATERAL (\(unescaped: Self.coveringRelease)) r ON TRUE
                LEFT JOIN local_deliveries l ON l.device_id = n.device_id AND l.id = n.id
                WHERE n.device_id = \(deviceID) AND n.bundle_id = \(bundleID) AND n.removed_at IS NULL
                    AND n.dismissed_at IS NULL AND (n.disposition IS NULL OR n.disposition <> 'notDelivered')
                ORDER BY n.received_at, n.seq
                """, logger: self.logger)
            {
                let notification = try Self.decodeNotification(row)
                // After the row's columns and the summary overlay's: the local delivery's identifier and trigger.
                let cells = row.makeRandomAccess()
                let identifier = try cells[22].decode(String?.self)
                records.append(
                    AppNotificationRecord(
                        identifier: identifier ?? notification.id, isLocal: identifier != nil,
                        trigger: try cells[23].decode(String?.self), notification: notification))
            }
            return records
        }
    }

    public func removeAppNotifications(deviceID: String, bundleID: String, identifiers: [String]?, at date: Date)
        async throws -> [AppNotificationRecord]
    {
        try await write { connection in
            let start = try await Self.lockSequence(connection, logger: self.logger)
            var seq = start
            var matches: [(id: String, identifier: String?, trigger: String?)] = []
            for try await match in try await connection.query(
                """
                SELECT n.id, l.identifier, l.trigger FROM notifications n
                LEFT JOIN local_deliveries l ON l.device_id = n.device_id AND l.id = n.id
                WHERE n.device_id = \(deviceID) AND n.bundle_id = \(bundleID) AND n.removed_at IS NULL
                    AND (\(identifiers)::TEXT[] IS NULL OR COALESCE(l.identifier, n.id) = ANY (\(identifiers)::TEXT[]))
                ORDER BY n.seq
                """, logger: self.logger
            ).decode((String, String?, String?).self) {
                matches.append(match)
            }
            var removed: [AppNotificationRecord] = []
            for match in matches {
                seq += 1
                try await connection.query(
                    """
                    UPDATE notifications SET removed_at = \(date.storedMilliseconds), seq = \(seq)
                    WHERE device_id = \(deviceID) AND id = \(match.id)
                    """, logger: self.logger)
                if let row = try await Self.row(connection, deviceID: deviceID, id: match.id, logger: self.logger) {
                    removed.append(
                        AppNotificationRecord(
                            identifier: match.identifier ?? match.id, isLocal: match.identifier != nil,
                            trigger: match.trigger, notification: row))
                }
            }
            try await self.storeSequence(connection, seq, from: start)
            return removed
        }
    }

    public func setAppBadge(deviceID: String, bundleID: String, badge: Int) async throws {
        guard badge >= 0 else { throw StoreError(.invalid, "A badge must not be negative.") }
        try await write(ConstraintMessages(notFound: "The device or the app does not exist.")) { connection in
            let seq = try await Self.lockSequence(connection, logger: self.logger)
            // The badge is the app's own, not a notification's: `notification_id` is empty.
            try await connection.query(
                """
                INSERT INTO device_app_badges (device_id, bundle_id, badge, notification_id, seq)
                VALUES (\(deviceID), \(bundleID), \(badge), '', \(seq))
                ON CONFLICT (device_id, bundle_id) DO UPDATE SET
                    badge = excluded.badge, notification_id = '', seq = excluded.seq
                """, logger: self.logger)
        }
    }

    // MARK: Checks

    /// `notFound` unless the device exists; with `lock`, its row is locked until the transaction ends
    /// (`FOR NO KEY UPDATE`: rows that refer to the device can still be added meanwhile).
    func requireDevice(_ connection: PostgresConnection, _ deviceID: String, lock: Bool = false) async throws {
        let query: PostgresQuery =
            lock
            ? "SELECT 1 FROM devices WHERE device_id = \(deviceID) FOR NO KEY UPDATE"
            : "SELECT 1 FROM devices WHERE device_id = \(deviceID)"
        var found = false
        for try await _ in try await connection.query(query, logger: logger).decode(Int32.self) { found = true }
        guard found else { throw StoreError(.notFound, "There is no device with id \(deviceID).") }
    }
}
