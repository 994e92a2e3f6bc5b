import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// The devices' notification lists, their change feed, decisions, threads and app badges — as
// SQLiteStore keeps them.
//
// The sequence: every change to a row takes the next `seq` from the one row of `herald_sequence`,
// locked (`FOR UPDATE`) by the transaction that changes notifications until it commits. Writers of
// every node take turns there as SQLite's single writer does, so seqs are committed in order: a
// reader that has seen seq N has seen every seq below it, on any node (a cursor never skips a row
// committed late). Rows are never deleted, so the sequence never goes back.

extension PostgresStore: NotificationListStore, DecisionStore {
    /// The columns of a row, in the order `decodeNotification` reads them; then a covering Scheduled
    /// Summary release's slot, time and whether it featured the row (`overlay`).
    static let notificationColumns = """
        n.seq, n.id, n.device_id, n.bundle_id, n.topic, n.push_type, n.priority, n.collapse_id, n.expiration, \
        n.payload, n.received_at, n.delivered_at, n.read_at, n.dismissed_at, n.removed_at, n.disposition, \
        n.decision, n.released_at, n.attachments
        """

    /// The first summary release of the row's device that covers `n` (see SQLite's `SummaryOverlay`):
    /// `n` held for the summary, arrived by the summary time, inserted and last decided by the horizon.
    static let coveringRelease = """
        SELECT c.slot_ms, c.released_at, c.featured, c.seq FROM summary_releases c
        WHERE n.disposition = 'heldForSummary' AND c.device_id = n.device_id AND c.slot_ms >= n.received_at
            AND c.horizon_row_id >= n.row_id AND c.horizon_seq >= COALESCE(n.decided_seq, 0)
            AND (n.removed_at IS NULL OR n.removed_at >= c.released_at)
        ORDER BY c.slot_ms LIMIT 1
        """

    /// Selects the columns of `notifications n` with its covering release; append a WHERE clause.
    static let selectNotifications = """
        SELECT \(notificationColumns), r.slot_ms, r.released_at, (n.id = ANY (r.featured))
        FROM notifications n LEFT JOIN LATERAL (\(coveringRelease)) r ON TRUE
        """

    /// Deliverability, as `StoredNotification.isDeliverable(now:)` decides it.
    static func deliverable(now: Date) -> String {
        // A literal (not a bind): PostgresQuery's binds are positional and this is appended to others.
        "(n.delivered_at IS NOT NULL OR n.expiration IS NULL OR (n.expiration <> 0 AND n.expiration >= \(now.timeIntervalSince1970)))"
    }

    static let insertMessages = ConstraintMessages(
        conflict: "A notification conflicts with one already stored.",
        notFound: "A notification's device or app does not exist.",
        invalid: "A notification has a field with a value that is not valid.")

    // MARK: The sequence

    /// The latest seq, its row locked until the transaction ends (writers take turns).
    static func lockSequence(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await value in try await connection.query(
            "SELECT value FROM herald_sequence FOR UPDATE", logger: logger
        ).decode(Int64.self) { return value }
        throw StoreError(.invalid, "The database has no sequence row: its schema is not Herald's.")
    }

    /// Stores the latest seq at the end of a transaction that took seqs `from + 1 … value`, and tells
    /// the other nodes (one `NOTIFY` per transaction, delivered when it commits; see
    /// `PostgresStore+Feed.swift`). Nothing taken (`value == from`): nothing to store or tell.
    func storeSequence(_ connection: PostgresConnection, _ value: Int64, from: Int64) async throws {
        guard value > from else { return }
        try await connection.query("UPDATE herald_sequence SET value = \(value)", logger: logger)
        try await connection.query(
            "SELECT pg_notify(\(Self.feedChannel), \(FeedSignal(node: nodeID, from: from, through: value).payload))",
            logger: logger)
    }

    public func latestCursor() async throws -> Int64 {
        try await read { connection in
            for try await value in try await connection.query(
                "SELECT value FROM herald_sequence FOR UPDATE", logger: self.logger
            )
            .decode(Int64.self) {
                return value
            }
            return 0
        }
    }

    // MARK: Inserts (group commit)

