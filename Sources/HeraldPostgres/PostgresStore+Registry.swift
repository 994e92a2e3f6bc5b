import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

// The registry: teams, signing keys, apps, users, devices and device tokens — as SQLiteStore keeps
// them. Each write checks the expected failures first (for a precise message); the schema's
// constraints back the checks up. Messages name ids, never device tokens, token digests or keys.

extension PostgresStore: RegistryStore {
    public func registrySnapshot() async throws -> RegistrySnapshot {
        try await read { connection in
            RegistrySnapshot(
                keys: try await Self.keys(connection, logger: self.logger),
                apps: try await Self.apps(connection, logger: self.logger),
                tokens: try await Self.tokens(connection, deviceID: nil, logger: self.logger))
        }
    }

    // MARK: Teams and keys

    public func createTeam(_ team: Team) async throws {
        let conflict = "A team with id \(team.teamID) already exists."
        try await write(ConstraintMessages(conflict: conflict)) { connection in
            try await self.notifyRegistryChange(connection)
            if try await Self.exists(
                connection, "SELECT 1 FROM teams WHERE team_id = \(team.teamID)", logger: self.logger)
            {
                throw StoreError(.conflict, conflict)
            }
            try await connection.query(
                "INSERT INTO teams (team_id, name, created_at) VALUES (\(team.teamID), \(team.name), \(team.createdAt.storedMilliseconds))",
                logger: self.logger)
        }
    }

    public func teams() async throws -> [Team] {
        try await read { connection in
            var teams: [Team] = []
            let rows = try await connection.query(
                "SELECT team_id, name, created_at FROM teams ORDER BY created_at, team_id", logger: self.logger)
            for try await (teamID, name, createdAt) in rows.decode((String, String, Int64).self) {
                teams.append(Team(teamID: teamID, name: name, createdAt: Date(storedMilliseconds: createdAt)))
            }
            return teams
        }
    }

