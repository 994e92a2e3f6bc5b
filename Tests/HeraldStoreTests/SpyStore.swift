import Foundation
import HeraldCore
import HeraldStore

/// A store that forwards to a real one and records `insert` calls; it can be told to fail them.
final class SpyStore: HeraldStore {
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

    func registrySnapshot() async throws -> RegistrySnapshot { try await base.registrySnapshot() }
    func createTeam(_ team: Team) async throws { try await base.createTeam(team) }
    func teams() async throws -> [Team] { try await base.teams() }
    func createKey(_ key: SigningKey) async throws { try await base.createKey(key) }
    func keys() async throws -> [SigningKey] { try await base.keys() }
    func createApp(_ app: App) async throws { try await base.createApp(app) }
    func apps() async throws -> [App] { try await base.apps() }
    func createUser(_ user: User, tokenDigest: String) async throws {
        try await base.createUser(user, tokenDigest: tokenDigest)
    }
    func users() async throws -> [User] { try await base.users() }
    func user(tokenDigest: String) async throws -> User? { try await base.user(tokenDigest: tokenDigest) }
    func createDevice(_ device: Device) async throws { try await base.createDevice(device) }
    func device(id: String) async throws -> Device? { try await base.device(id: id) }
    func devices(userID: String?) async throws -> [Device] { try await base.devices(userID: userID) }
    func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord? {
        try await base.createDeviceToken(record)
    }
    func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord? {
        try await base.unregisterDeviceToken(token, at: date)
    }
    func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord] {
        try await base.deviceTokens(deviceID: deviceID)
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
    func close() async throws { try await base.close() }
}
