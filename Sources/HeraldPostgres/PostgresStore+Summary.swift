import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// Scheduled Summary deliveries, exactly once across restarts and nodes, as SQLiteStore keeps them: a
// user's summary time (slot) is recorded in `summary_deliveries` in the transaction that writes its
// releases, one `summary_releases` row per device with a seq from the one sequence row. A second
// delivery of the slot — by this node or another — finds the row (the primary key) and changes
// nothing. The released notifications are not rewritten: reads derive their released state (the
// overlay of `PostgresStore+Notifications.swift`).

extension PostgresStore: SummaryStore {
    public func recordSummaryDelivery(userID: String, slot: Date, digest: String, at date: Date) async throws -> Bool {
        let summary = SummaryRelease(
            userID: userID, slot: slot, digest: digest, devices: [], horizon: SummaryHorizon(rowID: 0, seq: 0))
        return try await releaseSummaries([summary], at: date)[0] != nil
    }

    public func summaryCandidates(_ summaries: [(userID: String, slot: Date)]) async throws -> SummaryCandidates {
        let users = summaries.map(\.userID)
        let slots = summaries.map { $0.slot.storedMilliseconds }
        return try await snapshot { connection in
            var held: [SummaryCandidate] = []
            var ranges = Array(repeating: 0..<0, count: summaries.count)
            var user = -1
            var start = 0
            let rows = try await connection.query(
                """
                SELECT (u.ord - 1)::BIGINT, d.device_id, n.id, n.bundle_id, n.received_at,
                    ((n.payload::jsonb -> 'aps') -> 'relevance-score')::text, n.attachments IS NOT NULL
                FROM unnest(\(users)::text[], \(slots)::bigint[]) WITH ORDINALITY AS u(user_id, slot_ms, ord)
                JOIN devices d ON d.user_id = u.user_id
                JOIN notifications n ON n.device_id = d.device_id
                WHERE n.removed_at IS NULL AND n.disposition = 'heldForSummary' AND n.received_at <= u.slot_ms
                    AND NOT EXISTS (\(unescaped: Self.coveringRelease))
                ORDER BY u.ord, d.created_at, d.device_id, n.received_at, n.id
                """, logger: self.logger)
            for try await (key, deviceID, id, bundleID, receivedAt, relevance, hasAttachments) in rows.decode(
                (Int, String, String, String, Int64, String?, Bool).self)
            {
                if key != user {
                    if user >= 0 { ranges[user] = start..<held.count }
                    user = key
                    start = held.count
                }
                held.append(
                    SummaryCandidate(
                        userID: summaries[key].userID, deviceID: deviceID, id: id, bundleID: bundleID,
                        receivedAt: Date(storedMilliseconds: receivedAt),
                        relevanceScore: relevance.flatMap(Double.init) ?? 0, hasMediaAttachment: hasAttachments))
            }
            if user >= 0 { ranges[user] = start..<held.count }
            try await self.leaveOutAvatars(connection, &held)
            var horizon = SummaryHorizon(rowID: 0, seq: 0)
            for try await (rowID, seq) in try await connection.query(
                """
                SELECT (SELECT COALESCE(MAX(row_id), 0) FROM notifications), (SELECT value FROM herald_sequence)
                """, logger: self.logger
            ).decode((Int64, Int64).self) {
                horizon = SummaryHorizon(rowID: rowID, seq: seq)
            }
            return SummaryCandidates(held: held, users: ranges, horizon: horizon)
        }
    }

    /// A notification whose only attachment is its communication avatar has no media: the flagged
    /// ones (few) are read again, all in one statement.
    private func leaveOutAvatars(_ connection: PostgresConnection, _ held: inout [SummaryCandidate]) async throws {
        let flagged = held.indices.filter { held[$0].hasMediaAttachment }
        guard !flagged.isEmpty else { return }
        let devices = flagged.map { held[$0].deviceID }
        let ids = flagged.map { held[$0].id }
        var avatarOnly = Set<String>()
        for try await (deviceID, id, attachments) in try await connection.query(
            """
            SELECT n.device_id, n.id, n.attachments FROM unnest(\(devices)::text[], \(ids)::text[]) AS k(device_id, id)
            JOIN notifications n ON n.device_id = k.device_id AND n.id = k.id
            """, logger: logger
        ).decode((String, String, String?).self) {
            let files = attachments.map(NotificationAttachment.decoded(from:)) ?? []
            if !files.contains(where: { !$0.isAvatar }) { avatarOnly.insert("\(deviceID)\u{0}\(id)") }
        }
        for index in flagged where avatarOnly.contains("\(held[index].deviceID)\u{0}\(held[index].id)") {
            held[index].hasMediaAttachment = false
        }
    }

