import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird

/// A person's responses to notifications, and the app's live connection that takes them
/// (`userNotificationCenter(_:didReceive:withCompletionHandler:)`):
/// `POST /v1/devices/{device_id}/notifications/{id}/response` (the device's owner): the default
/// action (a tap), one of the category's actions (with the typed text for a text-input action), or a
/// dismissal; stored durably before it is answered. The app's live connection (`AppStreamRoutes`)
/// takes them.
struct ResponseRoutes: Sendable {
    static let defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/devices/{device_id}/notifications/{id}/response", respond)
        ]
    }

    // MARK: The person responds

    @Sendable func respond(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticator.requireDevice(
            try context.parameters.require("device_id"), request: request)
        let id = try context.parameters.require("id").lowercased()
        let (action, text) = try Self.responseBody(try await JSONFields.body(request, context: context))
        guard let row = try await store.notification(deviceID: device.deviceID, id: id),
            row.disposition != .notDelivered
        else {
            throw APIError.notFound("notification_not_found", "The device has no such notification.")
        }
        let appView = try await store.appNotifications(deviceID: device.deviceID, bundleID: row.bundleID)
        guard let record = appView.first(where: { $0.notification.id == id }) else {
            throw APIError.notFound(
                "notification_not_found", "The notification is no longer in Notification Center (dismissed).")
        }
        let payload = try? NotificationPayload(json: Data(row.payload.utf8))
        let category = try await payload?.aps.category.asyncFlatMap {
            try await store.category(bundleID: row.bundleID, identifier: $0)
        }
        let categoryJSON = category.flatMap { try? JSONParser.parse(Array($0.json.utf8)) }?.objectValue
        let options = Self.array(categoryJSON?["options"]).compactMap(\.stringValue)
        var recorded = true
        switch action {
        case Self.defaultAction:
            guard text == nil else { throw APIError.invalidField("user_text", "is only for a text-input action.") }
            if let changed = try await store.markRead(deviceID: device.deviceID, id: id, at: dependencies.now()) {
                dependencies.hub.publish([changed])
            }
        case Self.dismissAction:
            guard text == nil else { throw APIError.invalidField("user_text", "is only for a text-input action.") }
            if let changed = try await store.dismiss(deviceID: device.deviceID, id: id, at: dependencies.now()) {
                dependencies.hub.publish([changed])
            }
            // The app hears of a dismissal only when its category asks for it, as on iOS.
            recorded = options.contains("custom_dismiss_action")
        default:
            let actions = Self.array(categoryJSON?["actions"]).compactMap(\.objectValue)
            guard let definition = actions.first(where: { $0["identifier"]?.stringValue == action }) else {
                throw APIError.invalidField(
                    "action_identifier", "is not an action of the notification's category (nor `default` or `dismiss`)."
                )
            }
            let isTextInput = definition["text_input"].map { $0 != JSONValue.null } ?? false
            if isTextInput && text == nil { throw APIError.missingField("user_text") }
            if !isTextInput && text != nil {
                throw APIError.invalidField("user_text", "is only for a text-input action.")
            }
            let actionOptions = Self.array(definition["options"]).compactMap(\.stringValue)
            if actionOptions.contains("authentication_required") {
                let state = try await store.deviceState(deviceID: device.deviceID) ?? DeviceState()
                if state.isLocked {
                    throw APIError(
                        .forbidden, code: "authentication_required",
                        message: "This action needs the device unlocked (PUT /v1/devices/{device_id}/state).")
                }
            }
            if let changed = try await store.markRead(deviceID: device.deviceID, id: id, at: dependencies.now()) {
                dependencies.hub.publish([changed])
            }
        }
        guard recorded else {
            return JSONBody.response(status: .created, JSONValue.object(["response": .null]))
        }
        var generator = SystemRandomNumberGenerator()
        let response = NotificationResponseRecord(
            id: APNsID.make(using: &generator).lowercased(), deviceID: device.deviceID, bundleID: row.bundleID,
            notificationID: id, actionIdentifier: action, userText: text,
            notificationJSON: String(
                decoding: try JSONBody.encode(try AppRoutes.appNotificationJSON(record)), as: UTF8.self),
            respondedAt: dependencies.now())
        try await mapStoreErrors {
            try await store.recordResponse(response, webhookBody: try WebhookRoutes.body(response))
        }
        dependencies.apps.signal(deviceID: device.deviceID, bundleID: row.bundleID)
        // The app may be connected to another node sharing the database.
        await dependencies.policy.tellOtherNodes(.appResponses(deviceID: device.deviceID, bundleID: row.bundleID))
        dependencies.webhooksChanged()
        return JSONBody.response(status: .created, JSONValue.object(["response": Self.json(response)]))
    }

    /// Reads the body of a response: the action (`default` and `dismiss` spelled out as Apple's
    /// identifiers) and the typed text. Whether they fit the notification's category is checked
    /// against the store, after the notification is found.
    static func responseBody(_ fields: JSONFields) throws -> (action: String, text: String?) {
        try fields.allowOnly(["action_identifier", "user_text"])
        guard var action = try fields.string("action_identifier") else {
            throw APIError.missingField("action_identifier")
        }
        if action == "default" { action = Self.defaultAction }
        if action == "dismiss" { action = Self.dismissAction }
        return (action, try fields.string("user_text"))
    }

    /// The items of a JSON array (none when it is not one).
    static func array(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { return items }
        return []
    }

    static func json(_ response: NotificationResponseRecord) -> JSONValue {
        .object([
            "id": .string(response.id), "action_identifier": .string(response.actionIdentifier),
            "user_text": .optional(response.userText),
            "responded_at": .string(Timestamp.string(response.respondedAt)),
            "notification": (try? JSONParser.parse(Array(response.notificationJSON.utf8))) ?? .null,
        ])
    }
}

extension Optional {
    fileprivate func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
