import Foundation
import HeraldCore

/// The admin API (`/v1/admin/…`); the client's bearer token is the admin token.
extension HeraldAPIClient {
    /// `POST /v1/admin/teams`: creates a team.
    public func createTeam(teamID: String, name: String) async throws -> Data {
        try await send(
            "POST", path: "/v1/admin/teams", body: .object(["team_id": .string(teamID), "name": .string(name)]))
    }

    /// `GET /v1/admin/teams`: `{"teams":[…]}`.
    public func listTeams() async throws -> Data {
        try await send("GET", path: "/v1/admin/teams")
    }

    /// `POST /v1/admin/keys`: registers a signing key of a team. Without `publicKeyPEM` Herald
    /// generates the key pair and answers with the private key and its `.p8` path.
    ///
    /// - Parameter topics: the bundle ids the key may push to; nil = every app of the team.
    public func createKey(teamID: String, keyID: String? = nil, topics: [String]? = nil, publicKeyPEM: String? = nil)
        async throws -> Data
    {
        var body: [String: JSONValue] = ["team_id": .string(teamID)]
        if let keyID { body["key_id"] = .string(keyID) }
        if let topics { body["topics"] = .array(topics.map(JSONValue.string)) }
        if let publicKeyPEM { body["public_key_pem"] = .string(publicKeyPEM) }
        return try await send("POST", path: "/v1/admin/keys", body: .object(body))
    }

    /// `POST /v1/admin/apps`: registers an app (its bundle id is its topic) with its entitlements.
    public func createApp(
        bundleID: String, teamID: String, name: String? = nil, entitlements: Entitlements = Entitlements()
    ) async throws -> Data {
        var body: [String: JSONValue] = [
            "bundle_id": .string(bundleID),
            "team_id": .string(teamID),
            "entitlements": .object([
                "time_sensitive": .bool(entitlements.timeSensitive),
                "critical_alerts": .bool(entitlements.criticalAlerts),
                "communication": .bool(entitlements.communication),
            ]),
        ]
        if let name { body["name"] = .string(name) }
        return try await send("POST", path: "/v1/admin/apps", body: .object(body))
    }

    /// `GET /v1/admin/apps`.
    public func listApps() async throws -> Data {
        try await send("GET", path: "/v1/admin/apps")
    }

    /// `POST /v1/admin/users`: creates a user; the answer holds the user's bearer `token`.
    public func createUser(name: String) async throws -> Data {
        try await send("POST", path: "/v1/admin/users", body: .object(["name": .string(name)]))
    }

    /// `GET /v1/admin/users`.
    public func listUsers() async throws -> Data {
        try await send("GET", path: "/v1/admin/users")
    }

    /// `POST /v1/admin/devices`: adds a device to a user.
    public func createDevice(userID: String, name: String? = nil) async throws -> Data {
        var body: [String: JSONValue] = ["user_id": .string(userID)]
        if let name { body["name"] = .string(name) }
        return try await send("POST", path: "/v1/admin/devices", body: .object(body))
    }

    /// `GET /v1/admin/devices`.
    public func listDevices() async throws -> Data {
        try await send("GET", path: "/v1/admin/devices")
    }

    /// `POST /v1/admin/tokens`: registers a device token of an app on a device; without `token`
    /// Herald generates one.
    public func createDeviceToken(deviceID: String, bundleID: String, token: String? = nil) async throws -> Data {
        var body: [String: JSONValue] = ["device_id": .string(deviceID), "bundle_id": .string(bundleID)]
        if let token { body["token"] = .string(token) }
        return try await send("POST", path: "/v1/admin/tokens", body: .object(body))
    }

    /// `DELETE /v1/admin/tokens/{token}`: unregisters a device token (pushes to it get 410).
    public func removeDeviceToken(_ token: String) async throws -> Data {
        try await send("DELETE", path: "/v1/admin/tokens/\(Self.pathSegment(token))")
    }

    /// `POST /v1/admin/app-credentials`: a credential for one app on one device (what its
    /// `UNUserNotificationCenter` signs the app API with).
    public func createAppCredential(deviceID: String, bundleID: String) async throws -> Data {
        try await send(
            "POST", path: "/v1/admin/app-credentials",
            body: .object(["device_id": .string(deviceID), "bundle_id": .string(bundleID)]))
    }

    /// `PUT /v1/admin/apps/{bundle_id}/webhook`: where the person's responses to the app's
    /// notifications are POSTed; answers the webhook with its new signing secret (shown once).
    public func setWebhook(bundleID: String, url: String) async throws -> Data {
        try await send("PUT", path: webhookPath(bundleID), body: .object(["url": .string(url)]))
    }

    /// `GET /v1/admin/apps/{bundle_id}/webhook`: its url and how its deliveries stand.
    public func webhook(bundleID: String) async throws -> Data {
        try await send("GET", path: webhookPath(bundleID))
    }

    /// `DELETE /v1/admin/apps/{bundle_id}/webhook`: removes it (and its pending deliveries).
    public func removeWebhook(bundleID: String) async throws {
        _ = try await send("DELETE", path: webhookPath(bundleID))
    }

    private func webhookPath(_ bundleID: String) -> String {
        "/v1/admin/apps/\(Self.pathSegment(bundleID))/webhook"
    }

    /// `PUT /v1/admin/apps/{bundle_id}/service-extension` with the registration's fields
    /// (`executable` + `arguments`, or `url`; `timeout_seconds`, `memory_limit_mb`, `processes`).
    public func setServiceExtension(bundleID: String, fields: [String: JSONValue]) async throws -> Data {
        try await send("PUT", path: serviceExtensionPath(bundleID), body: .object(fields))
    }

    /// `GET /v1/admin/apps/{bundle_id}/service-extension`.
    public func serviceExtension(bundleID: String) async throws -> Data {
        try await send("GET", path: serviceExtensionPath(bundleID))
    }

    /// `DELETE /v1/admin/apps/{bundle_id}/service-extension`.
    public func removeServiceExtension(bundleID: String) async throws {
        _ = try await send("DELETE", path: serviceExtensionPath(bundleID))
    }

    private func serviceExtensionPath(_ bundleID: String) -> String {
        "/v1/admin/apps/\(Self.pathSegment(bundleID))/service-extension"
    }
}
