import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Each notification's delivery decision: a `DecisionRecord`, kept as its JSON text (the one public
// shape) with its disposition in a column of its own for the held and summary indexes. A new decision
// is a change of the row, so it takes a new seq like a read or a dismissal.

extension SQLiteStore {
    /// Held notifications: the `notifications_held` index and `heldSQL` list their dispositions
    /// literally (a partial index is used only for a query that repeats its condition).
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
        invalid: "The decision could not be stored."
    )

    public func updateDecision(
        deviceID: String, id: String, decision: DecisionRecord, releasedAt: Date?, at date: Date
    ) async throws -> StoredNotification? {
        let text = try decision.jsonText()
        return try await write(Self.decisionMessages) { db in
            guard let current = try NotificationRow.fetchOne(db, sql: Self.liveSQL, arguments: [deviceID, id]) else {
                return nil
            }
            let released = releasedAt?.storedMilliseconds
            if current.decision == decision, current.releasedAt?.storedMilliseconds == released {
                return current
            }
            let seq = try Self.latestSeq(db) + 1
            let arguments: StatementArguments = [
                decision.decision.disposition.rawValue, text, released, seq, seq, deviceID, id,
            ]
            guard let updated = try NotificationRow.fetchOne(db, sql: Self.decideSQL, arguments: arguments) else {
                return nil
            }
            // The app badge follows a decision that starts applying it (a held notification released):
            // `AppBadgeRule`, the same rule as the group commit's inserts.
            if let badge = AppBadgeRule.appliedBadge(updated), AppBadgeRule.appliedBadge(current) == nil {
                var latest = AppBadgeRule.Latest()
                latest.note(updated, badge: badge, seq: seq)
                try latest.store(db)
            }
            return updated
        }
    }

    public func heldNotifications(deviceIDs: [String], dispositions: Set<Disposition>) async throws
        -> [StoredNotification]
    {
        for disposition in dispositions where !disposition.isHeld {
            throw StoreError(.invalid, "Only held notifications can be listed, not \(disposition.rawValue) ones.")
        }
        guard !deviceIDs.isEmpty, !dispositions.isEmpty else { return [] }
        let devices = Self.jsonArray(deviceIDs)
        let held = Self.jsonArray(dispositions.map(\.rawValue).sorted())
        return try await read { db in
            try NotificationRow.fetchAll(db, sql: Self.heldSQL, arguments: [devices, held])
        }
    }

    public func heldNotificationCounts() async throws -> [Disposition: Int] {
        try await read { db in
            var counts: [Disposition: Int] = [.heldForFocus: 0, .heldForSummary: 0]
            // The partial index `notifications_held` holds exactly these rows.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT disposition, count(*) FROM notifications
                    WHERE removed_at IS NULL AND disposition IN ('heldForFocus', 'heldForSummary')
                    GROUP BY disposition
                    """)
            for row in rows {
                if let disposition = Disposition(rawValue: row[0]) { counts[disposition] = row[1] }
            }
            return counts
        }
    }

    public func usersWithFocusOrHeld() async throws -> [String] {
        try await read { db in
            // The held rows through the partial index `notifications_held` (its exact condition).
            try String.fetchAll(
                db,
                sql: """
                    SELECT user_id FROM focus_modes
                    UNION
                    SELECT d.user_id FROM notifications n JOIN devices d ON d.device_id = n.device_id
                    WHERE n.removed_at IS NULL AND n.disposition IN ('heldForFocus', 'heldForSummary')
                        AND d.user_id IS NOT NULL
                    ORDER BY 1
                    """)
        }
    }
}
