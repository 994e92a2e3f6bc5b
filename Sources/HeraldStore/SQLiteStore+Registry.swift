import Foundation
import GRDB
import HeraldCore

// The registry: teams, signing keys, apps, users, devices and device tokens. Each write checks the
// expected failures first (for a precise message); the schema's constraints back the checks up.
// Messages name ids, never device tokens, token digests or keys.

extension SQLiteStore {
    public func registrySnapshot() async throws -> RegistrySnapshot {
        try await read { db in
            RegistrySnapshot(
                keys: try SigningKeyRow.fetchAll(db).map(\.key),
                apps: try AppRow.fetchAll(db).map(\.app),
                tokens: try DeviceTokenRow.fetchAll(db).map(\.record)
            )
        }
    }

    // MARK: Teams and keys

    public func createTeam(_ team: Team) async throws {
        try await write(ConstraintMessages(conflict: "A team with id \(team.teamID) already exists.")) { db in
            if try Self.exists(db, "SELECT 1 FROM teams WHERE team_id = ?", [team.teamID]) {
                throw StoreError(.conflict, "A team with id \(team.teamID) already exists.")
            }
            try TeamRow(team).insert(db)
        }
    }

    public func teams() async throws -> [Team] {
        try await read { db in
            try TeamRow.order(TeamRow.Columns.createdAt, TeamRow.Columns.teamID).fetchAll(db).map(\.team)
        }
    }

    public func createKey(_ key: SigningKey) async throws {
        let messages = ConstraintMessages(
            conflict: "A key with id \(key.keyID) already exists.",
            notFound: "There is no team with id \(key.teamID)."
        )
        try await write(messages) { db in
            guard try Self.exists(db, "SELECT 1 FROM teams WHERE team_id = ?", [key.teamID]) else {
                throw StoreError(.notFound, messages.notFound)
            }
            if try Self.exists(db, "SELECT 1 FROM signing_keys WHERE key_id = ?", [key.keyID]) {
                throw StoreError(.conflict, messages.conflict)
            }
            try SigningKeyRow(key).insert(db)
        }
    }

    public func keys() async throws -> [SigningKey] {
        try await read { db in
            try SigningKeyRow.order(SigningKeyRow.Columns.createdAt, SigningKeyRow.Columns.keyID).fetchAll(db).map(
                \.key)
        }
    }

    // MARK: Apps

    public func createApp(_ app: App) async throws {
        let messages = ConstraintMessages(
            conflict: "An app with bundle id \(app.bundleID) already exists.",
            notFound: "There is no team with id \(app.teamID)."
        )
        try await write(messages) { db in
            guard try Self.exists(db, "SELECT 1 FROM teams WHERE team_id = ?", [app.teamID]) else {
                throw StoreError(.notFound, messages.notFound)
            }
            if try Self.exists(db, "SELECT 1 FROM apps WHERE bundle_id = ?", [app.bundleID]) {
                throw StoreError(.conflict, messages.conflict)
            }
            try AppRow(app).insert(db)
        }
    }

    public func apps() async throws -> [App] {
        try await read { db in
            try AppRow.order(AppRow.Columns.createdAt, AppRow.Columns.bundleID).fetchAll(db).map(\.app)
        }
    }

    // MARK: Users and devices

    public func createUser(_ user: User, tokenDigest: String) async throws {
        let messages = ConstraintMessages(conflict: "A user with id \(user.userID) already exists.")
        try await write(messages) { db in
            if try Self.exists(db, "SELECT 1 FROM users WHERE user_id = ?", [user.userID]) {
                throw StoreError(.conflict, messages.conflict)
            }
            if try Self.exists(db, "SELECT 1 FROM users WHERE token_digest = ?", [tokenDigest]) {
                throw StoreError(.conflict, "Another user already has this token.")
            }
            try UserRow(user, tokenDigest: tokenDigest).insert(db)
        }
    }

