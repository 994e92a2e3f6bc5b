import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Each notification's delivery decision: its disposition's raw value and the Decision as JSON text.
// A new decision is a change of the row, so it takes a new seq like a read or a dismissal.

extension SQLiteStore {
    /// The dispositions of held notifications: the `notifications_held` index and `heldSQL` list them
    /// literally (a partial index is used only for a query that repeats its condition).
    static let heldDispositions: Set<String> = [Disposition.heldForFocus.rawValue, Disposition.heldForSummary.rawValue]

    /// Notifications released by a Scheduled Summary are no longer held (`SummaryOverlay`).
    static let heldSQL = """
        SELECT \(NotificationRow.columns) FROM notifications n
        WHERE device_id IN (SELECT value FROM json_each(?))
            AND removed_at IS NULL AND disposition IN ('heldForFocus', 'heldForSummary')
            AND disposition IN (SELECT value FROM json_each(?))
            AND NOT \(SummaryOverlay.isReleased)
        ORDER BY received_at, seq
        """

    /// A new decision ends a summary release's cover of the row (`decided_seq`, see `SummaryOverlay`).
    private static let decideSQL = """
        UPDATE notifications SET disposition = ?, decision = ?, released_at = ?, seq = ?, decided_seq = ?
        WHERE device_id = ? AND id = ? AND removed_at IS NULL
        RETURNING \(NotificationRow.columns)
        """

    static let decisionMessages = ConstraintMessages(
        notFound: "The notification's device or app does not exist.",
        invalid: "The decision is not valid JSON."
    )

    public func updateDecision(
        deviceID: String, id: String, disposition: String, decision: String, releasedAt: Date?, at date: Date
    ) async throws -> StoredNotification? {
        try Self.validate(disposition: disposition)
        return try await write(Self.decisionMessages) { db in
            guard let current = try NotificationRow.fetchOne(db, sql: Self.liveSQL, arguments: [deviceID, id]) else {
                return nil
            }
            let released = releasedAt?.storedMilliseconds
            if current.disposition == disposition, current.decision == decision,
               current.releasedAt?.storedMilliseconds == released {
                return current
            }
            let seq = try Self.latestSeq(db) + 1
            return try NotificationRow.fetchOne(
                db, sql: Self.decideSQL, arguments: [disposition, decision, released, seq, seq, deviceID, id]
            )
        }
    }

    public func heldNotifications(deviceIDs: [String], dispositions: [String]) async throws -> [StoredNotification] {
        for disposition in dispositions where !Self.heldDispositions.contains(disposition) {
            throw StoreError(.invalid, "Only held notifications can be listed, not \(disposition) ones.")
        }
        guard !deviceIDs.isEmpty, !dispositions.isEmpty else { return [] }
        let devices = try Self.jsonArray(deviceIDs)
        let held = try Self.jsonArray(dispositions)
        return try await read { db in
            try NotificationRow.fetchAll(db, sql: Self.heldSQL, arguments: [devices, held])
        }
    }

    /// `invalid` unless `disposition` is the raw value of a `Disposition`.
    static func validate(disposition: String) throws {
        guard Disposition(rawValue: disposition) != nil else {
            throw StoreError(.invalid, "\(disposition) is not a disposition.")
        }
    }

    /// A JSON array of strings, bound to one parameter and read with `json_each` (one cached
    /// statement whatever the number of values).
    private static func jsonArray(_ values: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }
}
