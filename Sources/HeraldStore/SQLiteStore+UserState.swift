import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// The user-side state of the delivery policy: per-app settings, preferences, Focus modes and the
// Scheduled Summary (shared by all devices of a user), and each device's state. Values are JSON text
// of the HeraldPolicy types (`PolicyJSON`); writes check that the user, app or device exists first.

extension SQLiteStore {
    // MARK: Per-app settings

    public func appSettings(userID: String) async throws -> [String: AppNotificationSettings] {
        try await read { db in try Self.appSettings(db, userID: userID) }
    }

    public func setAppSettings(_ settings: AppNotificationSettings, userID: String, bundleID: String) async throws {
        let json = try PolicyJSON.encode(settings, "app settings")
        try await write(Self.notFound("The user or the app does not exist.")) { db in
            try Self.requireUser(db, userID)
            try Self.requireApp(db, bundleID)
            try Self.putAppSettings(db, json: json, userID: userID, bundleID: bundleID)
        }
    }

    /// Writes one app's settings for a user (encoded by `PolicyJSON`), replacing what was there.
    static func putAppSettings(_ db: Database, json: String, userID: String, bundleID: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO app_settings (user_id, bundle_id, settings) VALUES (?, ?, ?)
                ON CONFLICT (user_id, bundle_id) DO UPDATE SET settings = excluded.settings
                """
        )
        .execute(arguments: [userID, bundleID, json])
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> UserPreferences? {
        try await read { db in try Self.preferences(db, userID: userID) }
    }

    public func setPreferences(_ preferences: UserPreferences, userID: String) async throws {
        let json = try PolicyJSON.encode(preferences, "preferences")
        try await write(Self.notFound("There is no user with id \(userID).")) { db in
            try Self.requireUser(db, userID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO user_preferences (user_id, preferences) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET preferences = excluded.preferences
                    """
            )
            .execute(arguments: [userID, json])
        }
    }

    // MARK: Focus modes

    public func focusModes(userID: String) async throws -> [FocusMode] {
        try await read { db in try Self.focusModes(db, userID: userID) }
    }

    public func upsertFocusMode(_ mode: FocusMode, userID: String) async throws {
        guard !mode.id.isEmpty else { throw StoreError(.invalid, "A Focus mode needs an id.") }
        let json = try PolicyJSON.encode(mode, "Focus mode")
        try await write(Self.notFound("There is no user with id \(userID).")) { db in
            try Self.requireUser(db, userID)
            // A new mode goes last; a replaced one keeps its place.
            try db.cachedStatement(
                sql: """
                    INSERT INTO focus_modes (user_id, focus_id, position, mode)
                    VALUES (?1, ?2, (SELECT COALESCE(MAX(position), 0) + 1 FROM focus_modes WHERE user_id = ?1), ?3)
                    ON CONFLICT (user_id, focus_id) DO UPDATE SET mode = excluded.mode
                    """
            )
            .execute(arguments: [userID, mode.id, json])
        }
    }

    public func deleteFocusMode(id: String, userID: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM focus_modes WHERE user_id = ? AND focus_id = ?")
                .execute(arguments: [userID, id])
            return db.changesCount > 0
        }
    }

    // MARK: Scheduled Summary

    public func summarySchedule(userID: String) async throws -> SummarySchedule? {
        try await read { db in try Self.summarySchedule(db, userID: userID) }
    }

    public func setSummarySchedule(_ schedule: SummarySchedule, userID: String) async throws {
        let json = try PolicyJSON.encode(schedule, "summary schedule")
        try await write(Self.notFound("There is no user with id \(userID).")) { db in
            try Self.requireUser(db, userID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO summary_schedules (user_id, schedule) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET schedule = excluded.schedule
                    """
            )
            .execute(arguments: [userID, json])
        }
    }

    // MARK: Device state

    public func deviceState(deviceID: String) async throws -> DeviceState? {
        try await read { db in try Self.deviceState(db, deviceID: deviceID) }
    }

    public func setDeviceState(_ state: DeviceState, deviceID: String) async throws {
        let json = try PolicyJSON.encode(state, "device state")
        try await write(Self.notFound("There is no device with id \(deviceID).")) { db in
            guard try Self.exists(db, "SELECT 1 FROM devices WHERE device_id = ?", [deviceID]) else {
                throw StoreError(.notFound, "There is no device with id \(deviceID).")
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO device_states (device_id, state) VALUES (?, ?)
                    ON CONFLICT (device_id) DO UPDATE SET state = excluded.state
                    """
            )
            .execute(arguments: [deviceID, json])
        }
    }

    // MARK: Policy context

    public func policyContext(deviceID: String) async throws -> PolicyContextRecord? {
        try await read { db in
            let owner = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT d.user_id, s.state FROM devices d LEFT JOIN device_states s USING (device_id)
                        WHERE d.device_id = ?
                        """),
                arguments: [deviceID]
            )
            guard let owner else { return nil }
            let userID: String = try owner.decode(atIndex: 0)
            let state: String? = try owner.decode(atIndex: 1)
            return PolicyContextRecord(
                deviceID: deviceID,
                userID: userID,
                preferences: try Self.preferences(db, userID: userID),
                appSettings: try Self.appSettings(db, userID: userID),
                focusModes: try Self.focusModes(db, userID: userID),
                summarySchedule: try Self.summarySchedule(db, userID: userID),
                deviceState: try state.map { try PolicyJSON.decode(DeviceState.self, from: $0, "device state") }
            )
        }
    }

    // MARK: Reads in a transaction

    static func appSettings(_ db: Database, userID: String) throws -> [String: AppNotificationSettings] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT bundle_id, settings FROM app_settings WHERE user_id = ?"),
            arguments: [userID]
        )
        var settings: [String: AppNotificationSettings] = [:]
        while let row = try rows.next() {
            let json: String = try row.decode(atIndex: 1)
            settings[try row.decode(atIndex: 0)] = try PolicyJSON.decode(
                AppNotificationSettings.self, from: json, "app settings")
        }
        return settings
    }

    static func preferences(_ db: Database, userID: String) throws -> UserPreferences? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT preferences FROM user_preferences WHERE user_id = ?"), arguments: [userID]
        ).map { try PolicyJSON.decode(UserPreferences.self, from: $0, "preferences") }
    }

    static func focusModes(_ db: Database, userID: String) throws -> [FocusMode] {
        try String.fetchAll(
            db.cachedStatement(sql: "SELECT mode FROM focus_modes WHERE user_id = ? ORDER BY position"),
            arguments: [userID]
        ).map { try PolicyJSON.decode(FocusMode.self, from: $0, "Focus mode") }
    }

    static func summarySchedule(_ db: Database, userID: String) throws -> SummarySchedule? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT schedule FROM summary_schedules WHERE user_id = ?"), arguments: [userID]
        ).map { try PolicyJSON.decode(SummarySchedule.self, from: $0, "summary schedule") }
    }

    static func deviceState(_ db: Database, deviceID: String) throws -> DeviceState? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT state FROM device_states WHERE device_id = ?"), arguments: [deviceID]
        ).map { try PolicyJSON.decode(DeviceState.self, from: $0, "device state") }
    }

    // MARK: Checks

    /// Messages for a write whose only expected constraint failure is a missing referenced record.
    static func notFound(_ message: String) -> ConstraintMessages {
        ConstraintMessages(notFound: message)
    }

    /// `notFound` unless the user exists.
    static func requireUser(_ db: Database, _ userID: String) throws {
        guard try exists(db, "SELECT 1 FROM users WHERE user_id = ?", [userID]) else {
            throw StoreError(.notFound, "There is no user with id \(userID).")
        }
    }

    /// `notFound` unless the app exists.
    static func requireApp(_ db: Database, _ bundleID: String) throws {
        guard try exists(db, "SELECT 1 FROM apps WHERE bundle_id = ?", [bundleID]) else {
            throw StoreError(.notFound, "There is no app with bundle id \(bundleID).")
        }
    }
}
