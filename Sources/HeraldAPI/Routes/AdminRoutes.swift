import HeraldCore
import HeraldStore
import Hummingbird

/// The admin routes (`/v1/admin/…`): the registry, behind the admin token.
struct AdminRoutes: Sendable {
    let registry: RegistryService
    let authenticator: Authenticator

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/admin/teams", authenticator.adminOnly(createTeam)),
            APIRoute(.get, "/v1/admin/teams", authenticator.adminOnly(listTeams)),
            APIRoute(.post, "/v1/admin/keys", authenticator.adminOnly(createKey)),
            APIRoute(.post, "/v1/admin/apps", authenticator.adminOnly(createApp)),
            APIRoute(.post, "/v1/admin/users", authenticator.adminOnly(createUser)),
            APIRoute(.post, "/v1/admin/devices", authenticator.adminOnly(createDevice)),
            APIRoute(.post, "/v1/admin/tokens", authenticator.adminOnly(createDeviceToken)),
            APIRoute(.delete, "/v1/admin/tokens/{token}", authenticator.adminOnly(unregisterDeviceToken)),
            APIRoute(.post, "/v1/admin/app-credentials", authenticator.adminOnly(createAppCredential)),
        ]
    }

    @Sendable func createAppCredential(_ request: Request, context: APIRequestContext) async throws -> Response {
        let fields = try await JSONFields.body(request, context: context)
        try fields.allowOnly(["device_id", "bundle_id"])
        guard let deviceID = try fields.string("device_id") else { throw APIError.missingField("device_id") }
        guard let bundleID = try fields.string("bundle_id") else { throw APIError.missingField("bundle_id") }
        let created = try await registry.createAppCredential(deviceID: deviceID, bundleID: bundleID)
        return JSONBody.response(
            status: .created,
            JSONValue.object([
                "credential": .string(created.credential), "device_id": .string(created.record.deviceID),
                "bundle_id": .string(created.record.bundleID), "user_id": .string(created.record.userID),
                "created_at": .string(Timestamp.string(created.record.createdAt)),
            ]))
    }

    @Sendable func createTeam(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateTeamBody.self, from: request, context: context)
        let team = try await registry.createTeam(id: body.teamID, name: body.name)
        return JSONBody.response(status: .created, TeamJSON(team))
    }

    @Sendable func listTeams(_ request: Request, context: APIRequestContext) async throws -> Response {
        let teams = try await registry.teams().sorted { $0.teamID < $1.teamID }
        return JSONBody.response(TeamListJSON(teams: teams.map(TeamJSON.init)))
    }

    @Sendable func createKey(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateKeyBody.self, from: request, context: context)
        let created = try await registry.createKey(
            teamID: body.teamID, keyID: body.keyID, topics: body.topics, publicKeyPEM: body.publicKeyPEM
        )
        return JSONBody.response(status: .created, KeyJSON(created: created))
    }

    @Sendable func createApp(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateAppBody.self, from: request, context: context)
        let entitlements = Entitlements(
            timeSensitive: body.entitlements?.timeSensitive ?? false,
            criticalAlerts: body.entitlements?.criticalAlerts ?? false,
            communication: body.entitlements?.communication ?? false
        )
        let app = try await registry.createApp(
            bundleID: body.bundleID, teamID: body.teamID, name: body.name, entitlements: entitlements
        )
        return JSONBody.response(status: .created, AppJSON(app))
    }

    @Sendable func createUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateUserBody.self, from: request, context: context)
        let created = try await registry.createUser(name: body.name)
        return JSONBody.response(status: .created, UserJSON(created))
    }

    @Sendable func createDevice(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateDeviceBody.self, from: request, context: context)
        let device = try await registry.createDevice(userID: body.userID, name: body.name)
        return JSONBody.response(status: .created, DeviceJSON(device))
    }

    @Sendable func createDeviceToken(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CreateDeviceTokenBody.self, from: request, context: context)
        let record = try await registry.createDeviceToken(
            deviceID: body.deviceID, bundleID: body.bundleID, token: body.token)
        return JSONBody.response(status: .created, DeviceTokenJSON(record: record))
    }

    @Sendable func unregisterDeviceToken(_ request: Request, context: APIRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        let record = try await registry.unregisterDeviceToken(token)
        return JSONBody.response(DeviceTokenJSON(record: record))
    }
}
