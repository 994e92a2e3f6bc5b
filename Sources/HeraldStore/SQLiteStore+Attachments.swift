import Foundation
import GRDB

// Attachments and their quota (`v17-attachments`).

extension SQLiteStore {
    public func addAttachment(_ record: AttachmentRecord, quota: Int) async throws {
        try await write(Self.notFound("The device or the app does not exist.")) { db in
            let used =
                try Int.fetchOne(
                    db, sql: "SELECT COALESCE(SUM(size), 0) FROM attachments WHERE bundle_id = ?",
                    arguments: [record.bundleID]) ?? 0
            guard used + record.size <= quota else {
                throw StoreError(
                    .conflict,
                    "The app's attachments take \(used) bytes; \(record.size) more would pass its quota of \(quota).")
            }
            try db.execute(
                sql: """
                    INSERT INTO attachments (id, bundle_id, device_id, identifier, type, size, created_at, linked_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.id, record.bundleID, record.deviceID, record.identifier, record.type, record.size,
                    record.createdAt.storedMilliseconds, record.linkedAt?.storedMilliseconds,
                ])
        }
    }

    public func attachments(ids: [String]) async throws -> [AttachmentRecord] {
        guard !ids.isEmpty else { return [] }
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, bundle_id, device_id, identifier, type, size, created_at, linked_at FROM attachments
                    WHERE id IN (SELECT value FROM json_each(?))
                    """, arguments: [Self.jsonArray(ids)]
            ).map(Self.attachment)
        }
    }

    public func linkAttachments(ids: [String], at date: Date) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE attachments SET linked_at = ? WHERE linked_at IS NULL AND id IN (SELECT value FROM json_each(?))
                    """, arguments: [date.storedMilliseconds, Self.jsonArray(ids)])
        }
    }

    public func unusedAttachments(unlinkedBefore: Date, limit: Int) async throws -> [AttachmentRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.id, a.bundle_id, a.device_id, a.identifier, a.type, a.size, a.created_at, a.linked_at
                    FROM attachments a
                    WHERE (a.linked_at IS NOT NULL OR a.created_at < ?)
                    AND NOT EXISTS (
                        SELECT 1 FROM notifications n, json_each(n.attachments) j
                        WHERE n.device_id = a.device_id AND n.attachments IS NOT NULL AND n.removed_at IS NULL
                            AND json_extract(j.value, '$.id') = a.id)
                    AND NOT EXISTS (
                        SELECT 1 FROM local_requests r, json_each(r.content, '$.attachments') j
                        WHERE r.device_id = a.device_id AND r.bundle_id = a.bundle_id
                            AND json_extract(j.value, '$.id') = a.id)
                    ORDER BY a.created_at LIMIT ?
                    """, arguments: [unlinkedBefore.storedMilliseconds, limit]
            ).map(Self.attachment)
        }
    }

    public func removeAttachments(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            try db.execute(
                sql: "DELETE FROM attachments WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [Self.jsonArray(ids)])
        }
    }

    public func attachmentBytes(bundleID: String) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db, sql: "SELECT COALESCE(SUM(size), 0) FROM attachments WHERE bundle_id = ?", arguments: [bundleID])
                ?? 0
        }
    }

    private static func attachment(_ row: Row) -> AttachmentRecord {
        AttachmentRecord(
            id: row[0], bundleID: row[1], deviceID: row[2], identifier: row[3], type: row[4], size: row[5],
            createdAt: Date(storedMilliseconds: row[6]),
            linkedAt: (row[7] as Int64?).map(Date.init(storedMilliseconds:)))
    }
}
