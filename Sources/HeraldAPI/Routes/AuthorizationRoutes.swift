import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird

/// Asking the person (`requestAuthorization(options:)`): the app asks through the app API; the
/// device shows the request (`event: authorization_requests` on its streams, and
/// `GET /v1/devices/{id}/authorization-requests`); the person answers through the device API (`herald
/// authorize`); the app's call returns the answer. Provisional authorization is granted quietly;
/// once answered, later requests return the stored answer without asking again.
struct AuthorizationRoutes: Sendable {
    /// The longest an app's request waits for the person in one call, in seconds (then 202: ask again).
    static let maximumWait: Double = 60
    static let defaultWait: Double = 25
    /// The name of the stream event that carries the device's pending requests.
    static let eventName = "authorization_requests"

    /// `UNAuthorizationOptions` by Herald's names (camelCase spellings are accepted too).
    static let optionNames = [
        "badge", "sound", "alert", "car_play", "critical_alert", "provides_app_notification_settings", "provisional",
        "announcement", "time_sensitive",
    ]

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/app/authorization", requestAuthorization),
            APIRoute(.get, "/v1/devices/{device_id}/authorization-requests", listRequests),
            APIRoute(.post, "/v1/devices/{device_id}/authorization-requests/{id}", answerRequest),
        ]
    }

    // MARK: The app asks

    @Sendable func requestAuthorization(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let (options, wait) = try Self.authorizationBody(try await JSONFields.optionalBody(request, context: context))
        var generator = SystemRandomNumberGenerator()
        let asked = AuthorizationRequestRecord(
            id: APNsID.make(using: &generator).lowercased(), deviceID: app.deviceID, bundleID: app.bundleID,
            userID: app.userID, options: options, requestedAt: dependencies.now())
        let outcome = try await mapStoreErrors {
            try await store.askAuthorization(asked, provisional: options.contains("provisional"))
        }
        switch outcome {
        case .determined(let settings):
            await dependencies.policy.userStateChanged(userID: app.userID)
            return JSONBody.response(Self.answer(settings: settings, request: nil))
        case .pending(let pending):
            if pending.id == asked.id {
                // A new request: the app is not determined until the person answers; the device shows it.
                await dependencies.policy.userStateChanged(userID: app.userID)
                try await publishRequests(deviceID: pending.deviceID)
            }
            // Wait for the answer (polling the store: any node may record it), at most `wait` seconds.
            let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                if let answered = try await store.authorizationRequest(id: pending.id), answered.answeredAt != nil {
                    let settings =
                        try await store.appSettings(userID: app.userID)[app.bundleID]
                        ?? PolicyCoordinator.defaultAppSettings
                    return JSONBody.response(Self.answer(settings: settings, request: answered))
                }
            }
            return JSONBody.response(
                status: .accepted,
                JSONValue.object([
                    "granted": .null, "authorization_status": .string("not_determined"),
                    "request": Self.requestJSON(pending),
                ]))
        }
    }

    /// Reads the body of `POST /v1/app/authorization`: the options asked for (canonical names, in
    /// `optionNames`' order) and how long to wait for the person, in seconds.
    static func authorizationBody(_ fields: JSONFields) throws -> (options: [String], wait: Double) {
        try fields.allowOnly(["options", "wait"])
        let options = try CategoryJSON.optionList(fields, "options", allowed: Self.optionNames)
        var wait = Self.defaultWait
        if fields.has("wait") {
            guard case .number(let seconds)? = fields.object["wait"], (0...Self.maximumWait).contains(seconds) else {
                throw APIError.invalidField("wait", "must be a number of seconds from 0 to \(Int(Self.maximumWait)).")
            }
            wait = seconds
        }
        return (options, wait)
    }

    static func answer(settings: AppNotificationSettings, request: AuthorizationRequestRecord?) -> JSONValue {
        let granted = [.authorized, .provisional, .ephemeral].contains(settings.authorizationStatus)
        return .object([
            "granted": .bool(granted),
            "authorization_status": .string(
                PolicyNames.name(settings.authorizationStatus, in: PolicyNames.authorization)),
            "request": request.map(requestJSON) ?? .null,
        ])
    }

    // MARK: The person answers

    @Sendable func listRequests(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(
            try context.parameters.require("device_id"), request: request)
        return JSONBody.response(try await listJSON(deviceID: device.deviceID))
    }

    @Sendable func answerRequest(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(
            try context.parameters.require("device_id"), request: request)
        let id = try context.parameters.require("id")
        let fields = try await JSONFields.body(request, context: context)
        try fields.allowOnly(["allow"])
        guard let allow = try fields.bool("allow") else { throw APIError.missingField("allow") }
        guard let pending = try await store.authorizationRequest(id: id), pending.deviceID == device.deviceID else {
            throw APIError.notFound(
                "authorization_request_not_found", "The device has no authorization request with this id.")
        }
        guard pending.answeredAt == nil else {
            throw APIError.conflict("authorization_request_answered", "The request was answered already.")
        }
        let current = try await store.appSettings(userID: pending.userID)[pending.bundleID]
        let app = dependencies.registry.cache.snapshot.apps[pending.bundleID]
        let settings = Self.settings(
            after: allow, options: pending.options, base: current,
            criticalAlertsEntitled: app?.entitlements.criticalAlerts ?? false)
        guard
            let answered = try await store.answerAuthorizationRequest(
                id: id, granted: allow, settings: settings, at: dependencies.now())
        else {
            throw APIError.conflict("authorization_request_answered", "The request was answered already.")
        }
        await dependencies.policy.userStateChanged(userID: pending.userID)
        try await publishRequests(deviceID: device.deviceID)
        return JSONBody.response(
            JSONValue.object([
                "request": Self.requestJSON(answered),
                "settings": AppSettingsJSON.json(settings, bundleID: pending.bundleID, isDefault: false),
            ]))
    }

    /// The app's settings once the person answered: allowed, what the app asked for is on (alerts as
    /// banners, sound, badge; critical alerts only with the app's entitlement) and what it did not ask
    /// for is not supported, as on iOS; denied, nothing. Other choices the person made are kept.
    static func settings(
        after allow: Bool, options: [String], base: AppNotificationSettings?, criticalAlertsEntitled: Bool
    ) -> AppNotificationSettings {
        var settings = base ?? AppNotificationSettings()
        guard allow else {
            settings.authorizationStatus = .denied
            return settings
        }
        settings.authorizationStatus = .authorized
        settings.alertStyle = options.contains("alert") ? .banner : .none
        settings.sound = options.contains("sound") ? .enabled : .notSupported
        settings.badge = options.contains("badge") ? .enabled : .notSupported
        settings.carPlay = options.contains("car_play") ? .enabled : .notSupported
        settings.criticalAlerts =
            options.contains("critical_alert") && criticalAlertsEntitled ? .enabled : .notSupported
        return settings
    }

    // MARK: JSON and events

    static func requestJSON(_ record: AuthorizationRequestRecord) -> JSONValue {
        .object([
            "id": .string(record.id), "device_id": .string(record.deviceID), "bundle_id": .string(record.bundleID),
            "options": .strings(record.options), "requested_at": .string(Timestamp.string(record.requestedAt)),
            "answered_at": record.answeredAt.map { .string(Timestamp.string($0)) } ?? .null,
            "granted": record.granted.map(JSONValue.bool) ?? .null,
        ])
    }

    private func listJSON(deviceID: String) async throws -> JSONValue {
        let pending = try await store.pendingAuthorizationRequests(deviceID: deviceID)
        return .object(["requests": .array(pending.map(Self.requestJSON))])
    }

    /// Tells the device's sessions its pending requests (`event: authorization_requests`).
    private func publishRequests(deviceID: String) async throws {
        dependencies.hub.publishEvent(deviceID: deviceID, name: Self.eventName, try await listJSON(deviceID: deviceID))
    }
}
