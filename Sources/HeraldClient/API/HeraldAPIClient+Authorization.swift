import Foundation
import HeraldCore

extension HeraldAPIClient {
    /// `GET /v1/devices/{id}/authorization-requests`: the apps waiting for the person's answer.
    public func authorizationRequests(deviceID: String) async throws -> Data {
        try await send("GET", path: "/v1/devices/\(Self.pathSegment(deviceID))/authorization-requests")
    }

    /// `POST /v1/devices/{id}/authorization-requests/{request}`: allows or denies an app.
    public func answerAuthorizationRequest(deviceID: String, requestID: String, allow: Bool) async throws -> Data {
        try await send(
            "POST",
            path: "/v1/devices/\(Self.pathSegment(deviceID))/authorization-requests/\(Self.pathSegment(requestID))",
            body: .object(["allow": .bool(allow)]))
    }
}
