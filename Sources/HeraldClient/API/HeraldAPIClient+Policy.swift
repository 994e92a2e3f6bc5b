import Foundation
import HeraldCore

/// The user-side state of the delivery policy (`/v1/me/…`, a user's token), device state and
/// decisions; and the admin routes for categories and localization files (the admin token).
extension HeraldAPIClient {
    /// `GET /v1/notifications/{id}/decision`: the decision and a sentence per reason.
    public func decision(notificationID: String, deviceID: String? = nil) async throws -> Data {
        try await send(
            "GET", path: "/v1/notifications/\(Self.pathSegment(notificationID))/decision",
            query: deviceID.map { [("device_id", $0)] } ?? []
        )
    }

    /// `GET /v1/me/focus-modes`.
    public func focusModes() async throws -> Data {
        try await send("GET", path: "/v1/me/focus-modes")
    }

    /// `GET /v1/me/focus`: the active Focus and why.
    public func activeFocus() async throws -> Data {
        try await send("GET", path: "/v1/me/focus")
    }

    /// `POST /v1/me/focus-modes/{id}/on`, until `until` (ISO 8601) when given.
    public func focusOn(id: String, until: String? = nil) async throws -> Data {
        try await send(
            "POST", path: "/v1/me/focus-modes/\(Self.pathSegment(id))/on",
            body: until.map { .object(["until": .string($0)]) }
        )
    }

    /// `GET /v1/me/focus-modes/{id}/suggested-people`: people the user messaged or called.
    public func suggestedPeople(focusID: String, limit: Int? = nil) async throws -> Data {
        try await send(
            "GET", path: "/v1/me/focus-modes/\(Self.pathSegment(focusID))/suggested-people",
            query: limit.map { [("limit", String($0))] } ?? [])
    }

    /// `POST /v1/me/focus-modes/{id}/off`.
    public func focusOff(id: String) async throws -> Data {
        try await send("POST", path: "/v1/me/focus-modes/\(Self.pathSegment(id))/off")
    }

    /// `GET /v1/me/apps/{bundle_id}/settings`.
    public func appSettings(bundleID: String) async throws -> Data {
        try await send("GET", path: "/v1/me/apps/\(Self.pathSegment(bundleID))/settings")
    }

    /// `PUT /v1/me/apps/{bundle_id}/settings` with the fields to change.
    public func setAppSettings(bundleID: String, fields: [String: JSONValue]) async throws -> Data {
        try await send("PUT", path: "/v1/me/apps/\(Self.pathSegment(bundleID))/settings", body: .object(fields))
    }

    /// `GET /v1/devices/{device_id}/state`.
    public func deviceState(deviceID: String) async throws -> Data {
        try await send("GET", path: "/v1/devices/\(Self.pathSegment(deviceID))/state")
    }

    /// `PUT /v1/devices/{device_id}/state` with the fields to change.
    public func setDeviceState(deviceID: String, fields: [String: JSONValue]) async throws -> Data {
        try await send("PUT", path: "/v1/devices/\(Self.pathSegment(deviceID))/state", body: .object(fields))
    }

    /// `PUT /v1/admin/apps/{bundle_id}/categories/{identifier}` (admin token).
    public func putCategory(bundleID: String, identifier: String, category: JSONValue) async throws -> Data {
        try await send(
            "PUT", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/categories/\(Self.pathSegment(identifier))",
            body: category
        )
    }

    /// `GET /v1/admin/apps/{bundle_id}/categories` (admin token).
    public func categories(bundleID: String) async throws -> Data {
        try await send("GET", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/categories")
    }

    /// Sets the app's icon (`PUT /v1/admin/apps/{bundle_id}/icon`): a PNG, JPEG or GIF image.
    public func setAppIcon(bundleID: String, data: Data) async throws -> Data {
        try await send(
            "PUT", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/icon", data: data,
            contentType: "application/octet-stream")
    }

    /// Removes the app's icon (`DELETE /v1/admin/apps/{bundle_id}/icon`): the generated default shows.
    public func removeAppIcon(bundleID: String) async throws -> Data {
        try await send("DELETE", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/icon")
    }

    /// Sets the app's web content extension (`PUT /v1/admin/apps/{bundle_id}/content-extension`):
    /// `categories`, `html` and Apple's options.
    public func setContentExtension(bundleID: String, settings: JSONValue) async throws -> Data {
        try await send("PUT", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/content-extension", body: settings)
    }

    /// `GET /v1/admin/apps/{bundle_id}/content-extension` (admin token).
    public func contentExtension(bundleID: String) async throws -> Data {
        try await send("GET", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/content-extension")
    }

    /// Removes the app's content extension (`DELETE /v1/admin/apps/{bundle_id}/content-extension`).
    public func removeContentExtension(bundleID: String) async throws -> Data {
        try await send("DELETE", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/content-extension")
    }

    /// `PUT /v1/admin/apps/{bundle_id}/localizations/{locale}/{file_name}` with the file (admin token).
    public func uploadLocalization(bundleID: String, locale: String, fileName: String, data: Data) async throws -> Data
    {
        try await send(
            "PUT",
            path:
                "/v1/admin/apps/\(Self.pathSegment(bundleID))/localizations/\(Self.pathSegment(locale))/\(Self.pathSegment(fileName))",
            data: data, contentType: "application/octet-stream"
        )
    }

    /// `GET /v1/admin/apps/{bundle_id}/localizations` (admin token).
    public func localizations(bundleID: String) async throws -> Data {
        try await send("GET", path: "/v1/admin/apps/\(Self.pathSegment(bundleID))/localizations")
    }
}