    public func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification] {
        guard !notifications.isEmpty else { return [] }
        return try await write(Self.insertMessages) { connection in
            try await self.insert(notifications, connection)
        }
    }

    /// Inserts `notifications` in the transaction of `connection` (it takes the sequence's lock), as
    /// `insert` describes; returns the changes in seq order.
    func insert(_ notifications: [StoredNotification], _ connection: PostgresConnection) async throws
        -> [StoredNotification]
    {
        let threads = notifications.map(\.storedThreadKey)
        let badges = notifications.map(AppBadgeRule.appliedBadge)
        let start = try await Self.lockSequence(connection, logger: logger)
        var seq = start
        var changes: [StoredNotification] = []
        var latestBadges = AppBadgeRule.Latest()
        var index = notifications.startIndex
        while index < notifications.endIndex {
            let first = notifications[index]
            if let collapseID = first.collapseID {
                // The device's live notification of the app with this collapse id becomes a tombstone.
                let tombstones = try await Self.notificationRows(
                    connection,
                    """
                    UPDATE notifications n SET removed_at = \(first.receivedAt.storedMilliseconds), seq = \(seq + 1)
                    WHERE device_id = \(first.deviceID) AND bundle_id = \(first.bundleID)
                        AND collapse_id = \(collapseID) AND removed_at IS NULL AND id <> \(first.id)
                    RETURNING \(unescaped: Self.notificationColumns), NULL::BIGINT, NULL::BIGINT, NULL::BOOLEAN
                    """, logger: logger)
                if let tombstone = tombstones.first {
                    seq += 1
                    changes.append(tombstone)
                }
            }
            // This notification and the ones after it without a collapse id, in one statement —
            // up to one the statement already holds (PostgreSQL's upsert changes a row once per
            // statement; SQLite's, row by row).
            var end = index + 1
            var keys: Set<String> = ["\(first.deviceID)\u{0}\(first.id)"]
            while end < notifications.endIndex, end - index < 64, notifications[end].collapseID == nil,
                keys.insert("\(notifications[end].deviceID)\u{0}\(notifications[end].id)").inserted
            {
                end += 1
            }
            var bindings = PostgresBindings(capacity: 17 * (end - index))
            var rows: [String] = []
            for row in index..<end {
                seq += 1
                let notification = notifications[row]
                let base = bindings.count
                bindings.append(seq)
                bindings.append(notification.id)
                bindings.append(notification.deviceID)
                bindings.append(notification.bundleID)
                bindings.append(notification.topic)
                bindings.append(notification.pushType.rawValue)
                bindings.append(notification.priority)
                bindings.append(notification.collapseID)
                bindings.append(notification.expiration)
                bindings.append(notification.payload)
                bindings.append(notification.receivedAt.storedMilliseconds)
                bindings.append(notification.deliveredAt?.storedMilliseconds)
                bindings.append(notification.disposition?.rawValue)
                bindings.append(notification.decisionJSON)
                bindings.append(notification.releasedAt?.storedMilliseconds)
                bindings.append(NotificationAttachment.json(notification.attachments))
                bindings.append(threads[row])
                let place = (1...17).map { "$\(base + $0)" }
                rows.append("(\(place.joined(separator: ", ")))")
                changes.append(notification.stored(seq: seq))
                if let badge = badges[row] { latestBadges.note(notification, badge: badge, seq: seq) }
            }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO notifications (seq, id, device_id, bundle_id, topic, push_type, priority,
                            collapse_id, expiration, payload, received_at, delivered_at, disposition, decision,
                            released_at, attachments, thread_key)
                        VALUES \(rows.joined(separator: ", "))
                        ON CONFLICT (device_id, id) DO UPDATE SET
                            thread_key = excluded.thread_key, seq = excluded.seq, bundle_id = excluded.bundle_id,
                            topic = excluded.topic, push_type = excluded.push_type, priority = excluded.priority,
                            collapse_id = excluded.collapse_id, expiration = excluded.expiration,
                            payload = excluded.payload, received_at = excluded.received_at,
                            delivered_at = excluded.delivered_at, read_at = NULL, dismissed_at = NULL,
                            removed_at = NULL, disposition = excluded.disposition, decision = excluded.decision,
                            released_at = excluded.released_at, attachments = excluded.attachments
                        """, binds: bindings), logger: logger)
            index = end
        }
        try await latestBadges.store(connection, logger: logger)
        try await storeSequence(connection, seq, from: start)
        return changes
    }

    public func insertBlocking(_ notifications: [StoredNotification]) throws -> InsertedBatch {
        guard !notifications.isEmpty else { return InsertedBatch(seqs: [], tombstones: []) }
        return try InsertedBatch.waiting { try await self.insert(notifications) }
    }

    // MARK: Reads

    public func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        guard limit >= 0 else { throw StoreError(.invalid, "The limit must not be negative.") }
        return try await read { connection in
            try await Self.notificationRows(
                connection,
                """
                \(unescaped: Self.selectNotifications)
                WHERE n.device_id = \(deviceID) AND n.seq > \(cursor) AND \(unescaped: Self.deliverable(now: now))
                ORDER BY n.seq LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    public func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        guard limit >= 0 else { throw StoreError(.invalid, "The limit must not be negative.") }
        return try await read { connection in
            try await Self.notificationRows(
                connection,
                """
                \(unescaped: Self.selectNotifications)
                WHERE n.device_id = \(deviceID) AND n.seq > \(cursor) AND n.removed_at IS NULL
                    AND \(unescaped: Self.deliverable(now: now))
                ORDER BY n.seq LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    public func notification(deviceID: String, id: String) async throws -> StoredNotification? {
        try await read { connection in try await Self.live(connection, deviceID: deviceID, id: id, logger: self.logger)
        }
    }

    static func live(_ connection: PostgresConnection, deviceID: String, id: String, logger: Logger) async throws
        -> StoredNotification?
    {
        try await notificationRows(
            connection,
            """
            \(unescaped: selectNotifications)
            WHERE n.device_id = \(deviceID) AND n.id = \(id) AND n.removed_at IS NULL
            """, logger: logger
        ).first
    }

    static func row(_ connection: PostgresConnection, deviceID: String, id: String, logger: Logger) async throws
        -> StoredNotification?
    {
        try await notificationRows(
            connection, "\(unescaped: selectNotifications) WHERE n.device_id = \(deviceID) AND n.id = \(id)",
            logger: logger
        ).first
    }

    // MARK: Marks

    public func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark("read_at", deviceID: deviceID, id: id, at: date) { $0.readAt != nil }
    }

    public func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark("dismissed_at", deviceID: deviceID, id: id, at: date) { $0.dismissedAt != nil }
    }

    public func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark("removed_at", deviceID: deviceID, id: id, at: date) { $0.removedAt != nil }
    }

    /// Sets `column` of the device's live notification `id` with a new seq; nil when there is none
    /// (tombstones included); the notification unchanged when it carries the mark already.
    private func mark(
        _ column: String, deviceID: String, id: String, at date: Date,
        isSet: @escaping @Sendable (StoredNotification) -> Bool
    ) async throws -> StoredNotification? {
        try await write { connection in
            guard let current = try await Self.live(connection, deviceID: deviceID, id: id, logger: self.logger) else {
                return nil
            }
            if isSet(current) { return current }
            let start = try await Self.lockSequence(connection, logger: self.logger)
            let seq = start + 1
            try await connection.query(
                """
                UPDATE notifications SET \(unescaped: column) = \(date.storedMilliseconds), seq = \(seq)
                WHERE device_id = \(deviceID) AND id = \(id)
                """, logger: self.logger)
            try await self.storeSequence(connection, seq, from: start)
            return try await Self.row(connection, deviceID: deviceID, id: id, logger: self.logger)
        }
    }

    public func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws {
        try await execute(
            """
            UPDATE notifications n SET delivered_at = \(date.storedMilliseconds)
            WHERE n.device_id = \(deviceID) AND n.seq <= \(cursor) AND n.delivered_at IS NULL
                AND \(unescaped: Self.deliverable(now: date))
            """)
    }

    // MARK: Threads and badges

    public func threadCount(deviceID: String, bundleID: String, threadID: String?) async throws -> Int {
        let thread = threadID.flatMap { $0.isEmpty ? nil : $0 }
        return try await read { connection in
            for try await count in try await connection.query(
                """
                SELECT count(*) FROM notifications
                WHERE device_id = \(deviceID) AND bundle_id = \(bundleID) AND thread_key IS NOT DISTINCT FROM \(thread)
                    AND removed_at IS NULL AND (disposition IS NULL OR disposition <> 'notDelivered')
                """, logger: self.logger
            ).decode(Int.self) {
                return count
            }
            return 0
        }
    }

    public func appBadges(deviceID: String) async throws -> [AppBadgeRecord] {
        try await read { connection in
            var badges: [AppBadgeRecord] = []
            for try await (device, bundleID, badge, notificationID, seq) in try await connection.query(
                """
                SELECT device_id, bundle_id, badge, notification_id, seq FROM device_app_badges
                WHERE device_id = \(deviceID) ORDER BY bundle_id
                """, logger: self.logger
            ).decode((String, String, Int, String, Int64).self) {
                badges.append(
                    AppBadgeRecord(
                        deviceID: device, bundleID: bundleID, badge: badge, notificationID: notificationID, seq: seq))
            }
            return badges
        }
    }
}
