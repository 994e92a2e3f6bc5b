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
        return migrator
    }

    private static func createRegistry(_ db: Database) throws {
        try db.execute(sql: """
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
        try db.execute(sql: """
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
}
