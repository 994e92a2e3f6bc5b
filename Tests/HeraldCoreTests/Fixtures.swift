import Crypto
import Foundation
import HeraldCore

/// A registry with one team (key, apps, device tokens) and a second team, for validator tests.
struct Fixture {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    let key = P256.Signing.PrivateKey()
    let otherKey = P256.Signing.PrivateKey()
    let scopedKey = P256.Signing.PrivateKey()
    let registry: RegistrySnapshot
    let token = String(repeating: "ab", count: 32)
    let otherAppToken = String(repeating: "cd", count: 32)
    let goneToken = String(repeating: "ef", count: 32)

    init() {
        registry = RegistrySnapshot(
            keys: [
                SigningKey(
                    keyID: "KEY1234567", teamID: "TEAM123456", topics: nil,
                    publicKeyPEM: key.publicKey.pemRepresentation, createdAt: Self.epoch),
                SigningKey(
                    keyID: "OTHERKEY01", teamID: "OTHERTEAM1", topics: nil,
                    publicKeyPEM: otherKey.publicKey.pemRepresentation, createdAt: Self.epoch),
                SigningKey(
                    keyID: "SCOPEDKEY1", teamID: "TEAM123456", topics: ["com.example.other"],
                    publicKeyPEM: scopedKey.publicKey.pemRepresentation, createdAt: Self.epoch),
            ],
            apps: [
                App(
                    bundleID: "com.example.demo", teamID: "TEAM123456", name: "Demo", entitlements: Entitlements(),
                    createdAt: Self.epoch),
                App(
                    bundleID: "com.example.other", teamID: "TEAM123456", name: "Other", entitlements: Entitlements(),
                    createdAt: Self.epoch),
                App(
                    bundleID: "com.rival.app", teamID: "OTHERTEAM1", name: "Rival", entitlements: Entitlements(),
                    createdAt: Self.epoch),
            ],
            tokens: [
                DeviceTokenRecord(
                    token: String(repeating: "ab", count: 32), deviceID: "device-1", bundleID: "com.example.demo",
                    createdAt: Self.epoch),
                DeviceTokenRecord(
                    token: String(repeating: "cd", count: 32), deviceID: "device-1", bundleID: "com.example.other",
                    createdAt: Self.epoch),
                DeviceTokenRecord(
                    token: String(repeating: "ef", count: 32), deviceID: "device-1", bundleID: "com.example.demo",
                    createdAt: Self.epoch,
                    unregisteredAt: Date(timeIntervalSince1970: 1_799_000_000.5)),
            ]
        )
    }

    func jwt(
        key: P256.Signing.PrivateKey? = nil, keyID: String = "KEY1234567", teamID: String = "TEAM123456",
        issuedAt: Date = Fixture.epoch
    ) -> String {
        try! ProviderToken.make(teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: key ?? self.key)
    }

    func request(
        method: String = "POST",
        token: String? = nil,
        headers: [(String, String)]? = nil,
        extraHeaders: [(String, String)] = [],
        body: String = #"{"aps":{"alert":"hello"}}"#
    ) -> APNsRequest {
        let base =
            headers ?? [
                ("authorization", "bearer \(jwt())"),
                ("apns-topic", "com.example.demo"),
                ("apns-push-type", "alert"),
            ]
        return APNsRequest(
            method: method,
            path: "/3/device/\(token ?? self.token)",
            headers: (base + extraHeaders).map { (name: $0.0, value: $0.1) },
            body: Array(body.utf8)
        )
    }

    func validate(_ request: APNsRequest, auth: inout ProviderAuthState, now: Date = Fixture.epoch) -> Result<
        AcceptedPush, APNsFailure
    > {
        PushValidator.validate(request, auth: &auth, registry: registry, apnsID: "id", now: now)
    }

    func reason(_ request: APNsRequest, now: Date = Fixture.epoch) -> String? {
        var auth = ProviderAuthState()
        switch validate(request, auth: &auth, now: now) {
        case .success: return nil
        case .failure(let failure): return failure.reason.reason
        }
    }
}
