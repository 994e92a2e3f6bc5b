import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Scheduled Summary deliveries, exactly once across restarts: a summary time (slot) of a user is
// recorded in `summary_deliveries` in the same transaction that releases its notifications. A
// second delivery of the slot finds the row (the primary key), and the transaction changes nothing.

extension SQLiteStore {
    private static let recordDeliverySQL = """
        INSERT INTO summary_deliveries (user_id, slot_ms, delivered_at, digest) VALUES (?, ?, ?, ?)
        ON CONFLICT (user_id, slot_ms) DO NOTHING
        """

    /// Releases a notification still held for the summary (one released otherwise meanwhile, or
    /// removed, stays as it is).
    private static let releaseSQL = """
        UPDATE notifications SET disposition = ?, decision = ?, released_at = ?, seq = ?
        WHERE device_id = ? AND id = ? AND removed_at IS NULL AND disposition = 'heldForSummary'
        RETURNING \(NotificationRow.columns)
        """

    private static let summaryMessages = ConstraintMessages(
        notFound: "A summary's user does not exist.",
        invalid: "A summary digest or a decision is not valid JSON."
    )

    public func recordSummaryDelivery(userID: String, slot: Date, digest: String, at date: Date) async throws -> Bool {
        try await releaseSummary(userID: userID, slot: slot, digest: digest, releases: [], at: date) != nil
    }

    public func releaseSummary(
        userID: String, slot: Date, digest: String, releases: [DecisionUpdate], at date: Date
    ) async throws -> [StoredNotification]? {
        let summary = SummaryRelease(userID: userID, slot: slot, digest: digest, releases: releases)
        return try await releaseSummaries([summary], at: date)[0]
    }

    public func releaseSummaries(_ summaries: [SummaryRelease], at date: Date) async throws -> [[StoredNotification]?] {
        guard !summaries.isEmpty else { return [] }
        for summary in summaries {
            for release in summary.releases { try Self.validate(disposition: release.disposition) }
        }
        let released = date.storedMilliseconds
        return try await write(Self.summaryMessages) { db in
            var seq = try Self.latestSeq(db)
            var results: [[StoredNotification]?] = []
            results.reserveCapacity(summaries.count)
            let recordDelivery = try db.cachedStatement(sql: Self.recordDeliverySQL)
            let releaseStatement = try db.cachedStatement(sql: Self.releaseSQL)
            for summary in summaries {
                try Self.requireUser(db, summary.userID)
                let devices = Set(try String.fetchAll(
                    db.cachedStatement(sql: "SELECT device_id FROM devices WHERE user_id = ?"), arguments: [summary.userID]
                ))
                for release in summary.releases where !devices.contains(release.deviceID) {
                    throw StoreError(.invalid, "A summary of user \(summary.userID) releases a notification of another user's device.")
                }
                try recordDelivery.execute(arguments: [summary.userID, summary.slot.storedMilliseconds, released, summary.digest])
                guard db.changesCount > 0 else {
                    results.append(nil)
                    continue
                }
                var changes: [StoredNotification] = []
                changes.reserveCapacity(summary.releases.count)
                for release in summary.releases {
                    let row = try NotificationRow.fetchOne(releaseStatement, arguments: [
                        release.disposition, release.decision, released, seq + 1, release.deviceID, release.id,
                    ])
                    if let row {
                        seq += 1
                        changes.append(row)
                    }
                }
                results.append(changes)
            }
            return results
        }
    }

    public func lastSummaryDelivery(userID: String) async throws -> Date? {
        try await read { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(slot_ms) FROM summary_deliveries WHERE user_id = ?"), arguments: [userID]
            ).map(Date.init(storedMilliseconds:))
        }
    }

    public func usersWithSummary() async throws -> [SummaryUserRecord] {
        try await read { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT s.user_id, s.schedule, p.preferences,
                    (SELECT MAX(slot_ms) FROM summary_deliveries d WHERE d.user_id = s.user_id)
                FROM summary_schedules s LEFT JOIN user_preferences p USING (user_id)
                WHERE json_array_length(s.schedule, '$.times') > 0
                ORDER BY s.user_id
                """))
            var users: [SummaryUserRecord] = []
            while let row = try rows.next() {
                let schedule = try PolicyJSON.decode(SummarySchedule.self, from: try row.decode(atIndex: 1), "summary schedule")
                guard schedule.isOn else { continue }
                let preferencesJSON: String? = try row.decode(atIndex: 2)
                let preferences = try preferencesJSON.map { try PolicyJSON.decode(UserPreferences.self, from: $0, "preferences") }
                let lastSlot: Int64? = try row.decode(atIndex: 3)
                users.append(SummaryUserRecord(
                    userID: try row.decode(atIndex: 0),
                    schedule: schedule,
                    timeZone: preferences?.timeZone ?? UserPreferences().timeZone,
                    lastDeliveredSlot: lastSlot.map(Date.init(storedMilliseconds:))
                ))
            }
            return users
        }
    }
}
