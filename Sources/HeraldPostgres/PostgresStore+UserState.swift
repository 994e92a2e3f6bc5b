import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// The user-side state of the delivery policy: per-app settings, preferences, Focus modes and the
// Scheduled Summary (shared by all devices of a user), and each device's state — as SQLiteStore keeps
// them: JSON text of the HeraldPolicy types (`PolicyJSON`); writes check that the user, app or device
// exists first.

extension PostgresStore: UserStateStore {
    // MARK: Per-app settings

    public func appSettings(userID: String) async throws -> [String: AppNotificationSettings] {
        try await read { connection in try await Self.appSettings(connection, userID: userID, logger: self.logger) }
    }

    public func setAppSettings(_ settings: AppNotificationSettings, userID: String, bundleID: String) async throws {
        let json = try PolicyJSON.encode(settings, "app settings")
        try await write(ConstraintMessages(notFound: "The user or the app does not exist.")) { connection in
            try await self.requireUser(connection, userID)
            try await self.requireApp(connection, bundleID)
            try await connection.query(
                """
                INSERT INTO app_settings (user_id, bundle_id, settings) VALUES (\(userID), \(bundleID), \(json))
                ON CONFLICT (user_id, bundle_id) DO UPDATE SET settings = excluded.settings
                """, logger: self.logger)
        }
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> UserPreferences? {
        try await read { connection in try await Self.preferences(connection, userID: userID, logger: self.logger) }
    }

    public func setPreferences(_ preferences: UserPreferences, userID: String) async throws {
        let json = try PolicyJSON.encode(preferences, "preferences")
        try await write(ConstraintMessages(notFound: "There is no user with id \(userID).")) { connection in
            try await self.requireUser(connection, userID)
            try await connection.query(
                """
                INSERT INTO user_preferences (user_id, preferences) VALUES (\(userID), \(json))
                ON CONFLICT (user_id) DO UPDATE SET preferences = excluded.preferences
                """, logger: self.logger)
        }
    }

    // MARK: Focus modes

    public func focusModes(userID: String) async throws -> [FocusMode] {
        try await read { connection in try await Self.focusModes(connection, userID: userID, logger: self.logger) }
    }

    public func upsertFocusMode(_ mode: FocusMode, userID: String) async throws {
        guard !mode.id.isEmpty else { throw StoreError(.invalid, "A Focus mode needs an id.") }
        let json = try PolicyJSON.encode(mode, "Focus mode")
        try await write(ConstraintMessages(notFound: "There is no user with id \(userID).")) { connection in
            // The user's row locked: two nodes adding a mode for one user at once take turns, so
            // each new mode gets the next position.
            try await self.requireUser(connection, userID, lock: true)
            // A new mode goes last; a replaced one keeps its place.
            try await connection.query(
                """
                INSERT INTO focus_modes (user_id, focus_id, position, mode)
                VALUES (\(userID), \(mode.id),
                        (SELECT COALESCE(MAX(position), 0) + 1 FROM focus_modes WHERE user_id = \(userID)), \(json))
                ON CONFLICT (user_id, focus_id) DO UPDATE SET mode = excluded.mode
                """, logger: self.logger)
        }
    }

    public func deleteFocusMode(id: String, userID: String) async throws -> Bool {
        try await write { connection in
            try await Self.deletes(
                connection, "DELETE FROM focus_modes WHERE user_id = \(userID) AND focus_id = \(id)",
                logger: self.logger)
        }
    }

    // MARK: Scheduled Summary

    public func summarySchedule(userID: String) async throws -> SummarySchedule? {
        try await read { connection in try await Self.summarySchedule(connection, userID: userID, logger: self.logger) }
    }

    public func setSummarySchedule(_ schedule: SummarySchedule, userID: String) async throws {
        let json = try PolicyJSON.encode(schedule, "summary schedule")
        try await write(ConstraintMessages(notFound: "There is no user with id \(userID).")) { connection in
            try await self.requireUser(connection, userID)
            try await connection.query(
                """
                INSERT INTO summary_schedules (user_id, schedule) VALUES (\(userID), \(json))
                ON CONFLICT (user_id) DO UPDATE SET schedule = excluded.schedule
                """, logger: self.logger)
        }
    }

    // MARK: Device state

    public func deviceState(deviceID: String) async throws -> DeviceState? {
        try await read { connection in try await Self.deviceState(connection, deviceID: deviceID, logger: self.logger) }
    }

    public func setDeviceState(_ state: DeviceState, deviceID: String) async throws {
        let json = try PolicyJSON.encode(state, "device state")
        try await write(ConstraintMessages(notFound: "There is no device with id \(deviceID).")) { connection in
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM devices WHERE device_id = \(deviceID)", logger: self.logger)
            else { throw StoreError(.notFound, "There is no device with id \(deviceID).") }
            try await connection.query(
                """
                INSERT INTO device_states (device_id, state) VALUES (\(deviceID), \(json))
                ON CONFLICT (device_id) DO UPDATE SET state = excluded.state
                """, logger: self.logger)
        }
    }

    // MARK: Policy context

    public func policyContext(deviceID: String) async throws -> PolicyContextRecord? {
        try await snapshot { connection in
            let owner = try await connection.query(
                """
                SELECT d.user_id, s.state FROM devices d LEFT JOIN device_states s USING (device_id)
                WHERE d.device_id = \(deviceID)
                """, logger: self.logger)
            var found: (userID: String, state: String?)?
            for try await (userID, state) in owner.decode((String, String?).self) { found = (userID, state) }
            guard let found else { return nil }
            return PolicyContextRecord(
                deviceID: deviceID,
                userID: found.userID,
                preferences: try await Self.preferences(connection, userID: found.userID, logger: self.logger),
                appSettings: try await Self.appSettings(connection, userID: found.userID, logger: self.logger),
                focusModes: try await Self.focusModes(connection, userID: found.userID, logger: self.logger),
                summarySchedule: try await Self.summarySchedule(connection, userID: found.userID, logger: self.logger),
                deviceState: try found.state.map { try PolicyJSON.decode(DeviceState.self, from: $0, "device state") }
            )
        }
    }

    // MARK: Reads on a connection

    static func appSettings(_ connection: PostgresConnection, userID: String, logger: Logger) async throws
        -> [String: AppNotificationSettings]
    {
        var settings: [String: AppNotificationSettings] = [:]
        let rows = try await connection.query(
            "SELECT bundle_id, settings FROM app_settings WHERE user_id = \(userID)", logger: logger)
        for try await (bundleID, json) in rows.decode((String, String).self) {
            settings[bundleID] = try PolicyJSON.decode(AppNotificationSettings.self, from: json, "app settings")
        }
        return settings
    }

    static func preferences(_ connection: PostgresConnection, userID: String, logger: Logger) async throws
        -> UserPreferences?
    {
        try await json(connection, "SELECT preferences FROM user_preferences WHERE user_id = \(userID)", logger: logger)
            .first.map { try PolicyJSON.decode(UserPreferences.self, from: $0, "preferences") }
    }

    static func focusModes(_ connection: PostgresConnection, userID: String, logger: Logger) async throws
        -> [FocusMode]
    {
        try await json(
            connection, "SELECT mode FROM focus_modes WHERE user_id = \(userID) ORDER BY position", logger: logger
        ).map { try PolicyJSON.decode(FocusMode.self, from: $0, "Focus mode") }
    }

    static func summarySchedule(_ connection: PostgresConnection, userID: String, logger: Logger) async throws
        -> SummarySchedule?
    {
        try await json(connection, "SELECT schedule FROM summary_schedules WHERE user_id = \(userID)", logger: logger)
            .first.map { try PolicyJSON.decode(SummarySchedule.self, from: $0, "summary schedule") }
    }

    static func deviceState(_ connection: PostgresConnection, deviceID: String, logger: Logger) async throws
        -> DeviceState?
    {
        try await json(connection, "SELECT state FROM device_states WHERE device_id = \(deviceID)", logger: logger)
            .first.map { try PolicyJSON.decode(DeviceState.self, from: $0, "device state") }
    }

    /// The one text column of each row of `query`.
    static func json(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [String]
    {
        var values: [String] = []
        for try await value in try await connection.query(query, logger: logger).decode(String.self) {
            values.append(value)
        }
        return values
    }

    // MARK: Checks

    /// `notFound` unless the user exists; with `lock`, the user's row is locked until the transaction
    /// ends (writes of one user's ordered state take turns across nodes).
    func requireUser(_ connection: PostgresConnection, _ userID: String, lock: Bool = false) async throws {
        let found: Bool
        if lock {
            var locked = false
            for try await _ in try await connection.query(
                "SELECT 1 FROM users WHERE user_id = \(userID) FOR UPDATE", logger: logger
            ).decode(Int32.self) { locked = true }
            found = locked
        } else {
            found = try await Self.exists(connection, "SELECT 1 FROM users WHERE user_id = \(userID)", logger: logger)
        }
        guard found else { throw StoreError(.notFound, "There is no user with id \(userID).") }
    }
}
