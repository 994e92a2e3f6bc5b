import Foundation
import HeraldCore
import HeraldStore

/// A `HeraldStore` in memory, following the protocol's documented rules, for the API tests.
actor InMemoryStore: HeraldStore {
    struct InjectedFailure: Error {}

    private var teamList: [Team] = []
    private var keyList: [SigningKey] = []
    private var appList: [App] = []
    private var userList: [(user: User, digest: String)] = []
    private var deviceList: [Device] = []
    private var tokenList: [DeviceTokenRecord] = []
    private var rows: [String: [String: StoredNotification]] = [:]
    private var seq: Int64 = 0
    private var isFailing = false
    /// How many times `markDelivered` ran, and the last cursor it got.
    private(set) var deliveryMarks: [Int64] = []

    /// Makes every later call throw an unexpected error (a broken database).
    func failEveryCall() { isFailing = true }

    private func check() throws {
        if isFailing { throw InjectedFailure() }
    }

    func registrySnapshot() async throws -> RegistrySnapshot {
        try check()
        return RegistrySnapshot(keys: keyList, apps: appList, tokens: tokenList)
    }

    func createTeam(_ team: Team) async throws {
        try check()
        guard !teamList.contains(where: { $0.teamID == team.teamID }) else {
            throw StoreError(.conflict, "team exists")
        }
        teamList.append(team)
    }

    func teams() async throws -> [Team] {
        try check()
        return teamList
    }

    func createKey(_ key: SigningKey) async throws {
        try check()
        guard !keyList.contains(where: { $0.keyID == key.keyID }) else { throw StoreError(.conflict, "key exists") }
        guard teamList.contains(where: { $0.teamID == key.teamID }) else { throw StoreError(.notFound, "no team") }
        keyList.append(key)
    }

    func keys() async throws -> [SigningKey] {
        try check()
        return keyList
    }

    func createApp(_ app: App) async throws {
        try check()
        guard !appList.contains(where: { $0.bundleID == app.bundleID }) else {
            throw StoreError(.conflict, "app exists")
        }
        guard teamList.contains(where: { $0.teamID == app.teamID }) else { throw StoreError(.notFound, "no team") }
        appList.append(app)
    }

    func apps() async throws -> [App] {
        try check()
        return appList
    }

    func createUser(_ user: User, tokenDigest: String) async throws {
        try check()
        userList.append((user, tokenDigest))
    }

    func users() async throws -> [User] {
        try check()
        return userList.map(\.user)
    }

    func user(tokenDigest: String) async throws -> User? {
        try check()
        return userList.first { $0.digest == tokenDigest }?.user
    }

    func createDevice(_ device: Device) async throws {
        try check()
        guard userList.contains(where: { $0.user.userID == device.userID }) else {
            throw StoreError(.notFound, "no user")
        }
        deviceList.append(device)
    }

    func device(id: String) async throws -> Device? {
        try check()
        return deviceList.first { $0.deviceID == id }
    }

    func devices(userID: String?) async throws -> [Device] {
        try check()
        return deviceList.filter { userID == nil || $0.userID == userID }
    }

    func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord? {
        try check()
        guard !tokenList.contains(where: { $0.token == record.token }) else {
            throw StoreError(.conflict, "token exists")
        }
        guard deviceList.contains(where: { $0.deviceID == record.deviceID }),
            appList.contains(where: { $0.bundleID == record.bundleID })
        else { throw StoreError(.notFound, "no device or app") }
        var replaced: DeviceTokenRecord?
        if let index = tokenList.firstIndex(where: {
            $0.deviceID == record.deviceID && $0.bundleID == record.bundleID && $0.unregisteredAt == nil
        }) {
            tokenList[index].unregisteredAt = record.createdAt
            replaced = tokenList[index]
        }
        tokenList.append(record)
        return replaced
    }

    func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord? {
        try check()
        guard let index = tokenList.firstIndex(where: { $0.token == token }) else { return nil }
        if tokenList[index].unregisteredAt == nil { tokenList[index].unregisteredAt = date }
        return tokenList[index]
    }

    func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord] {
        try check()
        return tokenList.filter { deviceID == nil || $0.deviceID == deviceID }
    }

    // MARK: Notification lists

    private func nextSeq() -> Int64 {
        seq += 1
        return seq
    }

    func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification] {
        try check()
        var changes: [StoredNotification] = []
        for var notification in notifications {
            var list = rows[notification.deviceID, default: [:]]
            if let collapseID = notification.collapseID {
                for (id, row) in list
                where id != notification.id && row.bundleID == notification.bundleID
                    && row.collapseID == collapseID && !row.isRemoved
                {
                    var tombstone = row
                    tombstone.seq = nextSeq()
                    tombstone.removedAt = notification.receivedAt
                    list[id] = tombstone
                    changes.append(tombstone)
                }
            }
            notification.seq = nextSeq()
            list[notification.id] = notification
            rows[notification.deviceID] = list
            changes.append(notification)
        }
        return changes
    }

    func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws -> [StoredNotification] {
        try check()
        let all = (rows[deviceID] ?? [:]).values.filter { $0.seq > cursor && $0.isDeliverable(now: now) }
        return Array(all.sorted { $0.seq < $1.seq }.prefix(limit))
    }

    func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    {
        try check()
        let all = (rows[deviceID] ?? [:]).values.filter {
            $0.seq > cursor && !$0.isRemoved && $0.isDeliverable(now: now)
        }
        return Array(all.sorted { $0.seq < $1.seq }.prefix(limit))
    }

    func notification(deviceID: String, id: String) async throws -> StoredNotification? {
        try check()
        return rows[deviceID]?[id].flatMap { $0.isRemoved ? nil : $0 }
    }

    private func change(deviceID: String, id: String, _ update: (inout StoredNotification) -> Void)
        -> StoredNotification?
    {
        guard var row = rows[deviceID]?[id], !row.isRemoved else { return nil }
        update(&row)
        row.seq = nextSeq()
        rows[deviceID]?[id] = row
        return row
    }

    func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try check()
        return change(deviceID: deviceID, id: id) { $0.readAt = $0.readAt ?? date }
    }

    func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try check()
        return change(deviceID: deviceID, id: id) { $0.dismissedAt = $0.dismissedAt ?? date }
    }

    func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification? {
        try check()
        return change(deviceID: deviceID, id: id) { $0.removedAt = date }
    }

    func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws {
        try check()
        deliveryMarks.append(cursor)
        for (id, row) in rows[deviceID] ?? [:]
        where row.seq <= cursor && row.deliveredAt == nil && row.isDeliverable(now: date) {
            rows[deviceID]?[id]?.deliveredAt = date
        }
    }

    func latestCursor() async throws -> Int64 {
        try check()
        return seq
    }

    func close() async throws {}
}
