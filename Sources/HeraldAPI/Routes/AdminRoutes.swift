import HeraldCore
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
        ]
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
