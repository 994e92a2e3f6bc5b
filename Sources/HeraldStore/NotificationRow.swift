import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

/// The `notifications` table: one row per notification of a device's list, in its latest state.
///
/// Rows are read by column position (the hot path of the change feed), so every query selects
/// `NotificationRow.columns` in this order.
enum NotificationRow {
    static let databaseTableName = "notifications"

    /// The selected columns, in the order `decode(_:)` reads them.
    static let columns = """
        seq, id, device_id, bundle_id, topic, push_type, priority, collapse_id, expiration, payload, \
        received_at, delivered_at, read_at, dismissed_at, removed_at, disposition, decision, released_at, \
        attachments
        """

    /// How many columns `columns` selects.
    static let columnCount = 19

    /// The most rows one `upsertSQL(rows:)` statement inserts.
    static let maximumRowsPerUpsert = 32

    /// Inserts `rows` new notifications, or replaces the device's entry with the same id (even a
    /// tombstone): new content, new seq, new decision, read/dismissed/removed cleared. The arguments
    /// are `rows` × `appendUpsertValues`, in order. SQLite inserts the rows in order, each seeing the
    /// ones before (so an id twice replaces as two statements would). One statement for many rows: a
    /// statement's own cost (GRDB's and the VDBE's per execution) was a fifth of the writer's time
    /// per row.
    static func upsertSQL(rows: Int) -> String {
        let values = Array(
            repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, ?)", count: rows)
        return """
            INSERT INTO notifications (\(columns), thread_key)
            VALUES \(values.joined(separator: ", "))
            ON CONFLICT (device_id, id) DO UPDATE SET
                thread_key = excluded.thread_key,
                seq = excluded.seq, bundle_id = excluded.bundle_id, topic = excluded.topic,
                push_type = excluded.push_type, priority = excluded.priority,
                collapse_id = excluded.collapse_id, expiration = excluded.expiration,
                payload = excluded.payload, received_at = excluded.received_at,
                delivered_at = excluded.delivered_at,
                read_at = NULL, dismissed_at = NULL, removed_at = NULL,
                disposition = excluded.disposition, decision = excluded.decision, released_at = excluded.released_at,
                attachments = excluded.attachments
            """
    }

    /// `upsertSQL(rows:)` for 1 … `maximumRowsPerUpsert` rows (index = rows), made once.
    static let upsertSQLByRows: [String] = (0...maximumRowsPerUpsert).map { $0 == 0 ? "" : upsertSQL(rows: $0) }

    /// Binds the arguments of one row of `upsertSQL(rows:)` for `notification` stored with `seq` in
    /// `thread` with `attachments` (`NotificationAttachment.json`) — `upsertValuesPerRow` of them,
    /// from the 1-based `first` on — straight from its fields into `statement`, its texts through
    /// `text` (sized with `textBytes`); false when SQLite refused one. Bound in place, not through
    /// `StatementArguments`: building those (boxing each value, converting it through an
    /// unspecialized key path, validating the whole list again) was a tenth of the writer thread's
    /// time (~1.5 µs a push, scripts/profile-push perf).
    static func bindUpsertValues(
        _ notification: StoredNotification, seq: Int64, thread: String?, attachments: String?,
        to statement: SQLiteStatement, from first: CInt, text: inout UpsertText
    ) -> Bool {
        var index = first
        var isBound = true
        // SQLITE_OK is 0.
        func bind(_ value: some StatementBinding) {
            isBound = isBound && value.bind(to: statement, at: index) == 0
            index += 1
        }
        func bindText(_ string: String?) {
            isBound = isBound && text.bind(string, to: statement, at: index) == 0
            index += 1
        }
        bind(seq)
        bindText(notification.id)
        bindText(notification.deviceID)
        bindText(notification.bundleID)
        bindText(notification.topic)
        bindText(notification.pushType.rawValue)
        bind(notification.priority)
        bindText(notification.collapseID)
        bind(notification.expiration)
        bindText(notification.payload)
        bind(notification.receivedAt.storedMilliseconds)
        bind(notification.deliveredAt?.storedMilliseconds)
        bindText(notification.disposition?.rawValue)
        bindText(notification.decisionJSON)
        bind(notification.releasedAt?.storedMilliseconds)
        bindText(attachments)
        bindText(thread)
        assert(index - first == upsertValuesPerRow)
        return isBound
    }

    /// The UTF-8 bytes of the texts `bindUpsertValues` binds for `notification`.
    static func textBytes(_ notification: StoredNotification, thread: String?, attachments: String?) -> Int {
        notification.id.utf8.count + notification.deviceID.utf8.count + notification.bundleID.utf8.count
            + notification.topic.utf8.count + notification.pushType.rawValue.utf8.count
            + (notification.collapseID?.utf8.count ?? 0) + notification.payload.utf8.count
            + (notification.disposition?.rawValue.utf8.count ?? 0) + (notification.decisionJSON?.utf8.count ?? 0)
            + (attachments?.utf8.count ?? 0) + (thread?.utf8.count ?? 0)
    }

