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
        try db.execute(
            sql: """
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

    /// What a Scheduled Summary reads at its time, without reading the notifications themselves: a
    /// covering index of the live notifications held for the summary, with the columns a release's
    /// cover needs and the payload's relevance score (so the read of 10,000 users × 100 held reads
    /// index pages, not 1,000,000 rows). Only notifications held for the summary are in it.
    static func createSummaryCandidatesIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX notifications_summary_candidates ON notifications (
                    device_id, received_at, disposition, removed_at, decided_seq, id, bundle_id,
                    payload -> '$.aps."relevance-score"'
                ) WHERE removed_at IS NULL AND disposition = 'heldForSummary';
                """)
    }
}
