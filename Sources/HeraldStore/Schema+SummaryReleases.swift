import GRDB

extension Schema {
    /// Scheduled Summary releases without rewriting the released notifications: one row per device
    /// and summary time, written with the user's `summary_deliveries` row. A notification is released
    /// by the first release of its device that covers it (see `SummaryOverlay`): it was held for the
    /// summary when the release read the store (row id and last decision at or before the horizon)
    /// and arrived at or before the summary time. Its `seq` is the `summary` event of the device's
    /// change feed.
    ///
    /// `decided_seq` is the seq at which a notification's decision was last set after its insert
    /// (NULL: decided when inserted), so a notification held again for the summary after a release
    /// is not taken for one that release covered.
    static func createSummaryReleases(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE notifications ADD COLUMN decided_seq INTEGER;

            CREATE TABLE summary_releases (
                device_id      TEXT    NOT NULL REFERENCES devices (device_id),
                slot_ms        INTEGER NOT NULL,
                user_id        TEXT    NOT NULL REFERENCES users (user_id),
                seq            INTEGER NOT NULL UNIQUE CHECK (seq > 0),
                released_at    INTEGER NOT NULL,
                horizon_rowid  INTEGER NOT NULL,
                horizon_seq    INTEGER NOT NULL,
                -- The apps in digest order: [{"bundle_id", "ids": [...]}].
                digest         TEXT    NOT NULL CHECK (json_type(digest) = 'array'),
                -- The featured notification ids.
                featured       TEXT    NOT NULL CHECK (json_type(featured) = 'array'),
                PRIMARY KEY (device_id, slot_ms)
            ) STRICT;
            CREATE INDEX summary_releases_device_seq ON summary_releases (device_id, seq);
            """)
    }
}