    public func createKey(_ key: SigningKey) async throws {
        let messages = ConstraintMessages(
            conflict: "A key with id \(key.keyID) already exists.", notFound: "There is no team with id \(key.teamID).")
        try await write(messages) { connection in
            try await self.notifyRegistryChange(connection)
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM teams WHERE team_id = \(key.teamID)", logger: self.logger)
            else { throw StoreError(.notFound, messages.notFound) }
            if try await Self.exists(
                connection, "SELECT 1 FROM signing_keys WHERE key_id = \(key.keyID)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            try await connection.query(
                """
                INSERT INTO signing_keys (key_id, team_id, topics, public_key_pem, created_at)
                VALUES (\(key.keyID), \(key.teamID), \(key.topics), \(key.publicKeyPEM), \(key.createdAt.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    public func keys() async throws -> [SigningKey] {
        try await read { connection in try await Self.keys(connection, logger: self.logger) }
    }

    static func keys(_ connection: PostgresConnection, logger: Logger) async throws -> [SigningKey] {
        var keys: [SigningKey] = []
        let rows = try await connection.query(
            "SELECT key_id, team_id, topics, public_key_pem, created_at FROM signing_keys ORDER BY created_at, key_id",
            logger: logger)
        for try await (keyID, teamID, topics, pem, createdAt) in rows.decode(
            (String, String, [String]?, String, Int64).self)
        {
            keys.append(
                SigningKey(
                    keyID: keyID, teamID: teamID, topics: topics, publicKeyPEM: pem,
                    createdAt: Date(storedMilliseconds: createdAt)))
        }
        return keys
    }

    // MARK: Apps

    public func createApp(_ app: App) async throws {
        let messages = ConstraintMessages(
            conflict: "An app with bundle id \(app.bundleID) already exists.",
            notFound: "There is no team with id \(app.teamID).")
        try await write(messages) { connection in
            try await self.notifyRegistryChange(connection)
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM teams WHERE team_id = \(app.teamID)", logger: self.logger)
            else { throw StoreError(.notFound, messages.notFound) }
            if try await Self.exists(
                connection, "SELECT 1 FROM apps WHERE bundle_id = \(app.bundleID)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            let entitlements = app.entitlements
            try await connection.query(
                """
                INSERT INTO apps (bundle_id, team_id, name, time_sensitive, critical_alerts, communication, created_at)
                VALUES (\(app.bundleID), \(app.teamID), \(app.name), \(entitlements.timeSensitive),
                        \(entitlements.criticalAlerts), \(entitlements.communication), \(app.createdAt.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    public func apps() async throws -> [App] {
        try await read { connection in try await Self.apps(connection, logger: self.logger) }
    }

    static func apps(_ connection: PostgresConnection, logger: Logger) async throws -> [App] {
        var apps: [App] = []
        let rows = try await connection.query(
            """
            SELECT bundle_id, team_id, name, time_sensitive, critical_alerts, communication, created_at
            FROM apps ORDER BY created_at, bundle_id
            """, logger: logger)
        for try await (bundleID, teamID, name, timeSensitive, criticalAlerts, communication, createdAt) in rows.decode(
            (String, String, String, Bool, Bool, Bool, Int64).self)
        {
            apps.append(
                App(
                    bundleID: bundleID, teamID: teamID, name: name,
                    entitlements: Entitlements(
                        timeSensitive: timeSensitive, criticalAlerts: criticalAlerts, communication: communication),
                    createdAt: Date(storedMilliseconds: createdAt)))
        }
        return apps
    }

    // MARK: Users and devices

    public func createUser(_ user: User, tokenDigest: String) async throws {
        let messages = ConstraintMessages(conflict: "A user with id \(user.userID) already exists.")
        try await write(messages) { connection in
            try await self.notifyRegistryChange(connection)
            if try await Self.exists(
                connection, "SELECT 1 FROM users WHERE user_id = \(user.userID)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            if try await Self.exists(
                connection, "SELECT 1 FROM users WHERE token_digest = \(tokenDigest)", logger: self.logger)
            {
                throw StoreError(.conflict, "Another user already has this token.")
            }
            try await connection.query(
                """
                INSERT INTO users (user_id, name, token_digest, created_at)
                VALUES (\(user.userID), \(user.name), \(tokenDigest), \(user.createdAt.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    public func users() async throws -> [User] {
        try await read { connection in
            try await Self.users(
                connection, "SELECT user_id, name, created_at FROM users ORDER BY created_at, user_id",
                logger: self.logger)
        }
    }

    public func user(tokenDigest: String) async throws -> User? {
        try await read { connection in
            try await Self.users(
                connection, "SELECT user_id, name, created_at FROM users WHERE token_digest = \(tokenDigest)",
                logger: self.logger
            ).first
        }
    }

    private static func users(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws
        -> [User]
    {
        var users: [User] = []
        for try await (userID, name, createdAt) in try await connection.query(query, logger: logger).decode(
            (String, String, Int64).self)
        {
            users.append(User(userID: userID, name: name, createdAt: Date(storedMilliseconds: createdAt)))
        }
        return users
    }

    public func createDevice(_ device: Device) async throws {
        let messages = ConstraintMessages(
            conflict: "A device with id \(device.deviceID) already exists.",
            notFound: "There is no user with id \(device.userID).")
        try await write(messages) { connection in
            try await self.notifyRegistryChange(connection)
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM users WHERE user_id = \(device.userID)", logger: self.logger)
            else { throw StoreError(.notFound, messages.notFound) }
            if try await Self.exists(
                connection, "SELECT 1 FROM devices WHERE device_id = \(device.deviceID)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            try await connection.query(
                """
                INSERT INTO devices (device_id, user_id, name, created_at)
                VALUES (\(device.deviceID), \(device.userID), \(device.name), \(device.createdAt.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    public func device(id: String) async throws -> Device? {
        try await read { connection in
            try await Self.devices(
                connection, "SELECT device_id, user_id, name, created_at FROM devices WHERE device_id = \(id)",
                logger: self.logger
            ).first
        }
    }

    public func devices(userID: String?) async throws -> [Device] {
        try await read { connection in
            if let userID {
                return try await Self.devices(
                    connection,
                    """
                    SELECT device_id, user_id, name, created_at FROM devices WHERE user_id = \(userID)
                    ORDER BY created_at, device_id
                    """, logger: self.logger)
            }
            return try await Self.devices(
                connection, "SELECT device_id, user_id, name, created_at FROM devices ORDER BY created_at, device_id",
                logger: self.logger)
        }
    }

    private static func devices(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws
        -> [Device]
    {
        var devices: [Device] = []
        for try await (deviceID, userID, name, createdAt) in try await connection.query(query, logger: logger).decode(
            (String, String, String, Int64).self)
        {
            devices.append(
                Device(deviceID: deviceID, userID: userID, name: name, createdAt: Date(storedMilliseconds: createdAt)))
        }
        return devices
    }

    // MARK: Device tokens

    @discardableResult
    public func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord? {
        let messages = ConstraintMessages(
            conflict: "This device token is already registered.", notFound: "The device or the app does not exist.")
        return try await write(messages) { connection in
            try await self.notifyRegistryChange(connection)
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM devices WHERE device_id = \(record.deviceID)", logger: self.logger)
            else { throw StoreError(.notFound, "There is no device with id \(record.deviceID).") }
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM apps WHERE bundle_id = \(record.bundleID)", logger: self.logger)
            else { throw StoreError(.notFound, "There is no app with bundle id \(record.bundleID).") }
            if try await Self.exists(
                connection, "SELECT 1 FROM device_tokens WHERE token = \(record.token)", logger: self.logger)
            {
                throw StoreError(.conflict, messages.conflict)
            }
            var unregistered: DeviceTokenRecord?
            if record.unregisteredAt == nil {
                unregistered = try await Self.tokens(
                    connection,
                    """
                    UPDATE device_tokens SET unregistered_at = \(record.createdAt.storedMilliseconds)
                    WHERE device_id = \(record.deviceID) AND bundle_id = \(record.bundleID) AND unregistered_at IS NULL
                    RETURNING \(unescaped: Self.tokenColumns)
                    """, logger: self.logger
                ).first
            }
            try await connection.query(
                """
                INSERT INTO device_tokens (token, device_id, bundle_id, created_at, unregistered_at)
                VALUES (\(record.token), \(record.deviceID), \(record.bundleID), \(record.createdAt.storedMilliseconds),
                        \(record.unregisteredAt?.storedMilliseconds))
                """, logger: self.logger)
            return unregistered
        }
    }

    public func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord? {
        try await write { connection in
            try await self.notifyRegistryChange(connection)
            return try await Self.tokens(
                connection,
                """
                UPDATE device_tokens SET unregistered_at = COALESCE(unregistered_at, \(date.storedMilliseconds))
                WHERE token = \(token)
                RETURNING \(unescaped: Self.tokenColumns)
                """, logger: self.logger
            ).first
        }
    }

    public func deviceToken(_ token: String) async throws -> DeviceTokenRecord? {
        try await read { connection in
            try await Self.tokens(
                connection, "SELECT \(unescaped: Self.tokenColumns) FROM device_tokens WHERE token = \(token)",
                logger: self.logger
            ).first
        }
    }

    public func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord] {
        try await read { connection in try await Self.tokens(connection, deviceID: deviceID, logger: self.logger) }
    }

    static let tokenColumns = "token, device_id, bundle_id, created_at, unregistered_at"

    static func tokens(_ connection: PostgresConnection, deviceID: String?, logger: Logger) async throws
        -> [DeviceTokenRecord]
    {
        if let deviceID {
            return try await tokens(
                connection,
                """
                SELECT \(unescaped: tokenColumns) FROM device_tokens WHERE device_id = \(deviceID)
                ORDER BY created_at, token
                """, logger: logger)
        }
        return try await tokens(
            connection, "SELECT \(unescaped: tokenColumns) FROM device_tokens ORDER BY created_at, token",
            logger: logger)
    }

    private static func tokens(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws
        -> [DeviceTokenRecord]
    {
        var tokens: [DeviceTokenRecord] = []
        for try await (token, deviceID, bundleID, createdAt, unregisteredAt) in try await connection.query(
            query, logger: logger
        )
        .decode((String, String, String, Int64, Int64?).self) {
            tokens.append(
                DeviceTokenRecord(
                    token: token, deviceID: deviceID, bundleID: bundleID,
                    createdAt: Date(storedMilliseconds: createdAt),
                    unregisteredAt: unregisteredAt.map(Date.init(storedMilliseconds:))))
        }
        return tokens
    }
}
