import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

// Apps' donated interactions (`INInteraction.donate`) and the files notifications show, with the
// apps' quotas — as SQLiteStore keeps them.

extension PostgresStore {
    public func donateInteraction(_ interaction: InteractionRecord) async throws {
        try await execute(
            """
            INSERT INTO interactions (user_id, bundle_id, device_id, identifier, group_identifier, direction,
                kind, interaction, donated_at)
            VALUES (\(interaction.userID), \(interaction.bundleID), \(interaction.deviceID),
                \(interaction.identifier), \(interaction.groupIdentifier), \(interaction.direction.rawValue),
                \(interaction.kind.rawValue), \(interaction.json), \(interaction.donatedAt.storedMilliseconds))
            ON CONFLICT (user_id, bundle_id, identifier) DO UPDATE SET
                device_id = excluded.device_id, group_identifier = excluded.group_identifier,
                direction = excluded.direction, kind = excluded.kind, interaction = excluded.interaction,
                donated_at = excluded.donated_at
            """, ConstraintMessages(notFound: "The user, the app or the device does not exist."))
    }

    private static func interactions(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger)
        async throws -> [InteractionRecord]
    {
        var records: [InteractionRecord] = []
        for try await (userID, bundleID, deviceID, identifier, group, direction, kind, json, donatedAt)
            in try await connection.query(query, logger: logger).decode(
                (String, String, String, String, String?, String, String, String, Int64).self)
        {
            records.append(
                InteractionRecord(
                    userID: userID, bundleID: bundleID, deviceID: deviceID, identifier: identifier,
                    groupIdentifier: group, direction: InteractionRecord.Direction(rawValue: direction) ?? .unspecified,
                    kind: InteractionRecord.Kind(rawValue: kind) ?? .message, json: json,
                    donatedAt: Date(storedMilliseconds: donatedAt)))
        }
        return records
    }

    private static let interactionColumns = """
        user_id, bundle_id, device_id, identifier, group_identifier, direction, kind, interaction, donated_at
        """

    public func interactions(userID: String, bundleID: String) async throws -> [InteractionRecord] {
        try await read { connection in
            try await Self.interactions(
                connection,
                """
                SELECT \(unescaped: Self.interactionColumns) FROM interactions
                WHERE user_id = \(userID) AND bundle_id = \(bundleID) ORDER BY donated_at, position
                """, logger: self.logger)
        }
    }

