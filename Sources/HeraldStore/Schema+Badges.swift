import GRDB

extension Schema {
    /// App badges per device: the badge of the latest push of each app whose decision applied it.
    ///
    /// Triggers keep the table in the transaction that writes the notification (the group commit's
    /// insert, a provider's retry replacing a row, a held notification's release by a new decision),
    /// so the badge is never behind the list. A decision applies the badge when its `badge` is true
    /// (HeraldPolicy's `Decision.badge`: never for `notDelivered` or held ones) and the payload has
    /// `aps.badge`; 0 clears it (the row stays with 0). Reading, dismissing and removing
    /// notifications leave badges alone, as on iOS. A decision written again without the badge
    /// becoming applied (the same content, already applied) changes nothing.
    static func createAppBadges(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE device_app_badges (
                    device_id        TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id        TEXT    NOT NULL REFERENCES apps (bundle_id),
                    badge            INTEGER NOT NULL CHECK (badge >= 0),
                    -- The notification that set it and the seq of that change.
                    notification_id  TEXT    NOT NULL,
                    seq              INTEGER NOT NULL,
                    PRIMARY KEY (device_id, bundle_id)
                ) STRICT, WITHOUT ROWID;

                CREATE TRIGGER notifications_badge_on_insert AFTER INSERT ON notifications
                WHEN \(appliesBadge("NEW"))
                BEGIN
                    \(upsertBadge)
                END;

                CREATE TRIGGER notifications_badge_on_decision AFTER UPDATE OF decision ON notifications
                WHEN NEW.removed_at IS NULL AND \(appliesBadge("NEW")) AND (
                    NOT \(appliesBadge("OLD"))
                    OR OLD.received_at IS NOT NEW.received_at OR OLD.payload IS NOT NEW.payload)
                BEGIN
                    \(upsertBadge)
                END;
                """)
    }

    /// The badge triggers again, each first looking for `"badge"` in the payload: most pushes carry
    /// none, and a text search is cheaper than parsing the decision and the payload as JSON
    /// (measured on 100,000 inserts of a 250-byte payload: ~6 µs → ~2 µs per insert without a
    /// badge). A payload that spells the key with escapes (`"\u0062adge"`) sets no badge.
    static func prefilterAppBadgeTriggers(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TRIGGER notifications_badge_on_insert;
                DROP TRIGGER notifications_badge_on_decision;

                CREATE TRIGGER notifications_badge_on_insert AFTER INSERT ON notifications
                WHEN (CASE WHEN instr(NEW.payload, '"badge"') = 0 THEN 0 ELSE \(appliesBadge("NEW")) END)
                BEGIN
                    \(upsertBadge)
                END;

                CREATE TRIGGER notifications_badge_on_decision AFTER UPDATE OF decision ON notifications
                WHEN (CASE WHEN instr(NEW.payload, '"badge"') = 0 OR NEW.removed_at IS NOT NULL THEN 0
                    ELSE \(appliesBadge("NEW")) AND (
                        NOT \(appliesBadge("OLD"))
                        OR OLD.received_at IS NOT NEW.received_at OR OLD.payload IS NOT NEW.payload) END)
                BEGIN
                    \(upsertBadge)
                END;
                """)
    }

    /// The insert trigger goes: the group commit applies the badges of the rows it inserts itself
    /// (`SQLiteStore.insert`, one upsert per app and device per batch, read in Swift before the
    /// transaction). The trigger parsed the payload and the decision several times per row on the
    /// writer's thread: about half of SQLite's time per insert (measured: 60 → 29 µs per row).
    /// The decision trigger stays for releases and other decision updates.
    static func applyInsertBadgesInStore(_ db: Database) throws {
        try db.execute(sql: "DROP TRIGGER notifications_badge_on_insert")
    }

    /// The decision trigger goes too: `SQLiteStore.updateDecision` applies the badge of a decision
    /// that starts applying it with `AppBadgeRule`, the one badge rule (it read the decision's JSON
    /// in SQL, a second copy of the rule that a renamed key would have broken silently).
    static func applyDecisionBadgesInStore(_ db: Database) throws {
        try db.execute(sql: "DROP TRIGGER notifications_badge_on_decision")
    }

    /// Whether the row `row` (NEW or OLD) has a decision that applies a badge its payload carries.
    /// CASE evaluates lazily, so a payload SQLite can't read never fails the write.
    private static func appliesBadge(_ row: String) -> String {
        """
        (CASE WHEN \(row).decision IS NULL OR json_extract(\(row).decision, '$.badge') IS NOT 1 THEN 0
              WHEN NOT json_valid(\(row).payload) THEN 0
              ELSE json_type(\(row).payload, '$.aps.badge') IN ('integer', 'real', 'text', 'true', 'false') END)
        """
    }

    /// The payload's `aps.badge` read as the payload parser reads it (`JSONValue.lenientNumber`:
    /// a number, a numeric string, or a boolean), truncated to a whole number.
    private static let badgeValue = """
        max(0, CASE json_type(NEW.payload, '$.aps.badge')
            WHEN 'true' THEN 1 WHEN 'false' THEN 0
            ELSE CAST(CAST(trim(json_extract(NEW.payload, '$.aps.badge')) AS REAL) AS INTEGER) END)
        """

    private static let upsertBadge = """
        INSERT INTO device_app_badges (device_id, bundle_id, badge, notification_id, seq)
        VALUES (NEW.device_id, NEW.bundle_id, \(badgeValue), NEW.id, NEW.seq)
        ON CONFLICT (device_id, bundle_id) DO UPDATE SET
            badge = excluded.badge, notification_id = excluded.notification_id, seq = excluded.seq;
        """
}
