import GRDB

extension Schema {
    /// Apps' local notifications (`UNUserNotificationCenter` on Linux):
    /// - `app_credentials`: one bearer token (by its SHA-256 digest) per app on a device;
    /// - `local_requests`: pending requests, the trigger scheduler's queue, by next fire date. The
    ///   revision (AUTOINCREMENT: never reused) orders them by when they were added (a replaced request
    ///   gets a new one) and tells a firing whether its request is still the one it read;
    /// - `local_deliveries`: the request identifier of each local notification put into a list (the
    ///   list id is made from the app and the identifier, `LocalNotificationID`), so the app can list
    ///   and remove its delivered notifications by identifier.
    static func createLocalNotifications(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE app_credentials (
                    token_digest  TEXT    NOT NULL PRIMARY KEY CHECK (length(token_digest) > 0),
                    device_id     TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id     TEXT    NOT NULL REFERENCES apps (bundle_id),
                    created_at    INTEGER NOT NULL
                ) STRICT;
                CREATE INDEX app_credentials_app ON app_credentials (device_id, bundle_id);

                CREATE TABLE local_requests (
                    revision      INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id     TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id     TEXT    NOT NULL REFERENCES apps (bundle_id),
                    identifier    TEXT    NOT NULL CHECK (length(identifier) > 0),
                    content       TEXT    NOT NULL,
                    payload       TEXT    NOT NULL,
                    trigger       TEXT    NOT NULL,
                    added_at      INTEGER NOT NULL,
                    next_fire_at  INTEGER,
                    UNIQUE (device_id, bundle_id, identifier)
                ) STRICT;
                CREATE INDEX local_requests_due ON local_requests (next_fire_at) WHERE next_fire_at IS NOT NULL;

                CREATE TABLE local_deliveries (
                    device_id     TEXT    NOT NULL,
                    id            TEXT    NOT NULL,
                    bundle_id     TEXT    NOT NULL,
                    identifier    TEXT    NOT NULL,
                    -- The trigger that fired it (JSON); NULL for a request added without one.
                    trigger       TEXT,
                    PRIMARY KEY (device_id, id)
                ) STRICT, WITHOUT ROWID;

                -- Apps' requests for the person's permission; at most one pending per user and app.
                CREATE TABLE authorization_requests (
                    id            TEXT    NOT NULL PRIMARY KEY CHECK (length(id) > 0),
                    device_id     TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id     TEXT    NOT NULL REFERENCES apps (bundle_id),
                    user_id       TEXT    NOT NULL REFERENCES users (user_id),
                    options       TEXT    NOT NULL,
                    requested_at  INTEGER NOT NULL,
                    answered_at   INTEGER,
                    granted       INTEGER CHECK (granted IN (0, 1))
                ) STRICT;
                CREATE UNIQUE INDEX authorization_requests_pending
                    ON authorization_requests (user_id, bundle_id) WHERE answered_at IS NULL;
                CREATE INDEX authorization_requests_device ON authorization_requests (device_id, requested_at);

                -- People's responses to notifications, until the app's connection takes them (once).
                CREATE TABLE notification_responses (
                    position          INTEGER PRIMARY KEY AUTOINCREMENT,
                    id                TEXT    NOT NULL UNIQUE CHECK (length(id) > 0),
                    device_id         TEXT    NOT NULL REFERENCES devices (device_id),
                    bundle_id         TEXT    NOT NULL REFERENCES apps (bundle_id),
                    notification_id   TEXT    NOT NULL,
                    action_identifier TEXT    NOT NULL CHECK (length(action_identifier) > 0),
                    user_text         TEXT,
                    notification      TEXT    NOT NULL,
                    responded_at      INTEGER NOT NULL,
                    delivered_at      INTEGER
                ) STRICT;
                CREATE INDEX notification_responses_waiting
                    ON notification_responses (device_id, bundle_id, position) WHERE delivered_at IS NULL;
                """)
    }
}

extension Schema {
    /// Apps' webhooks for the person's responses:
    /// - `app_webhooks`: one per app, its url and signing secret;
    /// - `webhook_deliveries`: one per response of an app with a webhook, written in the response's
    ///   transaction, with the body every attempt sends, until the webhook acknowledges it
    ///   (`delivered_at`); failed attempts move `next_attempt_at` later.
    static func createAppWebhooks(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE app_webhooks (
                    bundle_id   TEXT    NOT NULL PRIMARY KEY REFERENCES apps (bundle_id),
                    url         TEXT    NOT NULL CHECK (length(url) > 0),
                    secret      TEXT    NOT NULL CHECK (length(secret) > 0),
                    created_at  INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE webhook_deliveries (
                    id               TEXT    NOT NULL PRIMARY KEY REFERENCES notification_responses (id),
                    bundle_id        TEXT    NOT NULL REFERENCES apps (bundle_id),
                    body             TEXT    NOT NULL,
                    attempts         INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at  INTEGER NOT NULL,
                    delivered_at     INTEGER,
                    last_error       TEXT,
                    last_failed_at   INTEGER
                ) STRICT;
                CREATE INDEX webhook_deliveries_due
                    ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL;
                CREATE INDEX webhook_deliveries_app ON webhook_deliveries (bundle_id, delivered_at);
                """)
    }
}

extension Schema {
    /// Apps' donated interactions (`INInteraction.donate`): a message or call as it happened, its
    /// direction, per user and app (donating an identifier again replaces it); the interaction as the
    /// app API's JSON.
    static func createInteractions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE interactions (
                    position          INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id           TEXT    NOT NULL REFERENCES users (user_id),
                    bundle_id         TEXT    NOT NULL REFERENCES apps (bundle_id),
                    device_id         TEXT    NOT NULL REFERENCES devices (device_id),
                    identifier        TEXT    NOT NULL CHECK (length(identifier) > 0),
                    group_identifier  TEXT,
                    direction         TEXT    NOT NULL CHECK (direction IN ('unspecified', 'outgoing', 'incoming')),
                    kind              TEXT    NOT NULL CHECK (kind IN ('message', 'call')),
                    interaction       TEXT    NOT NULL,
                    donated_at        INTEGER NOT NULL,
                    UNIQUE (user_id, bundle_id, identifier)
                ) STRICT;
                CREATE INDEX interactions_group ON interactions (user_id, bundle_id, group_identifier);
                """)
    }
}