    public func interactions(userID: String, direction: InteractionRecord.Direction, limit: Int) async throws
        -> [InteractionRecord]
    {
        try await read { connection in
            try await Self.interactions(
                connection,
                """
                SELECT \(unescaped: Self.interactionColumns) FROM interactions
                WHERE user_id = \(userID) AND direction = \(direction.rawValue)
                ORDER BY donated_at DESC, position DESC LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    public func deleteInteractions(
        userID: String, bundleID: String, identifiers: [String]?, groupIdentifier: String?
    ) async throws -> Int {
        try await write { connection in
            let deleted: [String]
            if let identifiers {
                deleted = try await Self.json(
                    connection,
                    """
                    DELETE FROM interactions WHERE user_id = \(userID) AND bundle_id = \(bundleID)
                        AND identifier = ANY (\(identifiers))
                    RETURNING identifier
                    """, logger: self.logger)
            } else if let groupIdentifier {
                deleted = try await Self.json(
                    connection,
                    """
                    DELETE FROM interactions WHERE user_id = \(userID) AND bundle_id = \(bundleID)
                        AND group_identifier = \(groupIdentifier)
                    RETURNING identifier
                    """, logger: self.logger)
            } else {
                deleted = try await Self.json(
                    connection,
                    "DELETE FROM interactions WHERE user_id = \(userID) AND bundle_id = \(bundleID) RETURNING identifier",
                    logger: self.logger)
            }
            return deleted.count
        }
    }
}

// MARK: - Attachments

extension PostgresStore: AttachmentStore {
    public func addAttachment(_ record: AttachmentRecord, quota: Int) async throws {
        try await write(ConstraintMessages(notFound: "The device or the app does not exist.")) { connection in
            // The app's row locked: two nodes adding at once both count the other's bytes.
            var found = false
            for try await _ in try await connection.query(
                "SELECT 1 FROM apps WHERE bundle_id = \(record.bundleID) FOR NO KEY UPDATE", logger: self.logger
            ).decode(Int32.self) { found = true }
            guard found else { throw StoreError(.notFound, "The device or the app does not exist.") }
            let used = try await Self.bytes(connection, bundleID: record.bundleID, logger: self.logger)
            guard used + record.size <= quota else {
                throw StoreError(
                    .conflict,
                    "The app's attachments take \(used) bytes; \(record.size) more would pass its quota of \(quota).")
            }
            try await connection.query(
                """
                INSERT INTO attachments (id, bundle_id, device_id, identifier, type, size, created_at, linked_at)
                VALUES (\(record.id), \(record.bundleID), \(record.deviceID), \(record.identifier), \(record.type),
                    \(record.size), \(record.createdAt.storedMilliseconds), \(record.linkedAt?.storedMilliseconds))
                """, logger: self.logger)
        }
    }

    private static let attachmentColumns =
        "a.id, a.bundle_id, a.device_id, a.identifier, a.type, a.size, a.created_at, a.linked_at"

    private static func attachments(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger)
        async throws -> [AttachmentRecord]
    {
        var records: [AttachmentRecord] = []
        for try await (id, bundleID, deviceID, identifier, type, size, createdAt, linkedAt)
            in try await connection.query(query, logger: logger).decode(
                (String, String, String, String, String, Int, Int64, Int64?).self)
        {
            records.append(
                AttachmentRecord(
                    id: id, bundleID: bundleID, deviceID: deviceID, identifier: identifier, type: type, size: size,
                    createdAt: Date(storedMilliseconds: createdAt),
                    linkedAt: linkedAt.map(Date.init(storedMilliseconds:))))
        }
        return records
    }

    public func attachments(ids: [String]) async throws -> [AttachmentRecord] {
        guard !ids.isEmpty else { return [] }
        return try await read { connection in
            try await Self.attachments(
                connection,
                "SELECT \(unescaped: Self.attachmentColumns) FROM attachments a WHERE a.id = ANY (\(ids))",
                logger: self.logger)
        }
    }

    public func linkAttachments(ids: [String], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        try await execute(
            """
            UPDATE attachments SET linked_at = \(date.storedMilliseconds)
            WHERE linked_at IS NULL AND id = ANY (\(ids))
            """)
    }

    public func unusedAttachments(unlinkedBefore: Date, limit: Int) async throws -> [AttachmentRecord] {
        try await read { connection in
            try await Self.attachments(
                connection,
                """
                SELECT \(unescaped: Self.attachmentColumns) FROM attachments a
                WHERE (a.linked_at IS NOT NULL OR a.created_at < \(unlinkedBefore.storedMilliseconds))
                AND NOT EXISTS (
                    SELECT 1 FROM notifications n
                    WHERE n.device_id = a.device_id AND n.attachments IS NOT NULL AND n.removed_at IS NULL
                        AND n.attachments::jsonb @> jsonb_build_array(jsonb_build_object('id', a.id)))
                AND NOT EXISTS (
                    SELECT 1 FROM local_requests r
                    WHERE r.device_id = a.device_id AND r.bundle_id = a.bundle_id
                        AND (r.content::jsonb -> 'attachments') @> jsonb_build_array(jsonb_build_object('id', a.id)))
                ORDER BY a.created_at LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    public func removeAttachments(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await execute("DELETE FROM attachments WHERE id = ANY (\(ids))")
    }

    public func attachmentBytes(bundleID: String) async throws -> Int {
        try await read { connection in try await Self.bytes(connection, bundleID: bundleID, logger: self.logger) }
    }

    private static func bytes(_ connection: PostgresConnection, bundleID: String, logger: Logger) async throws -> Int {
        for try await used in try await connection.query(
            "SELECT COALESCE(sum(size), 0)::BIGINT FROM attachments WHERE bundle_id = \(bundleID)", logger: logger
        ).decode(Int.self) {
            return used
        }
        return 0
    }
}
