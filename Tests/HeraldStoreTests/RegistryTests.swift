import Foundation
import HeraldCore
import HeraldStore
import Testing

@Suite("Registry")
struct RegistryTests {
    @Test(arguments: StoreEngine.all)
    func registryRecordsReadBackAsCreated(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let scoped = SigningKey(
            keyID: "KEY0000001", teamID: Fixture.teamID, topics: [Fixture.appID], publicKeyPEM: "pem-1",
            createdAt: Fixture.time(1)
        )
        let teamWide = SigningKey(
            keyID: "KEY0000002", teamID: Fixture.teamID, topics: nil, publicKeyPEM: "pem-2", createdAt: Fixture.time(2)
        )
        let entitled = App(
            bundleID: "com.example.entitled", teamID: Fixture.teamID, name: "Entitled",
            entitlements: Entitlements(timeSensitive: true, criticalAlerts: false, communication: true),
            createdAt: Fixture.time(3)
        )
        let token = DeviceTokenRecord(
            token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time(4)
        )
        try await store.createKey(scoped)
        try await store.createKey(teamWide)
        try await store.createApp(entitled)
        try await store.createDeviceToken(token)

        #expect(try await store.teams() == [Team(teamID: Fixture.teamID, name: "Example", createdAt: Fixture.time())])
        #expect(try await store.keys() == [scoped, teamWide])
        #expect(try await store.apps().last == entitled)
        #expect(try await store.users().map(\.userID) == [Fixture.userID])
        #expect(try await store.user(tokenDigest: Fixture.tokenDigest)?.userID == Fixture.userID)
        #expect(try await store.user(tokenDigest: String(repeating: "cd", count: 32)) == nil)
        #expect(try await store.device(id: Fixture.deviceID)?.userID == Fixture.userID)
        #expect(try await store.device(id: "nope") == nil)
        #expect(
            try await store.devices(userID: Fixture.userID).map(\.deviceID) == [
                Fixture.deviceID, Fixture.otherDeviceID,
            ])
        #expect(try await store.devices(userID: "someone-else").isEmpty)
        #expect(try await store.devices(userID: nil).count == 2)
        #expect(try await store.deviceTokens(deviceID: Fixture.deviceID) == [token])
        #expect(try await store.deviceTokens(deviceID: Fixture.otherDeviceID).isEmpty)
        #expect(try await store.deviceToken(token.token) == token)
        #expect(try await store.deviceToken(Fixture.token(2)) == nil)

