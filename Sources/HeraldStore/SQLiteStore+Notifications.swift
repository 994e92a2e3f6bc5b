import Foundation
import GRDB
import HeraldCore

// The devices' notification lists and their change feed.
//
// Every change to a row takes `MAX(seq) + 1` inside the write transaction (writes are serialized), so
// the sequence is gap-tolerant, strictly increasing and survives restarts. Rows are never deleted, so
// the maximum never goes back.

extension SQLiteStore {
    /// Deliverability, as `StoredNotification.isDeliverable(now:)` decides it; binds `now` (seconds).
    private static let deliverable = """
        (delivered_at IS NOT NULL OR expiration IS NULL OR (expiration <> 0 AND expiration >= ?))
        """

    // Reads show notifications released by a Scheduled Summary as released (`SummaryOverlay`).
    private static let changesSQL = """
        \(SummaryOverlay.select)
        WHERE n.device_id = ? AND n.seq > ? AND \(deliverable)
        ORDER BY n.seq LIMIT ?
        """

    private static let listSQL = """
        \(SummaryOverlay.select)
        WHERE n.device_id = ? AND n.seq > ? AND n.removed_at IS NULL AND \(deliverable)
        ORDER BY n.seq LIMIT ?
        """

    static let liveSQL = """
        \(SummaryOverlay.select)
        WHERE n.device_id = ? AND n.id = ? AND n.removed_at IS NULL
        """

    /// `liveSQL` without the live condition: a row as a change just left it.
    static let rowSQL = """
        \(SummaryOverlay.select)
        WHERE n.device_id = ? AND n.id = ?
        """

    /// Tombstones the device's live notification of the app with the collapse id, unless it has the id.
    private static let collapseSQL = """
        UPDATE notifications SET removed_at = ?, seq = ?
        WHERE device_id = ? AND bundle_id = ? AND collapse_id = ? AND removed_at IS NULL AND id <> ?
        RETURNING \(NotificationRow.columns)
        """

    private static let insertMessages = ConstraintMessages(
        conflict: "A notification conflicts with one already stored.",
        notFound: "A notification's device or app does not exist.",
        invalid: "A notification has a field with a value that is not valid."
    )

