import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird

/// `GET /v1/notifications/{id}/decision`: how a notification interrupted, with a sentence per
/// reason. Searches the devices of the token's user (`?device_id=` picks one); a notification of
/// another user's device answers 404 like one that does not exist.
struct DecisionRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [APIRoute(.get, "/v1/notifications/{id}/decision", decision)]
    }

    static let notFound = APIError.notFound(
        "notification_not_found", "There is no notification with this id on your devices.")

    @Sendable func decision(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try context.parameters.require("id")
        var devices = try await store.devices(userID: user.userID).sorted {
            ($0.createdAt, $0.deviceID) < ($1.createdAt, $1.deviceID)
        }
        if let deviceID = request.uri.queryParameters.get("device_id") {
            devices = devices.filter { $0.deviceID == deviceID }
            guard !devices.isEmpty else { throw APIError.deviceNotFound }
        }
        for device in devices {
            for candidate in Set([id, id.lowercased()]).sorted(by: >) {
                if let row = try await store.notification(deviceID: device.deviceID, id: candidate) {
                    return JSONBody.response(dependencies.policy.explain(row))
                }
            }
        }
        throw Self.notFound
    }
}
