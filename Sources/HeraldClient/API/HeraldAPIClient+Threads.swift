import Foundation

extension HeraldAPIClient {
    /// `GET /v1/devices/{device_id}/threads`: the device's list grouped as it shows it.
    public func threads(deviceID: String, limit: Int? = nil) async throws -> Data {
        try await send(
            "GET", path: "/v1/devices/\(Self.pathSegment(deviceID))/threads",
            query: limit.map { [("limit", String($0))] } ?? []
        )
    }

    /// `GET /v1/devices/{device_id}/badges`: the device's app badges and their total.
    public func badges(deviceID: String) async throws -> Data {
        try await send("GET", path: "/v1/devices/\(Self.pathSegment(deviceID))/badges")
    }
}