    public func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification] {
        guard !notifications.isEmpty else { return [] }
        let rows = try InsertedRows(notifications)
        return try await write(Self.insertMessages) { db in try Self.insert(rows, db) }.changes(of: notifications)
    }

    public func insertBlocking(_ notifications: [StoredNotification]) throws -> InsertedBatch {
        guard !notifications.isEmpty else { return InsertedBatch(seqs: [], tombstones: []) }
        let rows = try InsertedRows(notifications)
        return try writeBlocking(Self.insertMessages) { db in try Self.insert(rows, db) }
    }

    /// What an insert writes, with what is read from each notification before the transaction (see
    /// `Schema.applyInsertBadgesInStore` and `Schema.storeThreadKey`).
    struct InsertedRows: Sendable {
        var notifications: [StoredNotification]
        var badges: [Int?]
        var threads: [String?]
        /// `NotificationAttachment.json` of each notification's attachments.
        var attachments: [String?]

        init(_ notifications: [StoredNotification]) throws {
            self.notifications = notifications
            badges = notifications.map(AppBadgeRule.appliedBadge)
            threads = notifications.map(NotificationRow.threadKey)
            attachments = notifications.map { NotificationAttachment.json($0.attachments) }
        }
    }

    /// Writes the rows; what it returns is only the seqs and tombstones: the rows as stored are made
    /// from them afterwards (`InsertedBatch.changes(of:)`), off the writer's thread, which is the
    /// push path's bottleneck. The rows are read in place (no copy of a notification per row).
    static func insert(_ rows: InsertedRows, _ db: Database) throws -> InsertedBatch {
        var seq = try latestSeq(db)
        var seqs: [Int64] = []
        seqs.reserveCapacity(rows.notifications.count)
        var tombstones: [InsertedBatch.Tombstone] = []
        var latestBadges = AppBadgeRule.Latest()
        let notifications = rows.notifications
        var index = notifications.startIndex
        while index < notifications.endIndex {
            if let collapseID = notifications[index].collapseID {
                let tombstone = try NotificationRow.fetchOne(
                    db, sql: collapseSQL,
                    arguments: [
                        notifications[index].receivedAt.storedMilliseconds, seq + 1,
                        notifications[index].deviceID, notifications[index].bundleID, collapseID,
                        notifications[index].id,
                    ])
                if let tombstone {
                    seq += 1
                    tombstones.append(InsertedBatch.Tombstone(before: index, row: tombstone))
                }
            }
            // This notification, and the ones after it without a collapse id (which need no
            // tombstone first), in one statement.
            var end = index + 1
            while end < notifications.endIndex, end - index < NotificationRow.maximumRowsPerUpsert,
                notifications[end].collapseID == nil
            {
                end += 1
            }
            let statement = try db.cachedStatement(sql: NotificationRow.upsertSQLByRows[end - index])
            // Resets the statement and clears its bindings; the rows are then bound in place
            // (`NotificationRow.bindUpsertValues`, texts in `UpsertText`) and `execute()` runs them.
            statement.setUncheckedArguments(StatementArguments())
            var text = UpsertText(
                bytes: (index..<end).reduce(0) {
                    $0
                        + NotificationRow.textBytes(
                            notifications[$1], thread: rows.threads[$1], attachments: rows.attachments[$1])
                })
            defer { text.finish(statement.sqliteStatement) }
            var argument: CInt = 1
            for row in index..<end {
                seq += 1
                guard
                    NotificationRow.bindUpsertValues(
                        notifications[row], seq: seq, thread: rows.threads[row], attachments: rows.attachments[row],
                        to: statement.sqliteStatement, from: argument, text: &text)
                else { throw StoreError(.invalid, "A notification could not be bound to the insert statement.") }
                argument += NotificationRow.upsertValuesPerRow
                seqs.append(seq)
                if let badge = rows.badges[row] { latestBadges.note(notifications[row], badge: badge, seq: seq) }
            }
            try statement.execute()
            index = end
        }
        try latestBadges.store(db)
        return InsertedBatch(seqs: seqs, tombstones: tombstones)
    }

    public func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        try Self.validate(limit: limit)
        return try await read { db in
            try NotificationRow.fetchAll(
                db, sql: Self.changesSQL, arguments: [deviceID, cursor, now.timeIntervalSince1970, limit]
            )
        }
    }

    public func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        try Self.validate(limit: limit)
        return try await read { db in
            try NotificationRow.fetchAll(
                db, sql: Self.listSQL, arguments: [deviceID, cursor, now.timeIntervalSince1970, limit]
            )
        }
    }

    public func notification(deviceID: String, id: String) async throws -> StoredNotification? {
        try await read { db in
            try NotificationRow.fetchOne(db, sql: Self.liveSQL, arguments: [deviceID, id])
        }
    }

    public func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark(.read, deviceID: deviceID, id: id, at: date)
    }

    public func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark(.dismissed, deviceID: deviceID, id: id, at: date)
    }

    public func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await mark(.removed, deviceID: deviceID, id: id, at: date)
    }

    public func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE notifications SET delivered_at = ?
                    WHERE device_id = ? AND seq <= ? AND delivered_at IS NULL AND \(Self.deliverable)
                    """
            )
            .execute(arguments: [date.storedMilliseconds, deviceID, cursor, date.timeIntervalSince1970])
        }
    }

    // MARK: Marks

    /// A change the user makes to one live notification; each sets one time column once.
    private enum Mark: Sendable {
        case read, dismissed, removed

        /// Sets the column and a new seq (read the row again with `rowSQL`).
        var updateSQL: String {
            let column =
                switch self {
                case .read: "read_at"
                case .dismissed: "dismissed_at"
                case .removed: "removed_at"
                }
            return """
                UPDATE notifications SET \(column) = ?, seq = ?
                WHERE device_id = ? AND id = ?
                """
        }

        /// Whether `notification` already carries this mark (marking it again changes nothing).
        func isSet(on notification: StoredNotification) -> Bool {
            switch self {
            case .read: notification.readAt != nil
            case .dismissed: notification.dismissedAt != nil
            case .removed: notification.removedAt != nil
            }
        }
    }

    /// Applies `mark` to the device's live notification `id` with a new seq; nil when there is none
    /// (tombstones included); the notification unchanged when it carries the mark already.
    private func mark(_ mark: Mark, deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await write { db in
            guard let current = try NotificationRow.fetchOne(db, sql: Self.liveSQL, arguments: [deviceID, id]) else {
                return nil
            }
            if mark.isSet(on: current) { return current }
            let seq = try Self.latestSeq(db) + 1
            try db.cachedStatement(sql: mark.updateSQL).execute(arguments: [date.storedMilliseconds, seq, deviceID, id])
            return try NotificationRow.fetchOne(db, sql: Self.rowSQL, arguments: [deviceID, id])
        }
    }

    private static func validate(limit: Int) throws {
        guard limit >= 0 else { throw StoreError(.invalid, "The limit must not be negative.") }
    }
}
