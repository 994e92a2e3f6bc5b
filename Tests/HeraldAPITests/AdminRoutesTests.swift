import Crypto
import Foundation
import GRDB
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import Hummingbird
import HummingbirdTesting
import Testing

@testable import HeraldStore

/// Sends an admin request with the admin token.
func admin(
    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil
) async throws -> TestResponse {
    try await client.execute(
        uri: uri, method: method, headers: bearer(TestHarness.adminToken), body: body.map(jsonBody))
}

@Suite("Admin routes")
struct AdminRoutesTests {
    static let adminRoutes: [(HTTPRequest.Method, String)] = [
        (.post, "/v1/admin/teams"), (.get, "/v1/admin/teams"), (.post, "/v1/admin/keys"), (.post, "/v1/admin/apps"),
        (.post, "/v1/admin/users"), (.post, "/v1/admin/devices"), (.post, "/v1/admin/tokens"),
        (.delete, "/v1/admin/tokens/abcd"),
        (.get, "/v1/admin/clock"), (.put, "/v1/admin/clock"), (.post, "/v1/admin/clock/advance"),
    ]

    @Test(
        "every admin route answers 401 without the admin token, with a wrong one, or with a user's",
        arguments: StoreKind.allCases)
    func adminRoutesNeedTheAdminToken(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (userToken, _) = try await harness.makeDevice()
        try await harness.makeApplication().test(.router) { client in
            for (method, uri) in Self.adminRoutes {
                for headers: HTTPFields in [[:], bearer("wrong"), bearer(userToken), [.authorization: "Basic abc"]] {
                    let response = try await client.execute(
                        uri: uri, method: method, headers: headers, body: jsonBody("{}"))
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(response.errorCode == "unauthorized")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
            }
        }
    }

    @Test("teams: create, list, conflict and validation", arguments: StoreKind.allCases)
    func teams(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        try await harness.makeApplication().test(.router) { client in
            let created = try await admin(
                client, .post, "/v1/admin/teams", #"{"team_id":"ABCDE12345","name":"Example"}"#)
            #expect(created.status == .created)
            #expect(created.json["team_id"] == .string("ABCDE12345"))
            #expect(created.json["name"] == .string("Example"))
            #expect(created.json["created_at"] == .string("2025-06-15T15:06:40.250Z"))

            let again = try await admin(client, .post, "/v1/admin/teams", #"{"team_id":"ABCDE12345"}"#)
            #expect(again.status == .conflict)
            #expect(again.errorCode == "team_exists")

            let list = try await admin(client, .get, "/v1/admin/teams")
            #expect(list.status == .ok)
            #expect(list.json["teams"]?[0]?["team_id"] == .string("ABCDE12345"))

            let lowercase = try await admin(client, .post, "/v1/admin/teams", #"{"team_id":"abcde12345"}"#)
            #expect(lowercase.status == .badRequest)
            #expect(lowercase.errorCode == "invalid_field")
            #expect(lowercase.json["error"]?["message"]?.stringValue?.contains("team_id") == true)

            let missing = try await admin(client, .post, "/v1/admin/teams", #"{"name":"x"}"#)
            #expect(missing.errorCode == "missing_field")
            #expect(missing.json["error"]?["message"] == .string("`team_id` is required."))

            let wrongType = try await admin(client, .post, "/v1/admin/teams", #"{"team_id":12}"#)
            #expect(wrongType.errorCode == "invalid_field")
            #expect(wrongType.json["error"]?["message"] == .string("`team_id` must be a string."))

            for body in ["{", "", "[1]", "null"] {
                let bad = try await admin(client, .post, "/v1/admin/teams", body)
                #expect(bad.status == .badRequest, "body \(body)")
                #expect(bad.errorCode == "invalid_json", "body \(body)")
            }
        }
    }

    @Test(
        "keys: Herald generates a P-256 key, writes AuthKey_<KEYID>.p8 (0600) and returns it once",
        arguments: StoreKind.allCases)
    func generatedKey(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        _ = try await harness.registry.createTeam(id: TestHarness.teamID)
        try await harness.makeApplication().test(.router) { client in
            let response = try await admin(client, .post, "/v1/admin/keys", #"{"team_id":"TEAM123456"}"#)
            #expect(response.status == .created)
            let keyID = try #require(response.json["key_id"]?.stringValue)
            #expect(Team.isValidIdentifier(keyID))
            #expect(response.json["topics"]?.isNull == true)
            let path = try #require(response.json["key_path"]?.stringValue)
            #expect(path.hasSuffix("/keys/AuthKey_\(keyID).p8"))
            let privatePEM = try #require(response.json["private_key_pem"]?.stringValue)
            #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))

            let file = try String(contentsOfFile: path, encoding: .utf8)
            let key = try P256.Signing.PrivateKey(pemRepresentation: file)
            #expect(key.publicKey.pemRepresentation == response.json["public_key_pem"]?.stringValue)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            // The APNs endpoint sees the key at once.
            #expect(harness.cache.snapshot.publicKeys[keyID] != nil)
        }
    }

    @Test("keys: a given public key, topics, conflicts and validation", arguments: StoreKind.allCases)
    func registeredKey(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        _ = try await harness.registry.createTeam(id: TestHarness.teamID)
        let publicPEM = P256.Signing.PrivateKey().publicKey.pemRepresentation
        let pemJSON = String(decoding: try JSONEncoder().encode(publicPEM), as: UTF8.self)
        try await harness.makeApplication().test(.router) { client in
            let body =
                #"{"team_id":"TEAM123456","key_id":"KEY1234567","topics":["com.example.app"],"public_key_pem":\#(pemJSON)}"#
            let response = try await admin(client, .post, "/v1/admin/keys", body)
            #expect(response.status == .created)
            #expect(response.json["key_id"] == .string("KEY1234567"))
            #expect(response.json["topics"] == .array([.string("com.example.app")]))
            #expect(response.json["private_key_pem"] == nil)
            #expect(response.json["key_path"] == nil)
            #expect(harness.cache.snapshot.keys["KEY1234567"]?.topics == ["com.example.app"])

            #expect(try await admin(client, .post, "/v1/admin/keys", body).errorCode == "key_exists")
            let cases: [(String, String)] = [
                (#"{"team_id":"NOTEAM0000"}"#, "team_not_found"),
                (#"{"team_id":"TEAM123456","key_id":"short"}"#, "invalid_field"),
                (#"{"team_id":"TEAM123456","topics":[]}"#, "invalid_field"),
                (#"{"team_id":"TEAM123456","public_key_pem":"not a key"}"#, "invalid_field"),
                (#"{"key_id":"KEY1234568"}"#, "missing_field"),
            ]
            for (body, code) in cases {
                #expect(try await admin(client, .post, "/v1/admin/keys", body).errorCode == code, "\(body)")
            }
        }
    }

    @Test("apps: create with entitlements, conflict, unknown team, bad bundle id", arguments: StoreKind.allCases)
    func apps(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        _ = try await harness.registry.createTeam(id: TestHarness.teamID)
        try await harness.makeApplication().test(.router) { client in
            let body =
                #"{"bundle_id":"com.example.chat","team_id":"TEAM123456","name":"Chat","entitlements":{"time_sensitive":true,"communication":true}}"#
            let response = try await admin(client, .post, "/v1/admin/apps", body)
            #expect(response.status == .created)
            #expect(response.json["bundle_id"] == .string("com.example.chat"))
            #expect(response.json["entitlements"]?["time_sensitive"] == .bool(true))
            #expect(response.json["entitlements"]?["critical_alerts"] == .bool(false))
            #expect(harness.cache.snapshot.apps["com.example.chat"]?.entitlements.communication == true)

            #expect(try await admin(client, .post, "/v1/admin/apps", body).errorCode == "app_exists")
            let unknownTeam = try await admin(
                client, .post, "/v1/admin/apps", #"{"bundle_id":"com.x","team_id":"NOTEAM0000"}"#)
            #expect(unknownTeam.status == .notFound)
            #expect(unknownTeam.errorCode == "team_not_found")
            let badID = try await admin(
                client, .post, "/v1/admin/apps", #"{"bundle_id":"com..x","team_id":"TEAM123456"}"#)
            #expect(badID.errorCode == "invalid_field")
            let badEntitlement = try await admin(
                client, .post, "/v1/admin/apps",
                #"{"bundle_id":"com.y","team_id":"TEAM123456","entitlements":{"communication":"yes"}}"#
            )
            #expect(
                badEntitlement.json["error"]?["message"]
                    == .string("`entitlements.communication` must be true or false."))
        }
    }

    @Test("users and devices: the token is returned once and only its digest is stored", arguments: StoreKind.allCases)
    func usersAndDevices(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        try await harness.makeApplication().test(.router) { client in
            let user = try await admin(client, .post, "/v1/admin/users", #"{"name":"Alice"}"#)
            #expect(user.status == .created)
            let token = try #require(user.json["token"]?.stringValue)
            let userID = try #require(user.json["user_id"]?.stringValue)
            #expect(token.count >= 32)
            #expect(try await harness.store.user(tokenDigest: RegistryService.tokenDigest(token))?.userID == userID)
            #expect(try await harness.store.user(tokenDigest: token) == nil)
            #expect(try await admin(client, .post, "/v1/admin/users", #"{"name":"  "}"#).errorCode == "missing_field")

            let device = try await admin(
                client, .post, "/v1/admin/devices", #"{"user_id":"\#(userID)","name":"Phone"}"#)
            #expect(device.status == .created)
            #expect(device.json["user_id"] == .string(userID))
            #expect(device.json["name"] == .string("Phone"))
            let unknown = try await admin(client, .post, "/v1/admin/devices", #"{"user_id":"nobody"}"#)
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "user_not_found")
        }
    }

    @Test(
        "device tokens: generated or given (stored lowercase), replaced per app, unregistered",
        arguments: StoreKind.allCases)
    func deviceTokens(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        let id = device.deviceID
        try await harness.makeApplication().test(.router) { client in
            let generated = try await admin(
                client, .post, "/v1/admin/tokens", #"{"device_id":"\#(id)","bundle_id":"com.example.app"}"#)
            #expect(generated.status == .created)
            let first = try #require(generated.json["token"]?.stringValue)
            #expect(first.count == 64 && first == first.lowercased() && DeviceTokenFormat.isWellFormed(first[...]))
            #expect(generated.json["unregistered_at"]?.isNull == true)

            let given = try await admin(
                client, .post, "/v1/admin/tokens",
                #"{"device_id":"\#(id)","bundle_id":"com.example.app","token":"ABCDEF0123"}"#)
            #expect(given.json["token"] == .string("abcdef0123"))
            // The device's earlier token for the app is unregistered, and the APNs endpoint knows.
            #expect(harness.cache.snapshot.tokens[first]?.unregisteredAt != nil)
            #expect(harness.cache.snapshot.tokens["abcdef0123"]?.unregisteredAt == nil)

            let cases: [(String, String)] = [
                (#"{"device_id":"\#(id)","bundle_id":"com.example.app","token":"abcdef0123"}"#, "token_exists"),
                (#"{"device_id":"\#(id)","bundle_id":"com.example.app","token":"abc"}"#, "invalid_field"),
                (#"{"device_id":"\#(id)","bundle_id":"com.example.app","token":"zz"}"#, "invalid_field"),
                (#"{"device_id":"nope","bundle_id":"com.example.app"}"#, "device_not_found"),
                (#"{"device_id":"\#(id)","bundle_id":"com.example.none"}"#, "app_not_found"),
            ]
            for (body, code) in cases {
                #expect(try await admin(client, .post, "/v1/admin/tokens", body).errorCode == code, "\(body)")
            }

            let removed = try await admin(client, .delete, "/v1/admin/tokens/ABCDEF0123")
            #expect(removed.status == .ok)
            #expect(removed.json["token"] == .string("abcdef0123"))
            #expect(removed.json["unregistered_at"]?.stringValue != nil)
            #expect(harness.cache.snapshot.tokens["abcdef0123"]?.unregisteredAt != nil)
            let unknown = try await admin(client, .delete, "/v1/admin/tokens/00ff")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "token_not_found")
        }
    }

    @Test("wrong method 405 with Allow, unknown path 404, large body 413, store failure opaque 500")
    func protocolErrors() async throws {
        let harness = try TestHarness()
        try await harness.makeApplication().test(.router) { client in
            let wrongMethod = try await admin(client, .put, "/v1/admin/teams", "{}")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.errorCode == "method_not_allowed")
            #expect(wrongMethod.headers[.allow] == "GET, POST")

            let unknown = try await admin(client, .get, "/v1/nothing")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "not_found")

            let large = try await admin(
                client, .post, "/v1/admin/users", #"{"name":"\#(String(repeating: "x", count: 70_000))"}"#)
            #expect(large.status == .contentTooLarge)
            #expect(large.errorCode == "payload_too_large")

            // A broken database: the table the route reads is gone.
            try await harness.store.writer.write { try $0.execute(sql: "ALTER TABLE teams RENAME TO teams_gone") }
            let failed = try await admin(client, .get, "/v1/admin/teams")
            #expect(failed.status == .internalServerError)
            #expect(
                failed.json
                    == .object([
                        "error": .object([
                            "code": .string("internal_error"),
                            "message": .string("The server could not complete the request."),
                        ])
                    ]))
        }
    }
}
