// The migrations of what apps do on devices: local notifications, permission, responses, webhooks,
// interactions and attachments (`PostgresSchema.migrations` lists them in order).

extension PostgresSchema {
    /// What apps on devices do through `UNUserNotificationCenter` (SQLite's v13–v15): credentials,
    /// pending local requests (the trigger scheduler's queue; `revision` orders them by when they
    /// were added and is never reused), the request identifier of each local notification delivered,
    /// authorization requests (at most one pending per user and app), people's responses until the
    /// app's connection takes them, webhooks with their deliveries, and donated interactions.
    static let localNotifications = """
        CREATE TABLE app_credentials (
            token_digest  TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(token_digest) > 0),
            device_id     TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id     TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            created_at    BIGINT NOT NULL
        );
        CREATE INDEX app_credentials_app ON app_credentials (device_id, bundle_id);
        CREATE TABLE local_requests (
            revision      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            device_id     TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id     TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            identifier    TEXT COLLATE "C" NOT NULL CHECK (length(identifier) > 0),
            content       TEXT   NOT NULL,
            payload       TEXT   NOT NULL,
            trigger       TEXT   NOT NULL,
            added_at      BIGINT NOT NULL,
            next_fire_at  BIGINT,
            UNIQUE (device_id, bundle_id, identifier)
        );
        CREATE INDEX local_requests_due ON local_requests (next_fire_at) WHERE next_fire_at IS NOT NULL;
        CREATE INDEX local_requests_app ON local_requests (device_id, bundle_id, revision);
        CREATE TABLE local_deliveries (
            device_id     TEXT COLLATE "C" NOT NULL,
            id            TEXT COLLATE "C" NOT NULL,
            bundle_id     TEXT COLLATE "C" NOT NULL,
            identifier    TEXT COLLATE "C" NOT NULL,
            trigger       TEXT,
            PRIMARY KEY (device_id, id)
        );
        CREATE TABLE authorization_requests (
            id            TEXT COLLATE "C" NOT NULL PRIMARY KEY CHECK (length(id) > 0),
            device_id     TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id     TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            user_id       TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            options       TEXT[] NOT NULL,
            requested_at  BIGINT NOT NULL,
            answered_at   BIGINT,
            granted       BOOLEAN
        );
        CREATE UNIQUE INDEX authorization_requests_pending
            ON authorization_requests (user_id, bundle_id) WHERE answered_at IS NULL;
        CREATE INDEX authorization_requests_device ON authorization_requests (device_id, requested_at);
        CREATE TABLE notification_responses (
            position          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id                TEXT COLLATE "C" NOT NULL UNIQUE CHECK (length(id) > 0),
            device_id         TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            bundle_id         TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            notification_id   TEXT COLLATE "C" NOT NULL,
            action_identifier TEXT   NOT NULL CHECK (length(action_identifier) > 0),
            user_text         TEXT,
            notification      TEXT   NOT NULL,
            responded_at      BIGINT NOT NULL,
            delivered_at      BIGINT
        );
        CREATE INDEX notification_responses_waiting
            ON notification_responses (device_id, bundle_id, position) WHERE delivered_at IS NULL;
        CREATE TABLE app_webhooks (
            bundle_id   TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
            url         TEXT   NOT NULL CHECK (length(url) > 0),
            secret      TEXT   NOT NULL CHECK (length(secret) > 0),
            created_at  BIGINT NOT NULL
        );
        CREATE TABLE webhook_deliveries (
            id               TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES notification_responses (id),
            bundle_id        TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            body             TEXT   NOT NULL,
            attempts         BIGINT NOT NULL DEFAULT 0,
            next_attempt_at  BIGINT NOT NULL,
            delivered_at     BIGINT,
            last_error       TEXT,
            last_failed_at   BIGINT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL;
        CREATE INDEX webhook_deliveries_app ON webhook_deliveries (bundle_id, delivered_at);
        CREATE TABLE interactions (
            position          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_id           TEXT COLLATE "C" NOT NULL REFERENCES users (user_id),
            bundle_id         TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            device_id         TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            identifier        TEXT COLLATE "C" NOT NULL CHECK (length(identifier) > 0),
            group_identifier  TEXT COLLATE "C",
            direction         TEXT NOT NULL CHECK (direction IN ('unspecified', 'outgoing', 'incoming')),
            kind              TEXT NOT NULL CHECK (kind IN ('message', 'call')),
            interaction       TEXT NOT NULL,
            donated_at        BIGINT NOT NULL,
            UNIQUE (user_id, bundle_id, identifier)
        );
        CREATE INDEX interactions_group ON interactions (user_id, bundle_id, group_identifier);
        CREATE INDEX interactions_direction ON interactions (user_id, direction, donated_at);
        """

    /// The files notifications show (SQLite's v17): who gave each, its sniffed type and size; the
    /// file itself is kept by the node's attachment directory (shared storage across nodes).
    static let attachments = """
        CREATE TABLE attachments (
            id          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            bundle_id   TEXT COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
            device_id   TEXT COLLATE "C" NOT NULL REFERENCES devices (device_id),
            identifier  TEXT   NOT NULL,
            type        TEXT   NOT NULL,
            size        BIGINT NOT NULL CHECK (size >= 0),
            created_at  BIGINT NOT NULL,
            linked_at   BIGINT
        );
        CREATE INDEX attachments_app ON attachments (bundle_id);
        CREATE INDEX attachments_created ON attachments (created_at);
        """
}