    /// How many arguments `bindUpsertValues` binds for one row.
    static let upsertValuesPerRow: CInt = 17

    /// The `thread_key` column: the payload's `aps.thread-id` when it is a non-empty string, else
    /// nil (the app's notifications without a thread) — what the generated `thread_id` column
    /// computes, read in Swift before the transaction (see `Schema.storeThreadKey`).
    static func threadKey(_ notification: StoredNotification) -> String? {
        let thread: String?
        if let parsed = notification.arrival.payload {
            thread = parsed.aps.threadID
        } else {
            thread =
                (try? JSONParser.parse(Array(notification.payload.utf8)))?.objectValue?["aps"]?.objectValue?[
                    "thread-id"]?.stringValue
        }
        return thread.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `notification` as `upsertSQL(rows:)` stored it with `seq`: what reading the row back returns.
    static func stored(_ notification: StoredNotification, seq: Int64) -> StoredNotification {
        var stored = notification
        stored.seq = seq
        stored.receivedAt = notification.receivedAt.roundedToStoredPrecision
        stored.deliveredAt = notification.deliveredAt?.roundedToStoredPrecision
        stored.releasedAt = notification.releasedAt?.roundedToStoredPrecision
        stored.readAt = nil
        stored.dismissedAt = nil
        stored.removedAt = nil
        return stored
    }

    /// The notification a row of `columns` holds.
    static func decode(_ row: Row) throws -> StoredNotification {
        let pushTypeName: String = try row.decode(atIndex: 5)
        guard let pushType = PushType(rawValue: pushTypeName) else {
            throw StoreError(.invalid, "A stored notification has a push type this version does not know.")
        }
        var notification = StoredNotification(
            seq: try row.decode(atIndex: 0),
            id: try row.decode(atIndex: 1),
            deviceID: try row.decode(atIndex: 2),
            bundleID: try row.decode(atIndex: 3),
            topic: try row.decode(atIndex: 4),
            pushType: pushType,
            priority: try row.decode(atIndex: 6),
            collapseID: try row.decode(atIndex: 7),
            expiration: try row.decode(atIndex: 8),
            payload: try row.decode(atIndex: 9),
            receivedAt: Date(storedMilliseconds: try row.decode(atIndex: 10)),
            deliveredAt: try date(row, 11),
            readAt: try date(row, 12),
            dismissedAt: try date(row, 13),
            removedAt: try date(row, 14),
            releasedAt: try date(row, 17)
        )
        if let text: String = try row.decode(atIndex: 18) {
            notification.attachments = NotificationAttachment.decoded(from: text)
        }
        // The disposition column (15) is the decision's, kept for the held and summary indexes.
        if let text: String = try row.decode(atIndex: 16) {
            notification.setDecision(DecisionRecord.decoded(from: text), json: text)
        }
        // A covering Scheduled Summary release, when the query joined one (`SummaryOverlay.columns`).
        let overlay = columnCount
        if row.count > overlay, let slot: Int64 = try row.decode(atIndex: overlay), let decision = notification.decision
        {
            let releasedAt: Int64 = try row.decode(atIndex: overlay + 1)
            let featured: Bool = try row.decode(atIndex: overlay + 2)
            notification.setDecision(
                decision.releasedBySummary(slotMilliseconds: slot, isFeatured: featured), json: nil)
            notification.releasedAt = Date(storedMilliseconds: releasedAt)
        }
        return notification
    }

    private static func date(_ row: Row, _ index: Int) throws -> Date? {
        let milliseconds: Int64? = try row.decode(atIndex: index)
        return milliseconds.map(Date.init(storedMilliseconds:))
    }

    /// Every notification `sql` selects (it selects `columns`).
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments) throws -> [StoredNotification] {
        let statement = try db.cachedStatement(sql: sql)
        return try Array(Row.fetchCursor(statement, arguments: arguments).map(decode))
    }

    /// The first notification `sql` selects (it selects or returns `columns`).
    static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments) throws -> StoredNotification? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first notification `statement` selects (it selects or returns `columns`), decoded from
    /// the statement's row in place (without the copy `Row.fetchOne` makes).
    static func fetchOne(_ statement: Statement, arguments: StatementArguments) throws -> StoredNotification? {
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        return try withExtendedLifetime(cursor) { try cursor.next().map(decode) }
    }
}

extension StoredNotification {
    /// The thread a store keeps the notification in: the payload's `aps.thread-id` when it is a
    /// non-empty string, else nil (the app's notifications without a thread).
    public var storedThreadKey: String? { NotificationRow.threadKey(self) }

    /// The notification as a store returns it once stored with `seq`: dates rounded to the
    /// millisecond, read/dismissed/removed cleared.
    public func stored(seq: Int64) -> StoredNotification { NotificationRow.stored(self, seq: seq) }
}
