import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import HeraldTriggers
import Hummingbird

/// The app API (`/v1/app/…`): what `UNUserNotificationCenter` does, for one app on one device,
/// behind that app's credential (`Authorization: Bearer <app credential>`, issued by
/// `POST /v1/admin/app-credentials` or `herald admin app-credential`). An app sees and changes only
/// its own requests, notifications, categories, badge and settings, as on iOS; there is no
/// device or bundle id in these paths to get wrong.
struct AppRoutes: Sendable {
    /// The longest request identifier accepted, in UTF-8 bytes.
    static let maximumIdentifierLength = 1024

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }
    var local: LocalNotificationService { dependencies.policy.localNotifications }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/app/requests", addRequest),
            APIRoute(.get, "/v1/app/requests", pendingRequests),
            APIRoute(.delete, "/v1/app/requests", removeAllPendingRequests),
            APIRoute(.post, "/v1/app/requests/remove", removePendingRequests),
            APIRoute(.get, "/v1/app/notifications", deliveredNotifications),
            APIRoute(.delete, "/v1/app/notifications", removeAllDeliveredNotifications),
            APIRoute(.post, "/v1/app/notifications/remove", removeDeliveredNotifications),
            APIRoute(.put, "/v1/app/badge", setBadgeCount),
            APIRoute(.get, "/v1/app/categories", getCategories),
            APIRoute(.put, "/v1/app/categories", setCategories),
            APIRoute(.get, "/v1/app/settings", getSettings),
        ]
    }

    // MARK: Requests

    @Sendable func addRequest(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        var body = try Self.addRequestBody(try await JSONFields.body(request, context: context))
        let identifier = body.identifier
        // The attachments it names must be ones the app uploaded on this device; the content keeps them
        // as the store has them (the delivered notification shows them).
        var shown: [String] = []
        if let made = body.made, !made.attachments.isEmpty {
            let attachments = try await AttachmentRoutes.resolve(
                made.attachments, bundleID: app.bundleID, deviceID: app.deviceID, store: store)
            body.contentText = String(
                decoding: try JSONBody.encode(LocalContentJSON.resolved(made, attachments)), as: UTF8.self)
            shown = attachments.map(\.id)
        }
        let added: LocalNotificationService.Added
        do {
            added = try await mapStoreErrors {
                try await local.add(
                    deviceID: app.deviceID, bundleID: app.bundleID, identifier: identifier, content: body.contentText,
                    payload: body.payloadText, trigger: body.trigger)
            }
        } catch LocalNotificationService.Refusal.notificationsNotAllowed(let status) {
            throw APIError(
                .forbidden, code: "notifications_not_allowed",
                message:
                    "Notifications are not allowed for this app (authorization status `\(PolicyNames.name(status, in: PolicyNames.authorization))`): nothing was added."
            )
        }
        // Linked once the request (or its notification) shows them, not before: the sweeper frees a
        // linked attachment nothing shows, and one linked first could be freed before the request was
        // stored. Unlinked, an attachment is kept while something shows it, else for an hour.
        if !shown.isEmpty { try await store.linkAttachments(ids: shown, at: dependencies.now()) }
        switch added {
        case .delivered(let changes):
            let row = changes.last { !$0.isRemoved }
            return JSONBody.response(
                status: .created,
                JSONValue.object([
                    "identifier": .string(identifier), "delivered": .bool(true), "request": .null,
                    "notification": try row.map {
                        try Self.appNotificationJSON(
                            AppNotificationRecord(identifier: identifier, isLocal: true, trigger: nil, notification: $0)
                        )
                    } ?? .null,
                    "dropped": .array([]),
                ]))
        case .scheduled(let stored, let dropped):
            return JSONBody.response(
                status: .created,
                JSONValue.object([
                    "identifier": .string(identifier), "delivered": .bool(false), "request": Self.requestJSON(stored),
                    "notification": .null, "dropped": .strings(dropped),
                ]))
        }
    }

    /// What `POST /v1/app/requests` asks for: the request's identifier, its content as stored and as
    /// the payload it is decided as, and its trigger.
    struct AddRequestBody: Hashable {
        var identifier: String
        var contentText: String
        var payloadText: String
        var trigger: LocalTrigger?
        var made: LocalContentJSON.Made? = nil

        static func == (lhs: Self, rhs: Self) -> Bool {
            (lhs.identifier, lhs.contentText, lhs.payloadText, lhs.trigger)
                == (rhs.identifier, rhs.contentText, rhs.payloadText, rhs.trigger)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(identifier)
            hasher.combine(contentText)
        }
    }

    /// Reads the body of `POST /v1/app/requests`; a 400 names the first field at fault.
    static func addRequestBody(_ fields: JSONFields) throws -> AddRequestBody {
        try fields.allowOnly(["identifier", "content", "trigger"])
        guard let identifier = try fields.string("identifier") else { throw APIError.missingField("identifier") }
        guard !identifier.isEmpty, identifier.utf8.count <= Self.maximumIdentifierLength else {
            throw APIError.invalidField("identifier", "must be 1 to \(Self.maximumIdentifierLength) bytes long.")
        }
        guard let contentFields = try fields.fields("content") else { throw APIError.missingField("content") }
        let made = try LocalContentJSON.make(contentFields)
        let trigger = try Self.trigger(fields)
        return AddRequestBody(
            identifier: identifier, contentText: String(decoding: try JSONBody.encode(made.content), as: UTF8.self),
            payloadText: String(decoding: try JSONBody.encode(made.payload), as: UTF8.self), trigger: trigger,
            made: made)
    }

    /// The body's trigger: absent or null delivers at once.
    static func trigger(_ fields: JSONFields) throws -> LocalTrigger? {
        guard let value = fields.object["trigger"], value != .null else { return nil }
        guard value.objectValue != nil else { throw APIError.invalidField("trigger", "must be an object or null.") }
        let text = String(decoding: try JSONBody.encode(value), as: UTF8.self)
        do {
            return try LocalTrigger(jsonText: text)
        } catch {
            let field = error.field == "trigger" ? "trigger" : "trigger.\(error.field)"
            if error.isMissing { throw APIError.missingField(field) }
            if error.rule.contains("is refused") {
                // Apple's exception for the interval, as `UNTimeIntervalNotificationTrigger` raises it.
                throw APIError(.badRequest, code: "invalid_trigger", message: "`\(field)` \(error.rule)")
            }
            throw APIError.invalidField(field, error.rule)
        }
    }

    @Sendable func pendingRequests(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let requests = try await store.localRequests(deviceID: app.deviceID, bundleID: app.bundleID)
        return JSONBody.response(JSONValue.object(["requests": .array(requests.map(Self.requestJSON))]))
    }

    @Sendable func removeAllPendingRequests(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let removed = try await store.removeLocalRequests(
            deviceID: app.deviceID, bundleID: app.bundleID, identifiers: nil)
        local.requestsChanged()
        return JSONBody.response(JSONValue.object(["removed": .strings(removed)]))
    }

    @Sendable func removePendingRequests(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let identifiers = try await Self.identifiers(request, context: context)
        let removed = try await store.removeLocalRequests(
            deviceID: app.deviceID, bundleID: app.bundleID, identifiers: identifiers)
        local.requestsChanged()
        return JSONBody.response(JSONValue.object(["removed": .strings(removed)]))
    }

    /// `{"identifiers": [...]}`.
    static func identifiers(_ request: Request, context: APIRequestContext) async throws -> [String] {
        let fields = try await JSONFields.body(request, context: context)
        try fields.allowOnly(["identifiers"])
        guard let identifiers = try fields.strings("identifiers") else { throw APIError.missingField("identifiers") }
        return identifiers
    }

    static func requestJSON(_ record: LocalRequestRecord) -> JSONValue {
        .object([
            "identifier": .string(record.identifier),
            "content": (try? JSONParser.parse(Array(record.content.utf8))) ?? .null,
            "trigger": (try? JSONParser.parse(Array(record.trigger.utf8))) ?? .null,
            "added_at": .string(Timestamp.string(record.addedAt)),
            "next_trigger_date": record.nextFireAt.map { .string(Timestamp.string($0)) } ?? .null,
        ])
    }

    // MARK: Delivered notifications

    @Sendable func deliveredNotifications(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let records = try await store.appNotifications(deviceID: app.deviceID, bundleID: app.bundleID)
        return JSONBody.response(
            JSONValue.object([
                "notifications": .array(try records.map(Self.appNotificationJSON))
            ]))
    }

    @Sendable func removeAllDeliveredNotifications(_ request: Request, context: APIRequestContext) async throws
        -> Response
    {
        let app = try await authenticator.requireAppCredential(request)
        return try await removeDelivered(app, identifiers: nil)
    }

    @Sendable func removeDeliveredNotifications(_ request: Request, context: APIRequestContext) async throws
        -> Response
    {
        let app = try await authenticator.requireAppCredential(request)
        return try await removeDelivered(app, identifiers: try await Self.identifiers(request, context: context))
    }

    private func removeDelivered(_ app: AppCredentialRecord, identifiers: [String]?) async throws -> Response {
        let removed = try await store.removeAppNotifications(
            deviceID: app.deviceID, bundleID: app.bundleID, identifiers: identifiers, at: dependencies.now())
        dependencies.hub.publish(removed.map(\.notification))
        return JSONBody.response(JSONValue.object(["removed": .strings(removed.map(\.identifier))]))
    }

    /// A notification of the app's list: its identifier, its date, whether it is local (with the
    /// trigger that fired it) or a push, and the notification as the device list shows it.
    static func appNotificationJSON(_ record: AppNotificationRecord) throws -> JSONValue {
        let notification = try JSONParser.parse(Array(try JSONBody.encode(NotificationJSON(record.notification))))
        return .object([
            "identifier": .string(record.identifier),
            "date": .string(Timestamp.string(record.notification.receivedAt)),
            "source": .string(record.isLocal ? "local" : "push"),
            "trigger": record.trigger.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null,
            "notification": notification,
        ])
    }

    // MARK: Badge, categories, settings

    @Sendable func setBadgeCount(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let fields = try await JSONFields.body(request, context: context)
        try fields.allowOnly(["count"])
        guard let value = fields.object["count"] else { throw APIError.missingField("count") }
        guard case .number(let number) = value, let count = Int(exactly: number), count >= 0 else {
            // UNError.badgeInputInvalid (1600).
            throw APIError(
                .badRequest, code: "badge_input_invalid", message: "`count` must be an integer of 0 or more.")
        }
        try await mapStoreErrors {
            try await store.setAppBadge(deviceID: app.deviceID, bundleID: app.bundleID, badge: count)
        }
        return JSONBody.response(JSONValue.object(["count": .number(Double(count))]))
    }

    @Sendable func getCategories(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let records = try await store.categories(bundleID: app.bundleID)
        let categories = records.map { (try? JSONParser.parse(Array($0.json.utf8))) ?? .null }
        return JSONBody.response(JSONValue.object(["categories": .array(categories)]))
    }

    /// Replaces the app's categories with the body's set (`setNotificationCategories`).
    @Sendable func setCategories(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let categories = try Self.categories(try await JSONFields.body(request, context: context))
        let texts = try categories.map {
            ($0.identifier, String(decoding: try JSONBody.encode($0.json), as: UTF8.self))
        }
        try await mapStoreErrors { try await store.replaceCategories(bundleID: app.bundleID, texts) }
        await dependencies.policy.appResourcesChanged(bundleID: app.bundleID)
        return JSONBody.response(JSONValue.object(["categories": .array(categories.map(\.json))]))
    }

    /// Reads the body of `PUT /v1/app/categories`: each category's identifier and canonical JSON.
    static func categories(_ fields: JSONFields) throws -> [(identifier: String, json: JSONValue)] {
        try fields.allowOnly(["categories"])
        guard let items = try fields.array("categories") else { throw APIError.missingField("categories") }
        var categories: [(identifier: String, json: JSONValue)] = []
        for (index, item) in items.enumerated() {
            let category = try JSONFields(item, path: "categories[\(index)]")
            guard let identifier = try category.string("identifier") else {
                throw APIError.missingField(category.name("identifier"))
            }
            if categories.contains(where: { $0.identifier == identifier }) {
                throw APIError.invalidField(category.name("identifier"), "repeats the identifier of another category.")
            }
            categories.append((identifier, try CategoryJSON.make(category, identifier: identifier)))
        }
        return categories
    }

    /// `UNNotificationSettings`: the user's settings for the app (the defaults when never set) and
    /// the Show Previews setting in effect for it.
    @Sendable func getSettings(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try await authenticator.requireAppCredential(request)
        let stored = try await store.appSettings(userID: app.userID)[app.bundleID]
        let preferences = try await store.preferences(userID: app.userID) ?? UserPreferences()
        let settings = stored ?? PolicyCoordinator.defaultAppSettings
        return JSONBody.response(
            JSONValue.object([
                "settings": AppSettingsJSON.json(settings, bundleID: app.bundleID, isDefault: stored == nil),
                "effective_show_previews": .string(
                    PolicyNames.name(settings.showPreviews ?? preferences.showPreviews, in: PolicyNames.showPreviews)),
            ]))
    }
}
