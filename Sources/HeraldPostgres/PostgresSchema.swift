import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema: named migrations in raw DDL, applied in order, each once.
///
/// A migration that has shipped is never edited; a change is a new one appended at the end. Every
/// node runs `migrate` at start: in one transaction holding an advisory lock, so two nodes starting
/// together do not both apply one, and a failed migration leaves nothing half done (PostgreSQL's DDL
/// is transactional). Dates are BIGINT milliseconds since 1970 (UTC), as SQLite's store keeps them;
/// ids are `TEXT COLLATE "C"` so that they compare and sort byte by byte on any cluster.
enum PostgresSchema {
    /// The migrations, in order.
    static let migrations: [(name: String, sql: String)] = [
        ("pg1-registry", registry),
        ("pg2-app-resources", appResources),
        ("pg3-user-state", userState),
        ("pg4-service-extensions", serviceExtensions),
        ("pg5-notifications", notifications),
        ("pg6-summary-deliveries", summaryDeliveries),
        ("pg7-local-notifications", localNotifications),
        ("pg8-attachments", attachments),
        ("pg9-extension-job-claims", extensionJobClaims),
    ]

    /// The advisory lock the migrations hold: any constant of Herald's own ("herald" in ASCII).
    static let migrationLock: Int64 = 0x6865_7261_6c64

