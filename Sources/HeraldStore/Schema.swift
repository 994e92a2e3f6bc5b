import GRDB

/// Herald's database schema: named migrations in raw DDL.
///
/// A migration that has shipped is never edited; a change to the schema is a new migration appended
/// at the end. Dates are INTEGER milliseconds since 1970 (UTC). Tables are STRICT, so SQLite rejects a
/// value of the wrong type instead of storing it.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-registry", migrate: createRegistry)
        migrator.registerMigration("v1-notifications", migrate: createNotifications)
        migrator.registerMigration("v2-policy", migrate: createPolicy)
        migrator.registerMigration("v3-thread-id", migrate: addThreadID)
        migrator.registerMigration("v4-app-badges", migrate: createAppBadges)
        migrator.registerMigration("v5-summary-releases", migrate: createSummaryReleases)
        migrator.registerMigration("v6-app-badge-prefilter", migrate: prefilterAppBadgeTriggers)
        migrator.registerMigration("v7-summary-candidates", migrate: createSummaryCandidatesIndex)
        migrator.registerMigration("v8-insert-badges-in-store", migrate: applyInsertBadgesInStore)
        migrator.registerMigration("v9-thread-key", migrate: storeThreadKey)
        migrator.registerMigration("v10-public-decision-shape", migrate: storePublicDecisionShape)
        migrator.registerMigration("v11-decision-badges-in-store", migrate: applyDecisionBadgesInStore)
        migrator.registerMigration("v12-one-thread-key", migrate: dropGeneratedThreadID)
        migrator.registerMigration("v13-local-notifications", migrate: createLocalNotifications)
        migrator.registerMigration("v14-app-webhooks", migrate: createAppWebhooks)
        migrator.registerMigration("v15-interactions", migrate: createInteractions)
        migrator.registerMigration("v16-service-extensions", migrate: createServiceExtensions)
        migrator.registerMigration("v17-attachments", migrate: createAttachments)
        migrator.registerMigration("v18-service-extension-secrets", migrate: addServiceExtensionSecrets)
        migrator.registerMigration("v19-app-icons", migrate: createAppIcons)
        migrator.registerMigration("v20-content-extensions", migrate: createContentExtensions)
        migrator.registerMigration("v21-extension-job-claims", migrate: addExtensionJobClaims)
        return migrator
    }

    /// Each app's icon as its notifications show it: the image's bytes and sniffed MIME type.
    private static func createAppIcons(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE app_icons (
                    bundle_id   TEXT    NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
                    type        TEXT    NOT NULL CHECK (length(type) > 0),
                    data        BLOB    NOT NULL CHECK (length(data) > 0),
                    updated_at  INTEGER NOT NULL
                ) STRICT;
                """)
    }

    /// Each app's web content extension: its options (JSON: categories, size ratio, flags) and its HTML.
    private static func createContentExtensions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE content_extensions (
                    bundle_id   TEXT    NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
                    options     TEXT    NOT NULL CHECK (json_valid(options)),
                    html        TEXT    NOT NULL CHECK (length(html) > 0),
                    updated_at  INTEGER NOT NULL
                ) STRICT;
                """)
    }

    private static func createRegistry(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE teams (
                    team_id     TEXT    NOT NULL PRIMARY KEY CHECK (length(team_id) > 0),
                    name        TEXT    NOT NULL,
                    created_at  INTEGER NOT NULL
                ) STRICT;

                CREATE TABLE signing_keys (
                    key_id          TEXT    NOT NULL PRIMARY KEY CHECK (length(key_id) > 0),
                    team_id         TEXT    NOT NULL REFERENCES teams (team_id),
                    topics          TEXT    CHECK (topics IS NULL OR json_type(topics) = 'array'),
                    public_key_pem  TEXT    NOT NULL,
                    created_at      INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX signing_keys_team ON signing_keys (team_id);

                CREATE TABLE apps (
                    bundle_id       TEXT    NOT NULL PRIMARY KEY CHECK (length(bundle_id) > 0),
                    team_id         TEXT    NOT NULL REFERENCES teams (team_id),
                    name            TEXT    NOT NULL,
                    time_sensitive  INTEGER NOT NULL CHECK (time_sensitive IN (0, 1)),
                    critical_alerts INTEGER NOT NULL CHECK (critical_alerts IN (0, 1)),
                    communication   INTEGER NOT NULL CHECK (communication IN (0, 1)),
                    created_at      INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX apps_team ON apps (team_id);

                CREATE TABLE users (
                    user_id       TEXT    NOT NULL PRIMARY KEY CHECK (length(user_id) > 0),
                    name          TEXT    NOT NULL,
                    token_digest  TEXT    NOT NULL UNIQUE CHECK (length(token_digest) > 0),
                    created_at    INTEGER NOT NULL
                ) STRICT;

                CREATE TABLE devices (
                    device_id   TEXT    NOT NULL PRIMARY KEY CHECK (length(device_id) > 0),
                    user_id     TEXT    NOT NULL REFERENCES users (user_id),
                    name        TEXT    NOT NULL,
                    created_at  INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX devices_user ON devices (user_id);

                CREATE TABLE device_tokens (
                    token            TEXT    NOT NULL PRIMARY KEY CHECK (length(token) > 0),
                    device_id        TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id        TEXT    NOT NULL REFERENCES apps (bundle_id),
                    created_at       INTEGER NOT NULL,
                    unregistered_at  INTEGER
                ) STRICT;
                CREATE INDEX device_tokens_device ON device_tokens (device_id);
                -- A device has at most one live token per app.
                CREATE UNIQUE INDEX device_tokens_live_per_app
                    ON device_tokens (device_id, bundle_id) WHERE unregistered_at IS NULL;
                """)
    }

    private static func createNotifications(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE notifications (
                    seq           INTEGER NOT NULL UNIQUE CHECK (seq > 0),
                    id            TEXT    NOT NULL CHECK (length(id) > 0),
                    device_id     TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id     TEXT    NOT NULL REFERENCES apps (bundle_id),
                    topic         TEXT    NOT NULL,
                    push_type     TEXT    NOT NULL CHECK (length(push_type) > 0),
                    priority      INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
                    collapse_id   TEXT,
                    expiration    INTEGER CHECK (expiration >= 0),
                    payload       TEXT    NOT NULL,
                    received_at   INTEGER NOT NULL,
                    delivered_at  INTEGER,
                    read_at       INTEGER,
                    dismissed_at  INTEGER,
                    removed_at    INTEGER,
                    UNIQUE (device_id, id)
                ) STRICT;
                -- The change feed and the list of a device, in seq order.
                CREATE INDEX notifications_device_seq ON notifications (device_id, seq);
                -- A device has at most one live notification per app and collapse id.
                CREATE UNIQUE INDEX notifications_live_collapse
                    ON notifications (device_id, bundle_id, collapse_id)
                    WHERE removed_at IS NULL AND collapse_id IS NOT NULL;
                """)
    }

    /// The delivery policy: each notification's decision, the user-side state it is decided with
    /// (shared by all devices of a user, kept as JSON text of the HeraldPolicy types), Scheduled
    /// Summary deliveries (one per user and summary time: exactly once), and the apps' categories and
    /// localization files.
    private static func createPolicy(_ db: Database) throws {
        try db.execute(
            sql: """
                -- The decision of a notification: the disposition's raw value and the Decision as JSON,
                -- both set or both NULL (not decided yet).
                ALTER TABLE notifications ADD COLUMN disposition TEXT
                    CHECK (disposition IS NULL OR length(disposition) > 0);
                ALTER TABLE notifications ADD COLUMN decision TEXT
                    CHECK ((decision IS NULL) = (disposition IS NULL) AND (decision IS NULL OR json_valid(decision)));
                ALTER TABLE notifications ADD COLUMN released_at INTEGER;
                -- What waits for a Focus or the summary, per device, oldest first.
                CREATE INDEX notifications_held ON notifications (device_id, received_at)
                    WHERE removed_at IS NULL AND disposition IN ('heldForFocus', 'heldForSummary');

                CREATE TABLE user_preferences (
                    user_id      TEXT NOT NULL PRIMARY KEY REFERENCES users (user_id),
                    preferences  TEXT NOT NULL CHECK (json_type(preferences) = 'object')
                ) STRICT;

                CREATE TABLE app_settings (
                    user_id    TEXT NOT NULL REFERENCES users (user_id),
                    bundle_id  TEXT NOT NULL REFERENCES apps (bundle_id),
                    settings   TEXT NOT NULL CHECK (json_type(settings) = 'object'),
                    PRIMARY KEY (user_id, bundle_id)
                ) STRICT, WITHOUT ROWID;

                -- A user's Focus modes in the order they were added (ties between modes go to the first).
                CREATE TABLE focus_modes (
                    user_id   TEXT    NOT NULL REFERENCES users (user_id),
                    focus_id  TEXT    NOT NULL CHECK (length(focus_id) > 0),
                    position  INTEGER NOT NULL,
                    mode      TEXT    NOT NULL CHECK (json_type(mode) = 'object'),
                    PRIMARY KEY (user_id, focus_id),
                    UNIQUE (user_id, position)
                ) STRICT, WITHOUT ROWID;

                CREATE TABLE summary_schedules (
                    user_id   TEXT NOT NULL PRIMARY KEY REFERENCES users (user_id),
                    schedule  TEXT NOT NULL CHECK (json_type(schedule) = 'object')
                ) STRICT;

                CREATE TABLE device_states (
                    device_id  TEXT NOT NULL PRIMARY KEY REFERENCES devices (device_id),
                    state      TEXT NOT NULL CHECK (json_type(state) = 'object')
                ) STRICT;

                -- One row per Scheduled Summary delivered: a summary time (slot) is delivered once.
                CREATE TABLE summary_deliveries (
                    user_id       TEXT    NOT NULL REFERENCES users (user_id),
                    slot_ms       INTEGER NOT NULL,
                    delivered_at  INTEGER NOT NULL,
                    digest        TEXT    NOT NULL CHECK (json_valid(digest)),
                    PRIMARY KEY (user_id, slot_ms)
                ) STRICT;

                -- Notification categories registered by an app (JSON owned by the API).
                CREATE TABLE app_categories (
                    bundle_id   TEXT NOT NULL REFERENCES apps (bundle_id),
                    identifier  TEXT NOT NULL CHECK (length(identifier) > 0),
                    category    TEXT NOT NULL CHECK (json_valid(category)),
                    PRIMARY KEY (bundle_id, identifier)
                ) STRICT, WITHOUT ROWID;

                -- Localization files uploaded by an app, as uploaded. A String Catalog holds every locale.
                CREATE TABLE localization_files (
                    bundle_id  TEXT NOT NULL REFERENCES apps (bundle_id),
                    locale     TEXT NOT NULL CHECK (kind = 'xcstrings' OR length(locale) > 0),
                    kind       TEXT NOT NULL CHECK (kind IN ('strings', 'stringsdict', 'xcstrings')),
                    name       TEXT NOT NULL CHECK (length(name) > 0),
                    data       BLOB NOT NULL,
                    PRIMARY KEY (bundle_id, locale, kind, name)
                ) STRICT;
                """)
    }

    /// The thread of a notification (`aps.thread-id`; NULL without one, or for an empty one) as a
    /// virtual column of the payload, and an index of the live ones per device, app and thread: the
    /// `%u` of a hidden preview and the threads view count them.
    /// The thread of a notification as a stored column, written by the insert, indexed instead of
    /// the generated `thread_id`: indexing the generated column made SQLite parse every payload
    /// twice on the writer's thread (measured: ~16 µs of ~60 µs per inserted row).
    private static func storeThreadKey(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE notifications ADD COLUMN thread_key TEXT;
                UPDATE notifications SET thread_key = thread_id WHERE thread_id IS NOT NULL;
                DROP INDEX notifications_thread;
                CREATE INDEX notifications_thread ON notifications (device_id, bundle_id, thread_key)
                    WHERE removed_at IS NULL;
                """)
    }

    /// The generated `thread_id` column of v3 goes: `thread_key` (written by the insert from
    /// `NotificationRow.threadKey`) is the one form of a notification's thread, and nothing read
    /// the second one since v9 (a second copy of the rule in SQL).
    private static func dropGeneratedThreadID(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE notifications DROP COLUMN thread_id")
    }

    private static func addThreadID(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE notifications ADD COLUMN thread_id TEXT GENERATED ALWAYS AS (
                    CASE WHEN json_valid(payload) THEN nullif(payload ->> '$.aps."thread-id"', '') END
                ) VIRTUAL;
                CREATE INDEX notifications_thread ON notifications (device_id, bundle_id, thread_id)
                    WHERE removed_at IS NULL;
                """)
    }
}
