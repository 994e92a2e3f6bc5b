import Foundation
import HeraldCore
import HeraldStore

/// A registry and notifications to test the store with. Dates fall on whole milliseconds, as the
/// store keeps them, so values read back compare equal.
enum Fixture {
    static let teamID = "TEAM000001"
    static let appID = "com.example.app"
    static let otherAppID = "com.example.other"
    static let userID = "user-1"
    static let deviceID = "device-1"
    static let otherDeviceID = "device-2"
    static let tokenDigest = String(repeating: "ab", count: 32)

    /// 2025-06-15T15:06:40.123Z plus `seconds` (and `milliseconds`).
    static func time(_ seconds: Int64 = 0, milliseconds: Int64 = 0) -> Date {
        Date(timeIntervalSince1970: Double(1_750_000_000_123 + seconds * 1000 + milliseconds) / 1000)
    }

    /// A store with a team, two apps, a user and two devices.
    static func makeStore() async throws -> SQLiteStore {
        let store = try SQLiteStore.inMemory()
        try await seed(store)
        return store
    }

    static func seed(_ store: some RegistryStore) async throws {
        try await store.createTeam(Team(teamID: teamID, name: "Example", createdAt: time()))
        for bundleID in [appID, otherAppID] {
            try await store.createApp(
                App(
                    bundleID: bundleID, teamID: teamID, name: bundleID, entitlements: Entitlements(), createdAt: time()
                ))
        }
        try await store.createUser(User(userID: userID, name: "Ada", createdAt: time()), tokenDigest: tokenDigest)
        for deviceID in [deviceID, otherDeviceID] {
            try await store.createDevice(Device(deviceID: deviceID, userID: userID, name: deviceID, createdAt: time()))
        }
    }

    /// A new notification as the push pipeline hands it to the store.
    static func notification(
        _ id: String,
        device: String = deviceID,
        app: String = appID,
        collapseID: String? = nil,
        expiration: Int64? = nil,
        receivedAt: Date = time(),
        deliveredAt: Date? = nil,
        payload: String = #"{"aps":{"alert":"hello"}}"#
    ) -> StoredNotification {
        StoredNotification(
            seq: 0, id: id, deviceID: device, bundleID: app, topic: app, pushType: .alert, priority: 10,
            collapseID: collapseID, expiration: expiration, payload: payload, receivedAt: receivedAt,
            deliveredAt: deliveredAt
        )
    }

    /// A hex device token.
    static func token(_ byte: UInt8) -> String {
        String(repeating: String(byte, radix: 16).leftPadded(to: 2), count: 32)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
