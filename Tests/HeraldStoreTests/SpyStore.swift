import Foundation
import HeraldCore
import HeraldStore

/// A notification list that forwards to a real store and records `insert` calls; it can be told to
/// fail them. What `NotificationWriter` needs, and nothing more.
final class SpyStore: NotificationListStore {
    /// What the spy saw and how it behaves; shared by concurrent calls.
    actor Log {
        private(set) var insertBatchSizes: [Int] = []
        var failsInserts = false

        func record(_ count: Int) { insertBatchSizes.append(count) }
        func setFailsInserts(_ fails: Bool) { failsInserts = fails }
    }

    struct InjectedFailure: Error {}

    let base: any HeraldStore
    let log = Log()

    init(_ base: any HeraldStore) { self.base = base }

    func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification] {
        await log.record(notifications.count)
        if await log.failsInserts { throw InjectedFailure() }
        return try await base.insert(notifications)
    }

    func insertBlocking(_ notifications: [StoredNotification]) throws -> InsertedBatch {
        try InsertedBatch.waiting { try await self.insert(notifications) }
    }

    func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws -> [StoredNotification] {
        try await base.changes(deviceID: deviceID, after: cursor, limit: limit, now: now)
    }
    func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        try await base.notifications(deviceID: deviceID, after: cursor, limit: limit, now: now)
    }
    func notification(deviceID: String, id: String) async throws -> StoredNotification? {
        try await base.notification(deviceID: deviceID, id: id)
    }
    func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await base.markRead(deviceID: deviceID, id: id, at: date)
    }
    func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await base.dismiss(deviceID: deviceID, id: id, at: date)
    }
    func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try await base.remove(deviceID: deviceID, id: id, at: date)
    }
    func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws {
        try await base.markDelivered(deviceID: deviceID, upTo: cursor, at: date)
    }
    func latestCursor() async throws -> Int64 { try await base.latestCursor() }
    func threadCount(deviceID: String, bundleID: String, threadID: String?) async throws -> Int {
        try await base.threadCount(deviceID: deviceID, bundleID: bundleID, threadID: threadID)
    }
    func appBadges(deviceID: String) async throws -> [AppBadgeRecord] { try await base.appBadges(deviceID: deviceID) }
}