    public func users() async throws -> [User] {
        try await read { db in
            try UserRow.order(UserRow.Columns.createdAt, UserRow.Columns.userID).fetchAll(db).map(\.user)
        }
    }

    public func user(tokenDigest: String) async throws -> User? {
        try await read { db in
            try UserRow.filter(UserRow.Columns.tokenDigest == tokenDigest).fetchOne(db)?.user
        }
    }

    public func createDevice(_ device: Device) async throws {
        let messages = ConstraintMessages(
            conflict: "A device with id \(device.deviceID) already exists.",
            notFound: "There is no user with id \(device.userID)."
        )
        try await write(messages) { db in
            guard try Self.exists(db, "SELECT 1 FROM users WHERE user_id = ?", [device.userID]) else {
                throw StoreError(.notFound, messages.notFound)
            }
            if try Self.exists(db, "SELECT 1 FROM devices WHERE device_id = ?", [device.deviceID]) {
                throw StoreError(.conflict, messages.conflict)
            }
            try DeviceRow(device).insert(db)
        }
    }

    public func device(id: String) async throws -> Device? {
        try await read { db in try DeviceRow.fetchOne(db, key: id)?.device }
    }

    public func devices(userID: String?) async throws -> [Device] {
        try await read { db in
            var request = DeviceRow.order(DeviceRow.Columns.createdAt, DeviceRow.Columns.deviceID)
            if let userID { request = request.filter(DeviceRow.Columns.userID == userID) }
            return try request.fetchAll(db).map(\.device)
        }
    }

    // MARK: Device tokens

    @discardableResult
    public func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord? {
        let messages = ConstraintMessages(
            conflict: "This device token is already registered.",
            notFound: "The device or the app does not exist."
        )
        return try await write(messages) { db in
            guard try Self.exists(db, "SELECT 1 FROM devices WHERE device_id = ?", [record.deviceID]) else {
                throw StoreError(.notFound, "There is no device with id \(record.deviceID).")
            }
            guard try Self.exists(db, "SELECT 1 FROM apps WHERE bundle_id = ?", [record.bundleID]) else {
                throw StoreError(.notFound, "There is no app with bundle id \(record.bundleID).")
            }
            if try Self.exists(db, "SELECT 1 FROM device_tokens WHERE token = ?", [record.token]) {
                throw StoreError(.conflict, messages.conflict)
            }
            var unregistered: DeviceTokenRecord?
            if record.unregisteredAt == nil {
                unregistered = try DeviceTokenRow.fetchOne(
                    db.cachedStatement(
                        sql: """
                            UPDATE device_tokens SET unregistered_at = ?
                            WHERE device_id = ? AND bundle_id = ? AND unregistered_at IS NULL
                            RETURNING *
                            """),
                    arguments: [record.createdAt.storedMilliseconds, record.deviceID, record.bundleID]
                )?.record
            }
            try DeviceTokenRow(record).insert(db)
            return unregistered
        }
    }

    public func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord? {
        try await write { db in
            try DeviceTokenRow.fetchOne(
                db.cachedStatement(
                    sql: """
                        UPDATE device_tokens SET unregistered_at = COALESCE(unregistered_at, ?)
                        WHERE token = ?
                        RETURNING *
                        """),
                arguments: [date.storedMilliseconds, token]
            )?.record
        }
    }

    public func deviceToken(_ token: String) async throws -> DeviceTokenRecord? {
        try await read { db in try DeviceTokenRow.filter(DeviceTokenRow.Columns.token == token).fetchOne(db)?.record }
    }

    public func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord] {
        try await read { db in
            var request = DeviceTokenRow.order(DeviceTokenRow.Columns.createdAt, DeviceTokenRow.Columns.token)
            if let deviceID { request = request.filter(DeviceTokenRow.Columns.deviceID == deviceID) }
            return try request.fetchAll(db).map(\.record)
        }
    }
}
