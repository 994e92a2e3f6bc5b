import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Scheduled Summary deliveries, exactly once across restarts: a summary time (slot) of a user is
// recorded in `summary_deliveries` in the same transaction that writes its releases, one
// `summary_releases` row per device (digest, featured ids, a seq). A second delivery of the slot
// finds the row (the primary key), and the transaction changes nothing. The released notifications
// are not rewritten: reads derive their released state (`SummaryOverlay`), so a release costs one
// row per user and device, whatever the number of notifications it releases.

extension SQLiteStore {
    private static let recordDeliverySQL = """
        INSERT INTO summary_deliveries (user_id, slot_ms, delivered_at, digest) VALUES (?, ?, ?, ?)
        ON CONFLICT (user_id, slot_ms) DO NOTHING
        """

    private static let recordReleaseSQL = """
        INSERT INTO summary_releases
            (device_id, slot_ms, user_id, seq, released_at, horizon_rowid, horizon_seq, digest, featured)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The users' notifications held for the summary, arrived at or before each user's slot, not
    /// released; `?` is a JSON array of `[user_id, slot_ms]`. Everything it reads is in the covering
    /// index `notifications_summary_candidates` (the relevance score too), not in the rows. The rows
    /// come per user in the order of the array (the outer loop) and per device; no ORDER BY: sorting
    /// the 1,000,000 candidates of 10,000 users cost three times the read itself. The user is the
    /// array index and the device its row id, so a row makes no string for either.
    static let candidatesSQL = """
        SELECT u.key, d.rowid, d.device_id, n.id, n.bundle_id, n.received_at, n.payload -> '$.aps."relevance-score"',
            n.attachments IS NOT NULL
        FROM json_each(?) AS u
        JOIN devices d ON d.user_id = u.value ->> 0
        JOIN notifications n INDEXED BY notifications_summary_candidates ON n.device_id = d.device_id
        WHERE n.removed_at IS NULL AND n.disposition = 'heldForSummary' AND n.received_at <= u.value ->> 1
            AND NOT \(SummaryOverlay.isReleased)
        """

    private static let eventsSQL = """
        SELECT seq, device_id, user_id, slot_ms, released_at, digest, featured FROM summary_releases
        WHERE device_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?
        """

    /// The notifications a release covers (tombstones left out), in the released state.
    private static let eventNotificationsSQL = """
        \(SummaryOverlay.select)
        WHERE n.device_id = ? AND n.removed_at IS NULL AND n.disposition IN ('heldForFocus', 'heldForSummary')
            AND n.received_at <= ? AND r.seq = ?
        """

    private static let summaryMessages = ConstraintMessages(
        notFound: "A summary's user or device does not exist.",
        invalid: "A summary digest is not valid JSON."
    )

    public func recordSummaryDelivery(userID: String, slot: Date, digest: String, at date: Date) async throws -> Bool {
        let summary = SummaryRelease(
            userID: userID, slot: slot, digest: digest, devices: [], horizon: SummaryHorizon(rowID: 0, seq: 0))
        return try await releaseSummaries([summary], at: date)[0] != nil
    }

    public func summaryCandidates(_ summaries: [(userID: String, slot: Date)]) async throws -> SummaryCandidates {
        var writer = JSONWriter(capacity: summaries.count * 32)
        writer.beginArray()
        for summary in summaries {
            writer.beginArray()
            writer.string(summary.userID)
            writer.integer(summary.slot.storedMilliseconds)
            writer.endArray()
        }
        writer.endArray()
        let usersJSON = String(decoding: writer.bytes, as: UTF8.self)
        return try await read { db in
            var held: [SummaryCandidate] = []
            held.reserveCapacity(summaries.count * 64)
            var users = Array(repeating: 0..<0, count: summaries.count)
            var user = -1, userStart = 0, isGrouped = true
            var keys: [Int32] = []
            keys.reserveCapacity(held.capacity)
            var deviceRowID: Int64 = -1, deviceID = ""
            let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.candidatesSQL), arguments: [usersJSON])
            while let row = try rows.next() {
                let key: Int = row[0]
                if key != user {
                    if user >= 0 { users[user] = userStart..<held.count }
                    // The outer loop is the array (the plan test checks it); if a plan ever went
                    // back to a user, the groups are made by sorting below instead.
                    if key < user || !users[key].isEmpty { isGrouped = false }
                    user = key
                    userStart = held.count
                }
                keys.append(Int32(key))
                let rowID: Int64 = row[1]
                if rowID != deviceRowID {
                    deviceRowID = rowID
                    deviceID = row[2]
                }
                let relevance: String? = row[6]
                held.append(
                    SummaryCandidate(
                        userID: summaries[key].userID, deviceID: deviceID, id: row[3], bundleID: row[4],
                        receivedAt: Date(storedMilliseconds: row[5]),
                        relevanceScore: relevance.flatMap(Double.init) ?? 0, hasMediaAttachment: row[7]
                    ))
            }
            if user >= 0 { users[user] = userStart..<held.count }
            try Self.leaveOutAvatars(db, &held)
            if !isGrouped {
                let order = held.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
                held = order.map { held[$0] }
                var start = 0
                for key in users.indices {
                    let end = order[start...].firstIndex { Int(keys[$0]) != key } ?? order.endIndex
                    users[key] = start..<end
                    start = end
                }
            }
            let rowID =
                try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(rowid), 0) FROM notifications")) ?? 0
            return SummaryCandidates(
                held: held, users: users, horizon: SummaryHorizon(rowID: rowID, seq: try Self.latestSeq(db)))
        }
    }

    /// The index says only whether a notification has attachments; one whose only attachment is
    /// its communication avatar has no media. Those with attachments are few: they are read again
    /// (one statement for all) rather than making the covering index read every row.
    private static func leaveOutAvatars(_ db: Database, _ held: inout [SummaryCandidate]) throws {
        let flagged = held.indices.filter { held[$0].hasMediaAttachment }
        guard !flagged.isEmpty else { return }
        var writer = JSONWriter(capacity: flagged.count * 80)
        writer.beginArray()
        for index in flagged {
            writer.beginArray()
            writer.string(held[index].deviceID)
            writer.string(held[index].id)
            writer.endArray()
        }
        writer.endArray()
        let avatarOnly = try Row.fetchAll(
            db,
            sql: """
                SELECT n.device_id, n.id FROM json_each(?) k
                JOIN notifications n ON n.device_id = k.value ->> 0 AND n.id = k.value ->> 1
                WHERE NOT EXISTS (SELECT 1 FROM json_each(n.attachments) j WHERE j.value ->> 'avatar' IS NOT 1)
                """, arguments: [String(decoding: writer.bytes, as: UTF8.self)]
        ).map { row -> String in "\(row[0] as String)\u{0}\(row[1] as String)" }
        guard !avatarOnly.isEmpty else { return }
        let keys = Set(avatarOnly)
        for index in flagged where keys.contains("\(held[index].deviceID)\u{0}\(held[index].id)") {
            held[index].hasMediaAttachment = false
        }
    }

    public func releaseSummaries(_ summaries: [SummaryRelease], at date: Date) async throws -> [[ReleasedSummary]?] {
        guard !summaries.isEmpty else { return [] }
        let encoded = summaries.map { summary in summary.devices.map(Self.digestJSON) }
        let released = date.storedMilliseconds
        return try await write(Self.summaryMessages) { db in
            var seq = try Self.latestSeq(db)
            var results: [[ReleasedSummary]?] = []
            results.reserveCapacity(summaries.count)
            let recordDelivery = try db.cachedStatement(sql: Self.recordDeliverySQL)
            let recordRelease = try db.cachedStatement(sql: Self.recordReleaseSQL)
            let userDevices = try db.cachedStatement(sql: "SELECT device_id FROM devices WHERE user_id = ?")
            for (summary, digests) in zip(summaries, encoded) {
                try Self.requireUser(db, summary.userID)
                if !summary.devices.isEmpty {
                    let devices = Set(try String.fetchAll(userDevices, arguments: [summary.userID]))
                    for device in summary.devices where !devices.contains(device.deviceID) {
                        throw StoreError(.invalid, "A summary of user \(summary.userID) is for another user's device.")
                    }
                }
                let slot = summary.slot.storedMilliseconds
                try recordDelivery.execute(arguments: [summary.userID, slot, released, summary.digest])
                guard db.changesCount > 0 else {
                    results.append(nil)
                    continue
                }
                var events: [ReleasedSummary] = []
                events.reserveCapacity(summary.devices.count)
                for (device, (digest, featured)) in zip(summary.devices, digests) {
                    seq += 1
                    try recordRelease.execute(arguments: [
                        device.deviceID, slot, summary.userID, seq, released,
                        summary.horizon.rowID, summary.horizon.seq, digest, featured,
                    ])
                    events.append(ReleasedSummary(deviceID: device.deviceID, seq: seq))
                }
                results.append(events)
            }
            return results
        }
    }

    public func summaryEvents(deviceID: String, after cursor: Int64, through last: Int64?, limit: Int) async throws
        -> [StoredSummaryEvent]
    {
        guard limit >= 0 else { throw StoreError(.invalid, "The limit must not be negative.") }
        return try await read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: Self.eventsSQL), arguments: [deviceID, cursor, last ?? Int64.max, limit]
            )
            let decoder = JSONDecoder()
            return try rows.map { row in
                let seq: Int64 = row[0]
                var notifications: [String: StoredNotification] = [:]
                for notification in try NotificationRow.fetchAll(
                    db, sql: Self.eventNotificationsSQL, arguments: [deviceID, row[3] as Int64, seq])
                {
                    notifications[notification.id] = notification
                }
                return StoredSummaryEvent(
                    seq: seq, deviceID: row[1], userID: row[2],
                    slot: Date(storedMilliseconds: row[3]), releasedAt: Date(storedMilliseconds: row[4]),
                    apps: try decoder.decode([SummaryAppGroup].self, from: Data((row[5] as String).utf8)),
                    featured: try decoder.decode([String].self, from: Data((row[6] as String).utf8)),
                    notifications: notifications
                )
            }
        }
    }

    public func lastSummaryDelivery(userID: String) async throws -> Date? {
        try await read { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(slot_ms) FROM summary_deliveries WHERE user_id = ?"),
                arguments: [userID]
            ).map(Date.init(storedMilliseconds:))
        }
    }

    public func usersWithSummary() async throws -> [SummaryUserRecord] {
        try await read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT s.user_id, s.schedule, p.preferences,
                            (SELECT MAX(slot_ms) FROM summary_deliveries d WHERE d.user_id = s.user_id)
                        FROM summary_schedules s LEFT JOIN user_preferences p USING (user_id)
                        WHERE json_array_length(s.schedule, '$.times') > 0
                        ORDER BY s.user_id
                        """))
            var users: [SummaryUserRecord] = []
            while let row = try rows.next() {
                let schedule = try PolicyJSON.decode(
                    SummarySchedule.self, from: try row.decode(atIndex: 1), "summary schedule")
                guard schedule.isOn else { continue }
                let preferencesJSON: String? = try row.decode(atIndex: 2)
                let preferences = try preferencesJSON.map {
                    try PolicyJSON.decode(UserPreferences.self, from: $0, "preferences")
                }
                let lastSlot: Int64? = try row.decode(atIndex: 3)
                users.append(
                    SummaryUserRecord(
                        userID: try row.decode(atIndex: 0),
                        schedule: schedule,
                        timeZone: preferences?.timeZone ?? UserPreferences().timeZone,
                        lastDeliveredSlot: lastSlot.map(Date.init(storedMilliseconds:))
                    ))
            }
            return users
        }
    }

    /// A device's digest and featured ids as the JSON `summary_releases` keeps (`SummaryAppGroup`).
    private static func digestJSON(_ device: DeviceSummary) -> (digest: String, featured: String) {
        var writer = JSONWriter(capacity: 64 + device.apps.reduce(0) { $0 + 32 + $1.ids.count * 40 })
        writer.beginArray()
        for app in device.apps {
            writer.beginObject()
            writer.key("bundle_id")
            writer.string(app.bundleID)
            writer.key("ids")
            writer.beginArray()
            for id in app.ids { writer.string(id) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        var featured = JSONWriter(capacity: 16 + device.featured.count * 40)
        featured.beginArray()
        for id in device.featured { featured.string(id) }
        featured.endArray()
        return (String(decoding: writer.bytes, as: UTF8.self), String(decoding: featured.bytes, as: UTF8.self))
    }
}
