import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Apps asking the person for permission to notify (`requestAuthorization`), and the answers
// (Schema `v13-local-notifications`, table `authorization_requests`).

extension SQLiteStore {
    private static let authorizationColumns = """
        id, device_id, bundle_id, user_id, options, requested_at, answered_at, granted
        """

    private static func authorizationRequest(_ row: Row) -> AuthorizationRequestRecord {
        let options: String = row[4]
        let granted: Int64? = row[7]
        return AuthorizationRequestRecord(
            id: row[0], deviceID: row[1], bundleID: row[2], userID: row[3],
            options: (try? JSONSerialization.jsonObject(with: Data(options.utf8))) as? [String] ?? [],
            requestedAt: Date(storedMilliseconds: row[5]),
            answeredAt: (row[6] as Int64?).map(Date.init(storedMilliseconds:)), granted: granted.map { $0 == 1 })
    }

    public func askAuthorization(_ request: AuthorizationRequestRecord, provisional: Bool) async throws
        -> AuthorizationOutcome
    {
        let options = Self.jsonArray(request.options)
        let notDetermined = try PolicyJSON.encode(
            AppNotificationSettings(authorizationStatus: .notDetermined), "app settings")
        let provisionalSettings = try PolicyJSON.encode(
            AppNotificationSettings(authorizationStatus: .provisional), "app settings")
        return try await write(Self.notFound("The user, the device or the app does not exist.")) { db in
            try Self.requireUser(db, request.userID)
            try Self.requireApp(db, request.bundleID)
            let stored = try Self.appSettings(db, userID: request.userID)[request.bundleID]
            if let stored, stored.authorizationStatus != .notDetermined { return .determined(stored) }
            if let pending = try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.authorizationColumns) FROM authorization_requests
                    WHERE user_id = ? AND bundle_id = ? AND answered_at IS NULL
                    """, arguments: [request.userID, request.bundleID])
            {
                return .pending(Self.authorizationRequest(pending))
            }
            if provisional {
                var settings = stored ?? AppNotificationSettings()
                settings.authorizationStatus = .provisional
                let json = stored == nil ? provisionalSettings : try PolicyJSON.encode(settings, "app settings")
                try Self.putAppSettings(db, json: json, userID: request.userID, bundleID: request.bundleID)
                return .determined(settings)
            }
            try db.execute(
                sql: """
                    INSERT INTO authorization_requests (id, device_id, bundle_id, user_id, options, requested_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    request.id, request.deviceID, request.bundleID, request.userID, options,
                    request.requestedAt.storedMilliseconds,
                ])
            if stored == nil {
                try Self.putAppSettings(db, json: notDetermined, userID: request.userID, bundleID: request.bundleID)
            }
            var made = request
            made.requestedAt = request.requestedAt.roundedToStoredPrecision
            made.answeredAt = nil
            made.granted = nil
            return .pending(made)
        }
    }

    public func authorizationRequest(id: String) async throws -> AuthorizationRequestRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.authorizationColumns) FROM authorization_requests WHERE id = ?", arguments: [id]
            ).map(Self.authorizationRequest)
        }
    }

    public func pendingAuthorizationRequests(deviceID: String) async throws -> [AuthorizationRequestRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.authorizationColumns) FROM authorization_requests
                    WHERE device_id = ? AND answered_at IS NULL ORDER BY requested_at, id
                    """, arguments: [deviceID]
            ).map(Self.authorizationRequest)
        }
    }

    public func answerAuthorizationRequest(
        id: String, granted: Bool, settings: AppNotificationSettings, at date: Date
    ) async throws -> AuthorizationRequestRecord? {
        let json = try PolicyJSON.encode(settings, "app settings")
        return try await write { db in
            guard
                let pending = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT \(Self.authorizationColumns) FROM authorization_requests
                        WHERE id = ? AND answered_at IS NULL
                        """, arguments: [id]
                ).map(Self.authorizationRequest)
            else { return nil }
            try db.execute(
                sql: "UPDATE authorization_requests SET answered_at = ?, granted = ? WHERE id = ?",
                arguments: [date.storedMilliseconds, granted ? 1 : 0, id])
            try Self.putAppSettings(db, json: json, userID: pending.userID, bundleID: pending.bundleID)
            var answered = pending
            answered.answeredAt = date.roundedToStoredPrecision
            answered.granted = granted
            return answered
        }
    }
}
