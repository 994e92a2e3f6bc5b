import Foundation
import GRDB
import HeraldCore
import HeraldPolicy

// Threads of a device's list: the notifications of one app with one `thread-id` (or the app's
// notifications without one). The `thread_key` column holds the payload's thread, written by the
// insert (`NotificationRow.threadKey`, the one form of the rule; Schema v9, v12).

extension SQLiteStore {
    /// Repeats the `notifications_thread` index's condition (a partial index is used only by a query
    /// that does).
    static let threadCountSQL = """
        SELECT count(*) FROM notifications
        WHERE device_id = ? AND bundle_id = ? AND thread_key IS ? AND removed_at IS NULL
            AND (disposition IS NULL OR disposition <> 'notDelivered')
        """

    public func threadCount(deviceID: String, bundleID: String, threadID: String?) async throws -> Int {
        let thread = threadID.flatMap { $0.isEmpty ? nil : $0 }
        return try await read { db in
            try Int.fetchOne(db.cachedStatement(sql: Self.threadCountSQL), arguments: [deviceID, bundleID, thread]) ?? 0
        }
    }
}
