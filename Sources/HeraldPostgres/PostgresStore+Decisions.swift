import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// Decisions of stored notifications, and the notifications held for a Focus or the summary.

extension PostgresStore {
    public func updateDecision(
        deviceID: String, id: String, decision: DecisionRecord, releasedAt: Date?, at date: Date
    ) async throws -> StoredNotification? {
        let text = try decision.jsonText()
        let messages = ConstraintMessages(
            notFound: "The notification's device or app does not exist.", invalid: "The decision could not be stored.")
        return try await write(messages) { connection in
            guard let current = try await Self.live(connection, deviceID: deviceID, id: id, logger: self.logger) else {
                return nil
            }
            let released = releasedAt?.storedMilliseconds
            if current.decision == decision, current.releasedAt?.storedMilliseconds == released { return current }
            let start = try await Self.lockSequence(connection, logger: self.logger)
            let seq = start + 1
            try await connection.query(
                """
                UPDATE notifications SET disposition = \(decision.decision.disposition.rawValue), decision = \(text),
                    released_at = \(released), seq = \(seq), decided_seq = \(seq)
                WHERE device_id = \(deviceID) AND id = \(id) AND removed_at IS NULL
                """, logger: self.logger)
            try await self.storeSequence(connection, seq, from: start)
            guard let updated = try await Self.row(connection, deviceID: deviceID, id: id, logger: self.logger) else {
                return nil
            }
            // The app badge follows a decision that starts applying it (a held notification released).
            if let badge = AppBadgeRule.appliedBadge(updated), AppBadgeRule.appliedBadge(current) == nil {
                var latest = AppBadgeRule.Latest()
                latest.note(updated, badge: badge, seq: seq)
                try await latest.store(connection, logger: self.logger)
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
        let held = dispositions.map(\.rawValue).sorted()
        return try await read { connection in
            try await Self.notificationRows(
                connection,
                """
                \(unescaped: Self.selectNotifications)
                WHERE n.device_id = ANY (\(deviceIDs)) AND n.removed_at IS NULL
                    AND n.disposition IN ('heldForFocus', 'heldForSummary') AND n.disposition = ANY (\(held))
                    AND NOT EXISTS (\(unescaped: Self.coveringRelease))
                ORDER BY n.received_at, n.seq
                """, logger: self.logger)
        }
    }

    public func heldNotificationCounts() async throws -> [Disposition: Int] {
        try await read { connection in
            var counts: [Disposition: Int] = [.heldForFocus: 0, .heldForSummary: 0]
            // The partial index `notifications_held` holds exactly these rows.
            for try await (disposition, count) in try await connection.query(
                """
                SELECT disposition, count(*) FROM notifications
                WHERE removed_at IS NULL AND disposition IN ('heldForFocus', 'heldForSummary')
                GROUP BY disposition
                """, logger: self.logger
            ).decode((String, Int64).self) {
                if let held = Disposition(rawValue: disposition) { counts[held] = Int(count) }
            }
            return counts
        }
    }

    public func usersWithFocusOrHeld() async throws -> [String] {
        try await read { connection in
            var users: [String] = []
            for try await user in try await connection.query(
                """
                SELECT user_id FROM focus_modes
                UNION
                SELECT d.user_id FROM notifications n JOIN devices d ON d.device_id = n.device_id
                WHERE n.removed_at IS NULL AND n.disposition IN ('heldForFocus', 'heldForSummary')
                    AND d.user_id IS NOT NULL
                ORDER BY 1
                """, logger: self.logger
            ).decode(String.self) {
                users.append(user)
            }
            return users
        }
    }
}