    public func releaseSummaries(_ summaries: [SummaryRelease], at date: Date) async throws -> [[ReleasedSummary]?] {
        guard !summaries.isEmpty else { return [] }
        for summary in summaries where (try? JSONParser.parse(Array(summary.digest.utf8))) == nil {
            throw StoreError(.invalid, "A summary digest is not valid JSON.")
        }
        let encoded = try summaries.map { summary in
            try summary.devices.map { device in
                (String(decoding: try JSONEncoder().encode(device.apps), as: UTF8.self), device.featured)
            }
        }
        let released = date.storedMilliseconds
        let messages = ConstraintMessages(
            notFound: "A summary's user or device does not exist.", invalid: "A summary digest is not valid JSON.")
        return try await write(messages) { connection in
            let start = try await Self.lockSequence(connection, logger: self.logger)
            var seq = start
            var results: [[ReleasedSummary]?] = []
            for (summary, digests) in zip(summaries, encoded) {
                try await self.requireUser(connection, summary.userID)
                if !summary.devices.isEmpty {
                    let devices = Set(
                        try await Self.json(
                            connection, "SELECT device_id FROM devices WHERE user_id = \(summary.userID)",
                            logger: self.logger))
                    for device in summary.devices where !devices.contains(device.deviceID) {
                        throw StoreError(.invalid, "A summary of user \(summary.userID) is for another user's device.")
                    }
                }
                let slot = summary.slot.storedMilliseconds
                let recorded = try await Self.json(
                    connection,
                    """
                    INSERT INTO summary_deliveries (user_id, slot_ms, delivered_at, digest)
                    VALUES (\(summary.userID), \(slot), \(released), \(summary.digest))
                    ON CONFLICT (user_id, slot_ms) DO NOTHING
                    RETURNING user_id
                    """, logger: self.logger)
                guard !recorded.isEmpty else {
                    results.append(nil)
                    continue
                }
                var events: [ReleasedSummary] = []
                for (device, (digest, featured)) in zip(summary.devices, digests) {
                    seq += 1
                    try await connection.query(
                        """
                        INSERT INTO summary_releases
                            (device_id, slot_ms, user_id, seq, released_at, horizon_row_id, horizon_seq, digest, featured)
                        VALUES (\(device.deviceID), \(slot), \(summary.userID), \(seq), \(released),
                            \(summary.horizon.rowID), \(summary.horizon.seq), \(digest), \(featured))
                        """, logger: self.logger)
                    events.append(ReleasedSummary(deviceID: device.deviceID, seq: seq))
                }
                results.append(events)
            }
            try await self.storeSequence(connection, seq, from: start)
            return results
        }
    }

    public func summaryEvents(deviceID: String, after cursor: Int64, through last: Int64?, limit: Int) async throws
        -> [StoredSummaryEvent]
    {
        guard limit >= 0 else { throw StoreError(.invalid, "The limit must not be negative.") }
        return try await snapshot { connection in
            var releases:
                [(
                    seq: Int64, deviceID: String, userID: String, slot: Int64, at: Int64, digest: String,
                    featured: [String]
                )] = []
            for try await row in try await connection.query(
                """
                SELECT seq, device_id, user_id, slot_ms, released_at, digest, featured FROM summary_releases
                WHERE device_id = \(deviceID) AND seq > \(cursor) AND seq <= \(last ?? Int64.max)
                ORDER BY seq LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String, String, Int64, Int64, String, [String]).self) {
                releases.append(row)
            }
            var events: [StoredSummaryEvent] = []
            for release in releases {
                var notifications: [String: StoredNotification] = [:]
                for notification in try await Self.notificationRows(
                    connection,
                    """
                    \(unescaped: Self.selectNotifications)
                    WHERE n.device_id = \(deviceID) AND n.removed_at IS NULL
                        AND n.disposition IN ('heldForFocus', 'heldForSummary')
                        AND n.received_at <= \(release.slot) AND r.seq = \(release.seq)
                    """, logger: self.logger)
                {
                    notifications[notification.id] = notification
                }
                events.append(
                    StoredSummaryEvent(
                        seq: release.seq, deviceID: release.deviceID, userID: release.userID,
                        slot: Date(storedMilliseconds: release.slot), releasedAt: Date(storedMilliseconds: release.at),
                        apps: try JSONDecoder().decode([SummaryAppGroup].self, from: Data(release.digest.utf8)),
                        featured: release.featured, notifications: notifications))
            }
            return events
        }
    }

    public func lastSummaryDelivery(userID: String) async throws -> Date? {
        try await read { connection in
            for try await slot in try await connection.query(
                "SELECT MAX(slot_ms) FROM summary_deliveries WHERE user_id = \(userID)", logger: self.logger
            ).decode(Int64?.self) {
                return slot.map(Date.init(storedMilliseconds:))
            }
            return nil
        }
    }

    public func usersWithSummary() async throws -> [SummaryUserRecord] {
        try await snapshot { connection in
            var users: [SummaryUserRecord] = []
            for try await (userID, scheduleJSON, preferencesJSON, lastSlot) in try await connection.query(
                """
                SELECT s.user_id, s.schedule, p.preferences,
                    (SELECT MAX(slot_ms) FROM summary_deliveries d WHERE d.user_id = s.user_id)
                FROM summary_schedules s LEFT JOIN user_preferences p USING (user_id)
                ORDER BY s.user_id
                """, logger: self.logger
            ).decode((String, String, String?, Int64?).self) {
                let schedule = try PolicyJSON.decode(SummarySchedule.self, from: scheduleJSON, "summary schedule")
                guard !schedule.times.isEmpty, schedule.isOn else { continue }
                let preferences = try preferencesJSON.map {
                    try PolicyJSON.decode(UserPreferences.self, from: $0, "preferences")
                }
                users.append(
                    SummaryUserRecord(
                        userID: userID, schedule: schedule,
                        timeZone: preferences?.timeZone ?? UserPreferences().timeZone,
                        lastDeliveredSlot: lastSlot.map(Date.init(storedMilliseconds:))))
            }
            return users
        }
    }
}