        let snapshot = try await store.registrySnapshot()
        #expect(snapshot.keys[scoped.keyID] == scoped)
        #expect(snapshot.keys[teamWide.keyID]?.topics == nil)
        #expect(snapshot.apps[entitled.bundleID]?.entitlements == entitled.entitlements)
        #expect(snapshot.tokens[token.token] == token)
    }

    @Test(arguments: StoreEngine.all)
    func creatingAnExistingRecordIsAConflict(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let key = SigningKey(
            keyID: "KEY0000001", teamID: Fixture.teamID, topics: nil, publicKeyPEM: "pem", createdAt: Fixture.time())
        try await store.createKey(key)
        let token = DeviceTokenRecord(
            token: Fixture.token(7), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time())
        try await store.createDeviceToken(token)

        let errors: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.createTeam(Team(teamID: Fixture.teamID, name: "Again", createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) { try await store.createKey(key) },
            await #expect(throws: StoreError.self) {
                try await store.createApp(
                    App(
                        bundleID: Fixture.appID, teamID: Fixture.teamID, name: "x", entitlements: Entitlements(),
                        createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createUser(
                    User(userID: Fixture.userID, name: "x", createdAt: Fixture.time()), tokenDigest: "00")
            },
            await #expect(throws: StoreError.self) {
                try await store.createUser(
                    User(userID: "user-2", name: "x", createdAt: Fixture.time()), tokenDigest: Fixture.tokenDigest)
            },
            await #expect(throws: StoreError.self) {
                try await store.createDevice(
                    Device(deviceID: Fixture.deviceID, userID: Fixture.userID, name: "x", createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createDeviceToken(
                    DeviceTokenRecord(
                        token: token.token, deviceID: Fixture.otherDeviceID, bundleID: Fixture.otherAppID,
                        createdAt: Fixture.time()))
            },
        ]
        #expect(errors.map(\.?.kind) == Array(repeating: .conflict, count: errors.count))
        // Error messages never carry secrets.
        for error in errors {
            #expect(error?.message.contains(token.token) == false)
            #expect(error?.message.contains(Fixture.tokenDigest) == false)
        }
        #expect(try await store.users().count == 1)
        #expect(try await store.deviceTokens(deviceID: Fixture.otherDeviceID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func referringToAMissingRecordIsNotFound(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let errors: [StoreError?] = [
            await #expect(throws: StoreError.self) {
                try await store.createKey(
                    SigningKey(
                        keyID: "KEY0000001", teamID: "NOTEAM0000", topics: nil, publicKeyPEM: "pem",
                        createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createApp(
                    App(
                        bundleID: "com.example.new", teamID: "NOTEAM0000", name: "x", entitlements: Entitlements(),
                        createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createDevice(
                    Device(deviceID: "device-9", userID: "nobody", name: "x", createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createDeviceToken(
                    DeviceTokenRecord(
                        token: Fixture.token(1), deviceID: "device-9", bundleID: Fixture.appID,
                        createdAt: Fixture.time()))
            },
            await #expect(throws: StoreError.self) {
                try await store.createDeviceToken(
                    DeviceTokenRecord(
                        token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: "com.example.none",
                        createdAt: Fixture.time()))
            },
        ]
        #expect(errors.map(\.?.kind) == Array(repeating: .notFound, count: errors.count))
        #expect(try await store.keys().isEmpty)
        #expect(try await store.deviceTokens(deviceID: nil).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aNewTokenUnregistersTheDevicesEarlierTokenForThatAppOnly(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let first = DeviceTokenRecord(
            token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time(1))
        let otherApp = DeviceTokenRecord(
            token: Fixture.token(2), deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID,
            createdAt: Fixture.time(2))
        let otherDevice = DeviceTokenRecord(
            token: Fixture.token(3), deviceID: Fixture.otherDeviceID, bundleID: Fixture.appID,
            createdAt: Fixture.time(3))
        #expect(try await store.createDeviceToken(first) == nil)
        #expect(try await store.createDeviceToken(otherApp) == nil)
        #expect(try await store.createDeviceToken(otherDevice) == nil)

        // When the device registers a new token for the same app
        let second = DeviceTokenRecord(
            token: Fixture.token(4), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time(10))
        let replaced = try await store.createDeviceToken(second)

        // Then the earlier one is a tombstone unregistered at the new one's creation, the rest stay live
        var expectedFirst = first
        expectedFirst.unregisteredAt = Fixture.time(10)
        #expect(replaced == expectedFirst)
        let tokens = try await store.registrySnapshot().tokens
        #expect(tokens[first.token] == expectedFirst)
        #expect(tokens[second.token]?.unregisteredAt == nil)
        #expect(tokens[otherApp.token]?.unregisteredAt == nil)
        #expect(tokens[otherDevice.token]?.unregisteredAt == nil)
    }

    @Test(arguments: StoreEngine.all)
    func unregisteringATokenKeepsTheFirstTime(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let token = DeviceTokenRecord(
            token: Fixture.token(1), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time())
        try await store.createDeviceToken(token)

        let first = try await store.unregisterDeviceToken(token.token, at: Fixture.time(60))
        let second = try await store.unregisterDeviceToken(token.token, at: Fixture.time(120))

        #expect(first?.unregisteredAt == Fixture.time(60))
        #expect(second?.unregisteredAt == Fixture.time(60))
        #expect(try await store.deviceTokens(deviceID: Fixture.deviceID).first?.unregisteredAt == Fixture.time(60))
        #expect(try await store.unregisterDeviceToken(Fixture.token(9), at: Fixture.time()) == nil)
        // An unregistered token frees the app's slot on the device.
        let next = DeviceTokenRecord(
            token: Fixture.token(2), deviceID: Fixture.deviceID, bundleID: Fixture.appID, createdAt: Fixture.time(180))
        #expect(try await store.createDeviceToken(next) == nil)
    }
}
