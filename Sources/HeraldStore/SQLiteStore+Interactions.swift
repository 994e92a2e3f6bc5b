import Foundation
import GRDB
import HeraldCore

// Apps' donated interactions (`INInteraction.donate`; Schema `v15-interactions`).

extension SQLiteStore {
    public func donateInteraction(_ interaction: InteractionRecord) async throws {
        try await write(Self.notFound("The user, the app or the device does not exist.")) { db in
            try db.execute(
                sql: """
                    INSERT INTO interactions (user_id, bundle_id, device_id, identifier, group_identifier, direction,
                        kind, interaction, donated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, bundle_id, identifier) DO UPDATE SET
                        device_id = excluded.device_id, group_identifier = excluded.group_identifier,
                        direction = excluded.direction, kind = excluded.kind, interaction = excluded.interaction,
                        donated_at = excluded.donated_at
                    """,
                arguments: [
                    interaction.userID, interaction.bundleID, interaction.deviceID, interaction.identifier,
                    interaction.groupIdentifier, interaction.direction.rawValue, interaction.kind.rawValue,
                    interaction.json, interaction.donatedAt.storedMilliseconds,
                ])
        }
    }

    public func interactions(userID: String, bundleID: String) async throws -> [InteractionRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT device_id, identifier, group_identifier, direction, kind, interaction, donated_at
                    FROM interactions WHERE user_id = ? AND bundle_id = ? ORDER BY donated_at, position
                    """, arguments: [userID, bundleID]
            ).map { row in
                InteractionRecord(
                    userID: userID, bundleID: bundleID, deviceID: row[0], identifier: row[1], groupIdentifier: row[2],
                    direction: InteractionRecord.Direction(rawValue: row[3]) ?? .unspecified,
                    kind: InteractionRecord.Kind(rawValue: row[4]) ?? .message, json: row[5],
                    donatedAt: Date(storedMilliseconds: row[6]))
            }
        }
    }

    public func interactions(userID: String, direction: InteractionRecord.Direction, limit: Int) async throws
        -> [InteractionRecord]
    {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT bundle_id, device_id, identifier, group_identifier, kind, interaction, donated_at
                    FROM interactions WHERE user_id = ? AND direction = ?
                    ORDER BY donated_at DESC, position DESC LIMIT ?
                    """, arguments: [userID, direction.rawValue, limit]
            ).map { row in
                InteractionRecord(
                    userID: userID, bundleID: row[0], deviceID: row[1], identifier: row[2], groupIdentifier: row[3],
                    direction: direction, kind: InteractionRecord.Kind(rawValue: row[4]) ?? .message, json: row[5],
                    donatedAt: Date(storedMilliseconds: row[6]))
            }
        }
    }

    public func deleteInteractions(
        userID: String, bundleID: String, identifiers: [String]?, groupIdentifier: String?
    ) async throws -> Int {
        try await write { db in
            if let identifiers {
                try db.execute(
                    sql: """
                        DELETE FROM interactions WHERE user_id = ? AND bundle_id = ?
                            AND identifier IN (SELECT value FROM json_each(?))
                        """, arguments: [userID, bundleID, Self.jsonArray(identifiers)])
            } else if let groupIdentifier {
                try db.execute(
                    sql: "DELETE FROM interactions WHERE user_id = ? AND bundle_id = ? AND group_identifier = ?",
                    arguments: [userID, bundleID, groupIdentifier])
            } else {
                try db.execute(
                    sql: "DELETE FROM interactions WHERE user_id = ? AND bundle_id = ?", arguments: [userID, bundleID])
            }
            return db.changesCount
        }
    }
}
