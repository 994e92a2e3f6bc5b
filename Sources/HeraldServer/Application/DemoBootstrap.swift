import Foundation
import HeraldAPI
import HeraldCore
import HeraldPolicy
import HeraldStore

/// Creates the demo setup on a fresh data directory: a team with a generated key, the app
/// `com.example.demo` (all entitlements), a user, a device and its token. The device starts unlocked,
/// as a phone in someone's hand: Show Previews is When Unlocked by default, so a locked one would show
/// a newcomer's first push as "Notification" (`PUT /v1/devices/{id}/state` locks it).
enum DemoBootstrap {
    static let topic = "com.example.demo"

    static func loadOrCreate(in directory: DataDirectory, registry: RegistryService) async throws -> DemoSetup {
        if let existing = try directory.readDemo() { return existing }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let teamID = String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
        _ = try await registry.createTeam(id: teamID, name: "Demo Team")
        let key = try await registry.createKey(teamID: teamID)
        _ = try await registry.createApp(
            bundleID: topic, teamID: teamID, name: "Demo",
            entitlements: Entitlements(timeSensitive: true, criticalAlerts: true, communication: true)
        )
        let user = try await registry.createUser(name: "Demo User")
        let device = try await registry.createDevice(userID: user.user.userID, name: "Demo Device")
        let token = try await registry.createDeviceToken(deviceID: device.deviceID, bundleID: topic)
        try await registry.store.setDeviceState(DeviceState(isLocked: false), deviceID: device.deviceID)
        let demo = DemoSetup(
            teamID: teamID, keyID: key.key.keyID,
            keyPath: key.keyPath ?? directory.privateKeyURL(keyID: key.key.keyID).path,
            topic: topic, deviceToken: token.token, deviceID: device.deviceID, userToken: user.token
        )
        try directory.writeDemo(demo)
        return demo
    }
}
