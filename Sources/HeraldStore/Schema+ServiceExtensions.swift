import GRDB

extension Schema {
    /// Apps' notification service extensions (`service_extensions`: a process or a webhook, and its
    /// limits) and the pushes waiting for theirs (`extension_jobs`: accepted — the provider has its
    /// 200 — and not yet in the device's list).
    static func createServiceExtensions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE service_extensions (
                    bundle_id          TEXT    NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
                    kind               TEXT    NOT NULL CHECK (kind IN ('process', 'webhook')),
                    executable         TEXT,
                    arguments          TEXT    NOT NULL DEFAULT '[]' CHECK (json_type(arguments) = 'array'),
                    url                TEXT,
                    timeout_ms         INTEGER NOT NULL CHECK (timeout_ms > 0),
                    memory_limit_bytes INTEGER NOT NULL CHECK (memory_limit_bytes > 0),
                    processes          INTEGER NOT NULL CHECK (processes > 0),
                    created_at         INTEGER NOT NULL,
                    CHECK ((kind = 'process') = (executable IS NOT NULL)),
                    CHECK ((kind = 'webhook') = (url IS NOT NULL))
                ) STRICT;
                CREATE TABLE extension_jobs (
                    id           TEXT    NOT NULL PRIMARY KEY,
                    device_id    TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id    TEXT    NOT NULL REFERENCES apps (bundle_id),
                    token        TEXT    NOT NULL,
                    topic        TEXT    NOT NULL,
                    push_type    TEXT    NOT NULL,
                    priority     INTEGER NOT NULL,
                    expiration   INTEGER,
                    collapse_id  TEXT,
                    payload      TEXT    NOT NULL,
                    received_at  INTEGER NOT NULL
                ) STRICT;
                """)
    }
}

extension Schema {
    /// A webhook extension's signing secret (`whsec_…`, as the app webhooks'): Herald signs each
    /// request so the webhook can tell it came from Herald. A webhook registered before has one made.
    /// Until when a node runs a job (`ExtensionJobRecord.claimedUntil`, milliseconds): 0 for the jobs
    /// kept before, which any node may take.
    static func addExtensionJobClaims(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE extension_jobs ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0")
    }

    static func addServiceExtensionSecrets(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE service_extensions ADD COLUMN secret TEXT;
                UPDATE service_extensions SET secret = 'whsec_' || hex(randomblob(32)) WHERE kind = 'webhook';
                """)
    }
}

extension Schema {
    /// Attachments (`UNNotificationAttachment`): the files apps and their extensions gave
    /// (`attachments`: who gave it, its sniffed type and size; the file is the data directory's
    /// `attachments/<id>`), and the notifications that show them (`notifications.attachments`, JSON;
    /// the partial index finds a device's notifications with attachments for the sweeper); the summary
    /// candidates' covering index gains whether a notification has media (the digest ranks by it).
    static func createAttachments(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE attachments (
                    id          TEXT    NOT NULL PRIMARY KEY,
                    bundle_id   TEXT    NOT NULL REFERENCES apps (bundle_id),
                    device_id   TEXT    NOT NULL REFERENCES devices (device_id),
                    identifier  TEXT    NOT NULL,
                    type        TEXT    NOT NULL,
                    size        INTEGER NOT NULL CHECK (size >= 0),
                    created_at  INTEGER NOT NULL,
                    linked_at   INTEGER
                ) STRICT;
                CREATE INDEX attachments_app ON attachments (bundle_id);
                CREATE INDEX attachments_created ON attachments (created_at);
                ALTER TABLE notifications ADD COLUMN attachments TEXT;
                CREATE INDEX notifications_with_attachments ON notifications (device_id) WHERE attachments IS NOT NULL;
                DROP INDEX notifications_summary_candidates;
                CREATE INDEX notifications_summary_candidates ON notifications (
                    device_id, received_at, disposition, removed_at, decided_seq, id, bundle_id,
                    payload -> '$.aps."relevance-score"', attachments IS NOT NULL
                ) WHERE removed_at IS NULL AND disposition = 'heldForSummary';
                """)
    }
}
