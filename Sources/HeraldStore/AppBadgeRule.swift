import GRDB
import HeraldCore
import HeraldPolicy

/// The app badge a notification sets (what the `notifications_badge_on_decision` trigger applies
/// for decision updates, in Swift for the group commit's inserts and the live streams' badge events).
public enum AppBadgeRule {
    /// The badge `notification` sets on its device: the payload's `aps.badge`, read as the payload
    /// parser reads it (a number, a numeric string or a boolean, 0…Int32.max), when its decision
    /// applies the badge (`"badge": true`); nil otherwise, or when either does not parse.
    public static func appliedBadge(_ notification: StoredNotification) -> Int? {
        guard !notification.isRemoved, notification.decisionAppliesBadge else { return nil }
        // A push carries its parsed payload: no scan of the text (on the writer thread, a 4 KB
        // payload's scan for "badge" was 3 µs a push).
        if let parsed = notification.arrival.payload { return parsed.aps.badge }
        guard JSONWriter.contains(#""badge""#, in: notification.payload) else { return nil }
        let value = (try? JSONParser.parse(Array(notification.payload.utf8)))?.objectValue?["aps"]?.objectValue?[
            "badge"]
        guard let number = value?.lenientNumber, number.isFinite, number >= 0, number <= Double(Int32.max) else {
            return nil
        }
        return Int(number)
    }

    /// The latest badge per device and app in one batch: one upsert each instead of one per row.
    /// Each engine stores them its own way (`SQLiteStore`: `store(_:)`; `PostgresStore` likewise).
    public struct Latest: Sendable {
        /// One app's badge on one device: the badge, the notification that set it and its seq.
        public struct Entry: Sendable {
            public var deviceID: String
            public var bundleID: String
            public var badge: Int
            public var notificationID: String
            public var seq: Int64
        }

        private struct Key: Hashable {
            var deviceID: String
            var bundleID: String
        }

        private var badges: [Key: (badge: Int, id: String, seq: Int64)] = [:]
        private var order: [Key] = []

        public init() {}

        public mutating func note(_ notification: StoredNotification, badge: Int, seq: Int64) {
            let key = Key(deviceID: notification.deviceID, bundleID: notification.bundleID)
            if badges.updateValue((badge, notification.id, seq), forKey: key) == nil { order.append(key) }
        }

        /// The latest of each device and app, in the order they were first noted.
        public var entries: [Entry] {
            order.compactMap { key in
                badges[key].map {
                    Entry(
                        deviceID: key.deviceID, bundleID: key.bundleID, badge: $0.badge, notificationID: $0.id,
                        seq: $0.seq)
                }
            }
        }

        func store(_ db: Database) throws {
            let entries = entries
            guard !entries.isEmpty else { return }
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO device_app_badges (device_id, bundle_id, badge, notification_id, seq) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (device_id, bundle_id) DO UPDATE SET
                        badge = excluded.badge, notification_id = excluded.notification_id, seq = excluded.seq
                    """)
            for entry in entries {
                try statement.execute(arguments: [
                    entry.deviceID, entry.bundleID, entry.badge, entry.notificationID, entry.seq,
                ])
            }
        }
    }
}
