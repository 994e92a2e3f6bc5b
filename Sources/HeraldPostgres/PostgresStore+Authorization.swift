import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import PostgresNIO

// Apps asking the person for permission to notify (`requestAuthorization`), and the answers — as
// SQLiteStore keeps them. Asking locks the user's row, so two devices of one person asking at once
// on two nodes make one pending request, not a conflict.

extension PostgresStore {
    private static let authorizationColumns = """
        id, device_id, bundle_id, user_id, options, requested_at, answered_at, granted
        """

    private static func authorizationRequests(
        _ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger
    ) async throws -> [AuthorizationRequestRecord] {
        var records: [AuthorizationRequestRecord] = []
        for try await (id, deviceID, bundleID, userID, options, requestedAt, answeredAt, granted)
            in try await connection.query(query, logger: logger).decode(
                (String, String, String, String, [String], Int64, Int64?, Bool?).self)
        {
            records.append(
                AuthorizationRequestRecord(
                    id: id, deviceID: deviceID, bundleID: bundleID, userID: userID, options: options,
                    requestedAt: Date(storedMilliseconds: requestedAt),
                    answeredAt: answeredAt.map(Date.init(storedMilliseconds:)), granted: granted))
        }
        return records
    }

    private func putAppSettings(_ connection: PostgresConnection, json: String, userID: String, bundleID: String)
        async throws
    {
        try await connection.query(
            """
            INSERT INTO app_settings (user_id, bundle_id, settings) VALUES (\(userID), \(bundleID), \(json))
            ON CONFLICT (user_id, bundle_id) DO UPDATE SET settings = excluded.settings
            """, logger: logger)
    }

    public func askAuthorization(_ request: AuthorizationRequestRecord, provisional: Bool) async throws
        -> AuthorizationOutcome
    {
        let notDetermined = try PolicyJSON.encode(
            AppNotificationSettings(authorizationStatus: .notDetermined), "app settings")
        return try await write(ConstraintMessages(notFound: "The user, the device or the app does not exist.")) {
            connection in
            try await self.requireUser(connection, request.userID, lock: true)
            try await self.requireApp(connection, request.bundleID)
            let stored = try await Self.appSettings(connection, userID: request.userID, logger: self.logger)[
                request.bundleID]
            if let stored, stored.authorizationStatus != .notDetermined { return .determined(stored) }
            if let pending = try await Self.authorizationRequests(
                connection,
                """
                SELECT \(unescaped: Self.authorizationColumns) FROM authorization_requests
                WHERE user_id = \(request.userID) AND bundle_id = \(request.bundleID) AND answered_at IS NULL
                """, logger: self.logger
            ).first {
                return .pending(pending)
            }
            if provisional {
                var settings = stored ?? AppNotificationSettings()
                settings.authorizationStatus = .provisional
                try await self.putAppSettings(
                    connection, json: try PolicyJSON.encode(settings, "app settings"), userID: request.userID,
                    bundleID: request.bundleID)
                return .determined(settings)
            }
            try await connection.query(
                """
                INSERT INTO authorization_requests (id, device_id, bundle_id, user_id, options, requested_at)
                VALUES (\(request.id), \(request.deviceID), \(request.bundleID), \(request.userID), \(request.options),
                    \(request.requestedAt.storedMilliseconds))
                """, logger: self.logger)
            if stored == nil {
                try await self.putAppSettings(
                    connection, json: notDetermined, userID: request.userID, bundleID: request.bundleID)
            }
            var made = request
            made.requestedAt = request.requestedAt.roundedToStoredPrecision
            made.answeredAt = nil
            made.granted = nil
            return .pending(made)
        }
    }

    public func authorizationRequest(id: String) async throws -> AuthorizationRequestRecord? {
        try await read { connection in
            try await Self.authorizationRequests(
                connection,
                "SELECT \(unescaped: Self.authorizationColumns) FROM authorization_requests WHERE id = \(id)",
                logger: self.logger
            ).first
        }
    }

    public func pendingAuthorizationRequests(deviceID: String) async throws -> [AuthorizationRequestRecord] {
        try await read { connection in
            try await Self.authorizationRequests(
                connection,
                """
                SELECT \(unescaped: Self.authorizationColumns) FROM authorization_requests
                WHERE device_id = \(deviceID) AND answered_at IS NULL ORDER BY requested_at, id
                """, logger: self.logger)
        }
    }

    public func answerAuthorizationRequest(
        id: String, granted: Bool, settings: AppNotificationSettings, at date: Date
    ) async throws -> AuthorizationRequestRecord? {
        let json = try PolicyJSON.encode(settings, "app settings")
        return try await write { connection in
            // The row locked: an answer is given once, whichever node answers first.
            guard
                let pending = try await Self.authorizationRequests(
                    connection,
                    """
                    SELECT \(unescaped: Self.authorizationColumns) FROM authorization_requests
                    WHERE id = \(id) AND answered_at IS NULL FOR UPDATE
                    """, logger: self.logger
                ).first
            else { return nil }
            try await connection.query(
                """
                UPDATE authorization_requests SET answered_at = \(date.storedMilliseconds), granted = \(granted)
                WHERE id = \(id)
                """, logger: self.logger)
            try await self.putAppSettings(connection, json: json, userID: pending.userID, bundleID: pending.bundleID)
            var answered = pending
            answered.answeredAt = date.roundedToStoredPrecision
            answered.granted = granted
            return answered
        }
    }
}