    static func migrate(_ store: PostgresStore) async throws {
        try await store.write { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: store.logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS herald_migrations (
                    name        TEXT COLLATE "C" PRIMARY KEY,
                    applied_at  BIGINT NOT NULL
                )
                """, logger: store.logger)
            var applied = Set<String>()
            for try await name in try await connection.query("SELECT name FROM herald_migrations", logger: store.logger)
                .decode(String.self)
            {
                applied.insert(name)
            }
            for migration in migrations where !applied.contains(migration.name) {
                store.logger.info("Applying database migration", metadata: ["migration": "\(migration.name)"])
                for statement in statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: store.logger)
                }
                let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                try await connection.query(
                    "INSERT INTO herald_migrations (name, applied_at) VALUES (\(migration.name), \(now))",
                    logger: store.logger)
            }
        }
    }

    /// A migration's statements, one by one (the extended query protocol runs one at a time): the
    /// text split after each `;` that ends a line. DDL only, so no `;` ends a line inside a statement.
    static func statements(_ sql: String) -> [String] {
        sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }
            .filter { statement in
                statement.split(separator: "\n").contains { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
            }
    }

    static let registry = """
        CREATE TABLE teams (
            team_id     TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(team_id) > 0),
            name        TEXT   NOT NULL,
            created_at  BIGINT NOT NULL
        );
        CREATE TABLE signing_keys (
            key_id          TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(key_id) > 0),
            team_id         TEXT COLLATE "C" NOT NULL REFERENCES teams (team_id),
            topics          TEXT[],
            public_key_pem  TEXT   NOT NULL,
            created_at      BIGINT NOT NULL
        );
        CREATE INDEX signing_keys_team ON signing_keys (team_id);
        CREATE TABLE apps (
            bundle_id        TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(bundle_id) > 0),
            team_id          TEXT COLLATE "C" NOT NULL REFERENCES teams (team_id),
            name             TEXT    NOT NULL,
            time_sensitive   BOOLEAN NOT NULL,
            critical_alerts  BOOLEAN NOT NULL,
            communication    BOOLEAN NOT NULL,
            created_at       BIGINT  NOT NULL
        );
        CREATE INDEX apps_team ON apps (team_id);
        CREATE TABLE users (
            user_id       TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(user_id) > 0),
            name          TEXT   NOT NULL,
            token_digest  TEXT COLLATE "C" NOT NULL UNIQUE CHECK (length(token_digest) > 0),
            created_at    BIGINT NOT NULL
        );
        CREATE TABLE devices (
            device_id   TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(device_id) > 0),
            user_id     TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            name        TEXT   NOT NULL,
            created_at  BIGINT NOT NULL
        );
        CREATE INDEX devices_user ON devices (user_id);
        CREATE TABLE device_tokens (
            token            TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(token) > 0),
            device_id        TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id        TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            created_at       BIGINT NOT NULL,
            unregistered_at  BIGINT
        );
        CREATE INDEX device_tokens_device ON device_tokens (device_id);
        -- A device has at most one live token per app.
        CREATE UNIQUE INDEX device_tokens_live_per_app
            ON device_tokens (device_id, bundle_id) WHERE unregistered_at IS NULL;
        """

    static let appResources = """
        -- Notification categories registered by an app (JSON owned by the API).
        CREATE TABLE app_categories (
            bundle_id   TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            identifier  TEXT COLLATE "C" NOT NULL CHECK (length(identifier) > 0),
            category    TEXT NOT NULL,
            PRIMARY KEY (bundle_id, identifier)
        );
        -- Localization files uploaded by an app, as uploaded. A String Catalog holds every locale.
        CREATE TABLE localization_files (
            bundle_id  TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            locale     TEXT COLLATE "C" NOT NULL CHECK (kind = 'xcstrings' OR length(locale) > 0),
            kind       TEXT COLLATE "C" NOT NULL CHECK (kind IN ('strings', 'stringsdict', 'xcstrings')),
            name       TEXT COLLATE "C" NOT NULL CHECK (length(name) > 0),
            data       BYTEA NOT NULL,
            PRIMARY KEY (bundle_id, locale, kind, name)
        );
        -- Each app's icon as its notifications show it: the image's bytes and sniffed MIME type.
        CREATE TABLE app_icons (
            bundle_id   TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
            type        TEXT   NOT NULL CHECK (length(type) > 0),
            data        BYTEA  NOT NULL CHECK (length(data) > 0),
            updated_at  BIGINT NOT NULL
        );
        -- Each app's web content extension: its options (JSON) and its HTML.
        CREATE TABLE content_extensions (
            bundle_id   TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
            options     TEXT   NOT NULL,
            html        TEXT   NOT NULL CHECK (length(html) > 0),
            updated_at  BIGINT NOT NULL
        );
        """

    static let userState = """
        CREATE TABLE user_preferences (
            user_id      TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES users (user_id),
            preferences  TEXT NOT NULL
        );
        CREATE TABLE app_settings (
            user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            bundle_id  TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            settings   TEXT NOT NULL,
            PRIMARY KEY (user_id, bundle_id)
        );
        -- A user's Focus modes in the order they were added (ties between modes go to the first).
        CREATE TABLE focus_modes (
            user_id   TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            focus_id  TEXT COLLATE "C" NOT NULL CHECK (length(focus_id) > 0),
            position  BIGINT NOT NULL,
            mode      TEXT   NOT NULL,
            PRIMARY KEY (user_id, focus_id),
            UNIQUE (user_id, position)
        );
        CREATE TABLE summary_schedules (
            user_id   TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES users (user_id),
            schedule  TEXT NOT NULL
        );
        CREATE TABLE device_states (
            device_id  TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES devices (device_id),
            state      TEXT NOT NULL
        );
        """

    /// Apps' notification service extensions (a process or a webhook, and its limits) and the pushes
    /// waiting for theirs (accepted — the provider has its 200 — and not yet in the device's list).
    /// Until when a node runs a job (`ExtensionJobRecord.claimedUntil`): 0 for the jobs kept before.
    static let extensionJobClaims = """
        ALTER TABLE extension_jobs ADD COLUMN claimed_until BIGINT NOT NULL DEFAULT 0;
        """

    static let serviceExtensions = """
        CREATE TABLE service_extensions (
            bundle_id           TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
            kind                TEXT   NOT NULL CHECK (kind IN ('process', 'webhook')),
            executable          TEXT,
            arguments           TEXT[] NOT NULL DEFAULT '{}',
            url                 TEXT,
            timeout_ms          BIGINT NOT NULL CHECK (timeout_ms > 0),
            memory_limit_bytes  BIGINT NOT NULL CHECK (memory_limit_bytes > 0),
            processes           BIGINT NOT NULL CHECK (processes > 0),
            created_at          BIGINT NOT NULL,
            secret              TEXT,
            CHECK ((kind = 'process') = (executable IS NOT NULL)),
            CHECK ((kind = 'webhook') = (url IS NOT NULL))
        );
        CREATE TABLE extension_jobs (
            id           TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            device_id    TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id    TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            token        TEXT   NOT NULL,
            topic        TEXT   NOT NULL,
            push_type    TEXT   NOT NULL,
            priority     BIGINT NOT NULL,
            expiration   BIGINT,
            collapse_id  TEXT,
            payload      TEXT   NOT NULL,
            received_at  BIGINT NOT NULL
        );
        CREATE INDEX extension_jobs_received ON extension_jobs (received_at, id);
        """

    /// The devices' notification lists and the one sequence of their changes (see
    /// `PostgresStore+Notifications.swift`): `herald_sequence` has one row, the latest seq, locked by
    /// each transaction that changes a list until it commits. `row_id` is the order of first inserts
    /// (SQLite's rowid), which a Scheduled Summary release's horizon compares with.
    static let notifications = """
        CREATE TABLE herald_sequence (
            one    BOOLEAN NOT NULL PRIMARY KEY DEFAULT TRUE CHECK (one),
            value  BIGINT  NOT NULL CHECK (value >= 0)
        );
        INSERT INTO herald_sequence (one, value) VALUES (TRUE, 0);
        CREATE TABLE notifications (
            row_id        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
            seq           BIGINT NOT NULL UNIQUE CHECK (seq > 0),
            id            TEXT COLLATE "C" NOT NULL CHECK (length(id) > 0),
            device_id     TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id     TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            topic         TEXT   NOT NULL,
            push_type     TEXT   NOT NULL CHECK (length(push_type) > 0),
            priority      BIGINT NOT NULL CHECK (priority IN (1, 5, 10)),
            collapse_id   TEXT COLLATE "C",
            expiration    BIGINT CHECK (expiration >= 0),
            payload       TEXT   NOT NULL,
            received_at   BIGINT NOT NULL,
            delivered_at  BIGINT,
            read_at       BIGINT,
            dismissed_at  BIGINT,
            removed_at    BIGINT,
            disposition   TEXT CHECK (disposition IS NULL OR length(disposition) > 0),
            decision      TEXT CHECK ((decision IS NULL) = (disposition IS NULL)),
            released_at   BIGINT,
            decided_seq   BIGINT,
            thread_key    TEXT COLLATE "C",
            attachments   TEXT,
            UNIQUE (device_id, id)
        );
        -- The change feed and the list of a device, in seq order.
        CREATE INDEX notifications_device_seq ON notifications (device_id, seq);
        -- A device has at most one live notification per app and collapse id.
        CREATE UNIQUE INDEX notifications_live_collapse ON notifications (device_id, bundle_id, collapse_id)
            WHERE removed_at IS NULL AND collapse_id IS NOT NULL;
        -- What waits for a Focus or the summary, per device, oldest first.
        CREATE INDEX notifications_held ON notifications (device_id, received_at)
            WHERE removed_at IS NULL AND disposition IN ('heldForFocus', 'heldForSummary');
        CREATE INDEX notifications_thread ON notifications (device_id, bundle_id, thread_key)
            WHERE removed_at IS NULL;
        CREATE INDEX notifications_with_attachments ON notifications (device_id) WHERE attachments IS NOT NULL;
        -- App badges per device: the badge of the latest push of each app whose decision applied it.
        CREATE TABLE device_app_badges (
            device_id        TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id        TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            badge            BIGINT NOT NULL CHECK (badge >= 0),
            notification_id  TEXT COLLATE "C" NOT NULL,
            seq              BIGINT NOT NULL,
            PRIMARY KEY (device_id, bundle_id)
        );
        -- Scheduled Summary releases (SQLite's v5): one row per device and summary time.
        CREATE TABLE summary_releases (
            device_id       TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            slot_ms         BIGINT NOT NULL,
            user_id         TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            seq             BIGINT NOT NULL UNIQUE CHECK (seq > 0),
            released_at     BIGINT NOT NULL,
            horizon_row_id  BIGINT NOT NULL,
            horizon_seq     BIGINT NOT NULL,
            -- The apps in digest order: [{"bundle_id", "ids": [...]}].
            digest          TEXT   NOT NULL,
            featured        TEXT[] NOT NULL,
            PRIMARY KEY (device_id, slot_ms)
        );
        CREATE INDEX summary_releases_device_seq ON summary_releases (device_id, seq);
        """

    /// One row per Scheduled Summary delivered: a user's summary time (slot) is delivered once.
    static let summaryDeliveries = """
        CREATE TABLE summary_deliveries (
            user_id       TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            slot_ms       BIGINT NOT NULL,
            delivered_at  BIGINT NOT NULL,
            digest        TEXT   NOT NULL,
            PRIMARY KEY (user_id, slot_ms)
        );
        """
}
